"""A source moved back and forth between texts (A, B, A) just works (rule 18 of docs/rules.md): each
version supersedes the one before, and a text in force again re-verifies its beliefs, which meet
their rivals under rule 8 whatever supersessions the texts in between left behind."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import beliefdb

FEE = "The restocking fee is {}.\n"
# what each text states, in a few words: (subject, attribute, value) of the rules extractor
TEXTS = [FEE.format("5%"), FEE.format("7%"), FEE.format("10%"),
         FEE.format("5%") + "The warranty period is 12 months.\n", "The warranty period is 24 months.\n",
         FEE.format("3%") + "The warranty period is 24 months.\n"]
_workspaces = itertools.count()


def ingest_files(db: beliefdb.BeliefDB, folder: Path, steps: list[tuple[str, str]]) -> None:
    for name, text in steps:
        path = folder / name
        path.write_text(text, encoding="utf-8")
        (report,) = db.ingest(path, embed=False)
        assert not isinstance(report, beliefdb.models.IngestFailure), report


def fees(db: beliefdb.BeliefDB, status: str) -> list[str]:
    return sorted(b.value for b in db.beliefs(subject="restocking_policy", include_all=True) if b.status == status)


@pytest.mark.slow
def test_the_same_sequence_of_texts_twice_settles_again(bdb: beliefdb.BeliefDB, tmp_path: Path) -> None:
    # c's second text supersedes its first (5% by 7%), and b's 3% supersedes that. In round two
    # c.md's first text is in force again: 7% stops holding, 5% is current again and beats 3% (the
    # later recorded version), although 3% supersedes 7% which superseded 5%: that edge is left
    # by a belief that no longer holds, and must not be read as a cycle.
    steps = [("c.md", FEE.format("5%")), ("a.md", "The warranty period is 24 months.\n"),
             ("c.md", FEE.format("7%")), ("c.md", FEE.format("7%") + "The warranty period is 12 months.\n"),
             ("b.md", FEE.format("3%"))]
    ingest_files(bdb, tmp_path, steps)
    assert (fees(bdb, "current"), fees(bdb, "superseded")) == (["3%"], ["5%", "7%"])
    ingest_files(bdb, tmp_path, steps[:1])
    assert (fees(bdb, "current"), fees(bdb, "superseded")) == (["5%"], ["3%", "7%"])
    ingest_files(bdb, tmp_path, steps[1:])
    assert len(fees(bdb, "current")) == 1
    ingest_files(bdb, tmp_path, steps)
    assert len(fees(bdb, "current")) == 1


def stated(conn: psycopg.Connection[Any], workspace: str) -> dict[str, set[tuple[str, str, str]]]:
    """Per source: the claims of the beliefs that hold on a fragment of its version in force."""
    out: dict[str, set[tuple[str, str, str]]] = {}
    for source, subject, attribute, value in conn.execute(
            """select s.name, b.subject, b.attribute, b.value
                 from beliefdb.source s
                 join beliefdb.workspace w on w.id = s.workspace_id and w.name = %s
                 join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
                 join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
                 join beliefdb.evidence e on e.workspace_id = f.workspace_id and e.fragment_id = f.id
                 join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
                 join beliefdb.node n on n.workspace_id = b.workspace_id and n.id = b.id
                where beliefdb.in_force(s.workspace_id, v.id) and n.holds""", (workspace,)):
        out.setdefault(source, set()).add((subject, attribute, value))
    return out


@pytest.mark.slow
@settings(max_examples=6, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rounds=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(range(len(TEXTS)))),
                       min_size=1, max_size=5).flatmap(lambda steps: st.tuples(st.just(steps), st.permutations(steps))))
# found by this test: 10% superseded by the next text's 5%, which 7% supersedes; 10% again beats 7%
@example(rounds=([("a", 2), ("a", 3), ("a", 3), ("b", 1)],) * 2)
def test_any_sequence_of_versions_reingested_settles(db_url: str, postgresql: psycopg.Connection[Any],
                                                     rounds: tuple[list[tuple[str, int]], ...]) -> None:
    n = next(_workspaces)
    moved, reference = f"moved{n}", f"reference{n}"
    with beliefdb.connect(db_url) as admin:
        admin.create_workspace(moved)
        admin.create_workspace(reference)
    last: dict[str, str] = {}
    with beliefdb.connect(db_url, workspace=moved) as db:
        for steps in rounds:
            for name, text in steps:
                db.ingest_text(TEXTS[text], source=name, extractor="rules")
                last[name] = TEXTS[text]
    # what each final text states, ingested once on its own (its own source in another workspace)
    with beliefdb.connect(db_url, workspace=reference) as db:
        for name, final in last.items():
            db.ingest_text(final, source=name, extractor="rules")
    assert stated(postgresql, moved) == stated(postgresql, reference)
    in_force = postgresql.execute(
        """select s.name, v.version, v.sha256
             from beliefdb.source s
             join beliefdb.workspace w on w.id = s.workspace_id and w.name = %s
             join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
            where beliefdb.in_force(s.workspace_id, v.id)
            order by s.name""", (moved,)).fetchall()
    assert [(name, bytes(sha)) for name, _, sha in in_force] == [
        (name, hashlib.sha256(last[name].encode()).digest()) for name in sorted(last)]
    latest = postgresql.execute(
        """select s.name, max(v.version) from beliefdb.source s
             join beliefdb.workspace w on w.id = s.workspace_id and w.name = %s
             join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
            group by s.name order by s.name""", (moved,)).fetchall()
    assert [(name, version) for name, version, _ in in_force] == latest
    # rule 8: never two current values of one claim
    rivals = postgresql.execute(
        """select b.subject, b.attribute, array_agg(distinct b.value)
             from beliefdb.belief b join beliefdb.workspace w on w.id = b.workspace_id and w.name = %s
            where b.status = 'current' group by b.subject, b.attribute, b.scope having count(distinct b.value) > 1""",
        (moved,)).fetchall()
    assert rivals == []
