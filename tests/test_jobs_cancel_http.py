"""Cancelling queued or failed jobs over HTTP: ``POST /jobs/cancel`` deletes them with their text as
``beliefdb jobs cancel`` and ``BeliefDB.cancel`` do (the ids given, or every queued or failed job of a
``source``; all or none). An agent that queued a document with ``POST /jobs`` (a person's salary by
mistake, say) could list it in ``GET /jobs`` and retry it, but had no way to take it back: the route
was missing, and forget cannot reach a document that was never stored."""

from __future__ import annotations

from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, refused

SALARY = "Maria Keller's salary is 98000 EUR.\n"
POLICY = "Returns are accepted within 30 days.\n"


def test_queued_jobs_are_cancelled_over_http_by_id_or_by_source(http_client: TestClient, db_url: str,
                                                                 cli: Cli) -> None:
    alice = bearer(db_url)

    def submit(source: str, text: str) -> int:
        answer = http_client.post("/jobs", headers=alice, json={"source": source, "text": text})
        assert answer.status_code == 202, answer.text
        job: int = answer.json()["jobs"][0]
        return job

    first, second = submit("salaries.txt", SALARY), submit("salaries.txt", SALARY.replace("98000", "99000"))
    other = submit("returns.md", POLICY)
    done = http_client.post("/jobs/cancel", headers=alice, json={"source": "salaries.txt"})
    assert done.status_code == 200 and done.json() == {"jobs": [first, second]}, done.text
    assert [j["id"] for j in http_client.get("/jobs", headers=alice).json()] == [other]

    # all or none, refused in one line as a retry is: an unknown job, neither or both, a read-only token
    assert refused(http_client.post("/jobs/cancel", headers=alice, json={"ids": [other, 999999]}), 404,
                   "not_found") == "unknown job 999999"
    nothing = http_client.post("/jobs/cancel", headers=alice, json={"source": "nothing.md"})  # (no error: none)
    assert nothing.status_code == 200 and nothing.json() == {"jobs": []}, nothing.text
    for body in ({}, {"ids": [other], "source": "returns.md"}, {"ids": []}):
        said = refused(http_client.post("/jobs/cancel", headers=alice, json=body), 400, "invalid_input")
        assert "ids" in said and "source" in said and "--" not in said, (body, said)
    assert "source" in refused(http_client.post("/jobs/cancel", headers=alice, json={"source": ""}), 400,
                               "invalid_input")
    assert refused(http_client.post("/jobs/cancel", headers=bearer(db_url, read_only=True),
                                    json={"ids": [other]}), 403, "read_only_token")
    assert [j["id"] for j in http_client.get("/jobs", headers=alice).json()] == [other]

    # a done job is not cancelled: its text is the source's now (forget reaches it)
    cli("worker", "--until-empty", "--no-embed")
    assert refused(http_client.post("/jobs/cancel", headers=alice, json={"ids": [other]}), 400, "invalid_input") \
        == f"job {other} is done, not queued or failed: only a queued or failed job is cancelled"
    (third,) = [submit("salaries.txt", SALARY)]
    assert http_client.post("/jobs/cancel", headers=alice, json={"ids": [third]}).json() == {"jobs": [third]}
    operation = http_client.get("/openapi.json").json()["paths"]["/jobs/cancel"]["post"]
    assert {"200", "400", "403", "404"} <= set(operation["responses"]), operation


def test_a_cancel_takes_no_text_and_is_limited_to_a_mebibyte(http_client: TestClient, db_url: str) -> None:
    big = b'{"ids": [' + b"1, " * (2 ** 19) + b'1]}'
    answer = http_client.post("/jobs/cancel", content=big, headers={**bearer(db_url),
                                                                     "Content-Type": "application/json"})
    assert answer.status_code == 413, answer.text
    assert "of /jobs/cancel (1 MiB" in answer.json()["message"]
