"""The return-policy story the picture tests draw (``beliefdb.demo.pictures``), built once per test
module in a database of its own: workspace ``before`` holds the agent's decisions on the policy
v3.2, workspace ``after`` the whole story (v3.3, the correction, the forum post) and an agent's run
that read the 15-day belief, decided on it and wrote a memory."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from uuid import UUID

import pytest
from databases import cloned_database
from pytest_postgresql.executors import NoopExecutor

import beliefdb
from beliefdb.demo import pictures


@dataclass(frozen=True)
class Story:
    url: str
    before: dict[str, UUID]
    after: dict[str, UUID]

    def connect(self, workspace: str) -> beliefdb.BeliefDB:
        return beliefdb.connect(self.url, workspace, principal="demo")


def _tell(url: str) -> Story:
    ids = {}
    for workspace, stage in (("before", "decisions"), ("after", "forum")):
        beliefdb.api.create_workspace(workspace, url=url, principal="demo")
        with beliefdb.connect(url, workspace, principal="demo") as db:
            ids[workspace] = pictures.build(db, stage)
    with beliefdb.connect(url, "after", principal="demo") as db:
        after = ids["after"]
        db.record_outcome(after["credit"], "succeeded", note="credit issued")
        first = db.record_step("user_input", {"text": "Can I return order 1050 on day 12?"}, task="order 1050")
        after["run"] = first.run
        db.ask("how many days for returns?", k=1, run=first.run)
        after["run_decision"] = db.decide_in_run(first.run, "Accept the return of order 1050",
                                                 because=[after["fifteen"]]).id
        wrote = db.record_step("memory_write", {"note": "order 1050 may be returned"}, run=first.run,
                               memory={"subject": "order_1050", "attribute": "returnable", "value": "yes"})
        assert wrote.memory is not None
        after["memory"] = wrote.memory
    return Story(url, ids["before"], ids["after"])


@pytest.fixture(scope="module")
def story(postgresql_proc: NoopExecutor) -> Iterator[Story]:
    """A database of this module's own, cloned from the migrated template, with the story told."""
    with cloned_database(postgresql_proc, "pictures") as url:
        yield _tell(url)
