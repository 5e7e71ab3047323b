"""Whose jobs a caller may retry or cancel. An agent's database login retried and cancelled only the jobs
it submitted, but a bearer token (and ``--as NAME``) acts on a session of the schema's owner, which the
queue let act on every job: any writer token could retry another principal's failed jobs over
``POST /jobs/retry``, and cancel them (deleting their text) over ``POST /jobs/cancel``. The database
decides it now (``beliefdb._job_manageable``): a session acting as a named principal retries and
cancels only that principal's jobs, as an agent's login does; the owner's own session (no principal
named: the operator) every job of the workspace, as before."""

from __future__ import annotations

from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, refused

import beliefdb

POLICY = "# Returns\nReturns are accepted within 30 days.\n"
SMALL = {"BELIEFDB_INGEST_MAX_BYTES": "10"}  # (the worker's limit is lower than the submitter's)


def test_a_token_retries_and_cancels_only_its_principals_jobs(http_client: TestClient, db_url: str,
                                                               cli: Cli) -> None:
    alice, bob = bearer(db_url, "alice"), bearer(db_url, "bob")

    def submit(headers: dict[str, str], source: str) -> int:
        answer = http_client.post("/jobs", headers=headers, json={"source": source, "text": POLICY})
        assert answer.status_code == 202, answer.text
        job: int = answer.json()["jobs"][0]
        return job

    hers, his = submit(alice, "alice.md"), submit(bob, "bob.md")
    cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=SMALL, expect=1)
    assert {(j["id"], j["status"]) for j in http_client.get("/jobs", headers=alice).json()} == {
        (hers, "failed"), (his, "failed")}

    # alice names bob's job: it is not hers to retry or cancel, and nothing is changed (GET /jobs lists
    # it: a cancel says whose it is, not that it is unknown)
    assert refused(http_client.post("/jobs/retry", headers=alice, json={"ids": [his]}), 404,
                   "not_found") == f"unknown job {his}"
    assert refused(http_client.post("/jobs/cancel", headers=alice, json={"ids": [his]}), 403,
                   "not_owner") == f"job {his} was queued by bob: only they may cancel it"
    assert refused(http_client.post("/jobs/cancel", headers=alice, json={"source": "bob.md"}), 403, "not_owner") == (
        "the queued or failed jobs of source bob.md were queued by bob: only they may cancel them")
    # all_failed is every failed job of hers
    assert http_client.post("/jobs/retry", headers=alice, json={"all_failed": True}).json() == {"jobs": [hers]}
    assert {(j["id"], j["status"]) for j in http_client.get("/jobs", headers=bob).json()} == {
        (hers, "queued"), (his, "failed")}
    # bob may
    assert http_client.post("/jobs/retry", headers=bob, json={"ids": [his]}).json() == {"jobs": [his]}
    assert http_client.post("/jobs/cancel", headers=bob, json={"source": "bob.md"}).json() == {"jobs": [his]}
    assert [j["id"] for j in http_client.get("/jobs", headers=alice).json()] == [hers]


def test_acting_as_a_principal_retries_only_its_jobs_and_the_operator_every_one(cli: Cli, db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        (hers,) = alice.submit(text=POLICY, source="alice.md")
        (his,) = bob.submit(text=POLICY, source="bob.md")
        cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=SMALL, expect=1)
        assert cli.error("jobs", "retry", str(his), "--as", "alice", code="not_found")["message"] == \
            f"unknown job {his}"
        assert cli.error("jobs", "cancel", str(his), "--as", "alice", code="not_owner")["message"] == \
            f"job {his} was queued by bob: only they may cancel it"
        assert cli.error("jobs", "cancel", "--source", "bob.md", "--as", "alice", code="not_owner")["message"] == \
            "the queued or failed jobs of source bob.md were queued by bob: only they may cancel them"
        assert cli.json("jobs", "retry", "--all-failed", "--as", "alice") == {"jobs": [hers]}
        assert alice.cancel(source="alice.md") == [hers]
        # the schema owner's own session, acting as no principal by name: the operator, every job
        assert cli.json("jobs", "retry", "--all-failed") == {"jobs": [his]}
        assert cli.json("jobs", "cancel", str(his)) == {"jobs": [his], "cancelled": 1}
        assert bob.jobs() == []


def test_a_jobs_error_is_shown_to_its_submitter_and_the_operator(cli: Cli, db_url: str) -> None:
    """A job's error may quote the document, which is not stored: it is its submitter's to read, as its
    text is, and the operator's; another principal sees that it failed, not why."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob, \
            beliefdb.connect(db_url) as operator:
        (hers,) = alice.submit(text=POLICY, source="alice.md")
        (his,) = bob.submit(text=POLICY, source="bob.md")
        cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=SMALL, expect=1)
        seen = {j.id: (j.status, j.last_error) for j in alice.jobs()}
        assert seen[his] == ("failed", None)
        assert seen[hers][0] == "failed" and "over the ingest limit" in (seen[hers][1] or "")
        assert all("over the ingest limit" in (j.last_error or "") for j in operator.jobs())
