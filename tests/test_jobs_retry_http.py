"""Retrying failed jobs over HTTP: ``POST /jobs/retry`` queues failed jobs again as ``beliefdb jobs
retry`` and ``BeliefDB.retry`` do (the ids given, or ``all_failed``; all or none). An agent that queued
its documents with ``POST /jobs`` could see them failed in ``GET /jobs`` and had no way to queue them
again but to submit them anew."""

from __future__ import annotations

from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, refused

POLICY = "# Returns\nReturns are accepted within 30 days.\n"
SMALL = {"BELIEFDB_INGEST_MAX_BYTES": "10"}  # (the worker's limit is lower than the submitter's)


def test_failed_jobs_are_queued_again_over_http(http_client: TestClient, db_url: str, cli: Cli) -> None:
    alice = bearer(db_url)
    ids = [http_client.post("/jobs", headers=alice, json={"source": f"doc-{i}.md", "text": POLICY}).json()["jobs"][0]
           for i in range(3)]
    cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=SMALL, expect=1)
    assert {j["status"] for j in http_client.get("/jobs", headers=alice).json()} == {"failed"}

    again = http_client.post("/jobs/retry", headers=alice, json={"ids": [ids[0]]})
    assert again.status_code == 202 and again.json() == {"jobs": [ids[0]]}, again.text
    (queued,) = http_client.get("/jobs", headers=alice, params={"status": "queued"}).json()
    assert (queued["id"], queued["attempts"]) == (ids[0], 0)
    # all or none, and refused in one line: a job that is not failed, an unknown one, neither or both
    assert refused(http_client.post("/jobs/retry", headers=alice, json={"ids": [ids[1], ids[0]]}), 400,
                   "invalid_input") == f"job {ids[0]} is queued, not failed: only a failed job is retried"
    assert refused(http_client.post("/jobs/retry", headers=alice, json={"ids": [999999]}), 404,
                   "not_found") == "unknown job 999999"
    for body in ({}, {"ids": [ids[1]], "all_failed": True}, {"ids": []}):
        said = refused(http_client.post("/jobs/retry", headers=alice, json=body), 400, "invalid_input")
        assert "ids" in said and "all_failed" in said and "--" not in said, (body, said)
    assert refused(http_client.post("/jobs/retry", headers=bearer(db_url, read_only=True),
                                    json={"all_failed": True}), 403, "read_only_token")
    assert [j["status"] for j in http_client.get("/jobs", headers=alice).json()] == ["failed", "failed", "queued"]

    assert http_client.post("/jobs/retry", headers=alice, json={"all_failed": True}).json() == {"jobs": ids[1:]}
    assert http_client.post("/jobs/retry", headers=alice, json={"all_failed": True}).json() == {"jobs": []}
    report = cli.json("worker", "--until-empty", "--no-embed")
    assert (report["done"], report["failed"]) == (3, 0)
    assert "/jobs/retry" in http_client.get("/openapi.json").json()["paths"]


def test_a_retry_takes_no_text_and_is_limited_to_a_mebibyte(http_client: TestClient, db_url: str) -> None:
    """POST /jobs/retry names job ids, never a document's text: it read a body of the text routes' limit
    (under /jobs, as POST /jobs) before its own checks. Over 1 MiB it is refused with 413 as it arrives."""
    big = b'{"ids": [' + b"1, " * (2 ** 19) + b'1]}'
    answer = http_client.post("/jobs/retry", content=big, headers={**bearer(db_url),
                                                                    "Content-Type": "application/json"})
    assert answer.status_code == 413, answer.text
    assert answer.json()["message"] == (f"the request body is over the limit of {2 ** 20:,} bytes of /jobs/retry"
                                        " (1 MiB: it takes no document's text)")
