"""The queue (issue 20): submitting returns job ids at once; a worker ingests each job in one transaction
with its completion, retries a failed one with a backoff and records why it failed for good; a job held
by a worker is running to everyone else, and queued again as it was when that worker dies."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import psycopg
import pytest
from conftest import Cli, worker_lines
from psycopg import sql

import beliefdb
from beliefdb import errors
from beliefdb.models import WorkReport

POLICY = "# Returns\nReturns are accepted within 30 days.\nThe restocking fee is 10%.\n"


def texts(n: int) -> list[str]:
    return [f"# Item {i}\nThe warranty of item {i} is {i + 1} months.\n" for i in range(n)]


def test_submit_returns_at_once_while_a_writer_holds_the_workspace(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    with psycopg.connect(db_url) as writer:
        writer.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
        writer.execute("select beliefdb.lock_workspace()")  # (held until this transaction ends)
        started = time.monotonic()
        ids = bdb.submit(text=POLICY, source="returns.md")
        assert time.monotonic() - started < 2
        writer.rollback()
    assert len(ids) == 1
    (job,) = bdb.jobs()
    assert (job.id, job.status, job.source, job.attempts) == (ids[0], "queued", "returns.md", 0)
    assert bdb.beliefs() == []  # nothing is ingested before a worker runs it


def test_a_worker_ingests_each_job_once_and_records_what_it_did(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                                postgresql: psycopg.Connection[Any]) -> None:
    paths = [write_doc(f"item-{i}.md", t) for i, t in enumerate(texts(3))]
    ids = bdb.submit(*paths)
    assert ids == sorted(ids) and len(set(ids)) == 3
    report = bdb.work(stop_when_empty=True, embed=False)
    assert (report.done, report.retried, report.failed) == (3, 0, 0)
    assert [o.id for o in report.outcomes] == ids  # in the order submitted
    jobs = {j.id: j for j in bdb.jobs()}
    assert {j.status for j in jobs.values()} == {"done"}
    assert jobs[ids[0]].result is not None and jobs[ids[0]].result["accepted"] == 1
    assert jobs[ids[0]].path is not None and jobs[ids[0]].path.endswith("item-0.md")
    assert jobs[ids[0]].worker and jobs[ids[0]].finished_at is not None
    assert sorted(b.value for b in bdb.beliefs()) == ["1 months", "2 months", "3 months"]
    # nothing is left to do: another run takes nothing
    assert bdb.work(stop_when_empty=True, embed=False).done == 0
    assert postgresql.execute("select count(*) from beliefdb.source_version").fetchone() == (3,)
    assert bdb.audit_verify().ok


def test_a_failing_document_is_tried_again_after_a_backoff_then_failed_with_its_reason(
        bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch, postgresql: psycopg.Connection[Any]) -> None:
    (job,) = bdb.submit(text=POLICY, source="returns.md", max_attempts=2)
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", "10")  # (the worker's limit is lower than the submitter's)
    first = bdb.work(once=True, embed=False, backoff=30)
    assert (first.retried, first.failed) == (1, 0)
    (queued,) = bdb.jobs(status="queued")
    assert queued.attempts == 1 and "over the ingest limit" in (queued.last_error or "")
    assert "\n" not in (queued.last_error or "")
    assert (queued.run_after - queued.started_at).total_seconds() >= 29  # type: ignore[operator]
    assert bdb.work(once=True, embed=False).outcomes == []  # not before its backoff is over
    postgresql.execute("update beliefdb.job set run_after = now()")
    postgresql.commit()
    last = bdb.work(once=True, embed=False)
    assert (last.retried, last.failed) == (0, 1) and last.outcomes[0].attempts == 2
    (failed,) = bdb.jobs(status="failed")
    assert failed.id == job and "over the ingest limit" in (failed.last_error or "")
    # the failed attempts wrote nothing
    assert postgresql.execute("select count(*) from beliefdb.source").fetchone() == (0,)
    assert bdb.work(stop_when_empty=True, embed=False).outcomes == []


def test_a_job_a_worker_holds_is_running_and_queued_again_as_it_was_when_the_worker_dies(
        bdb: beliefdb.BeliefDB, db_url: str) -> None:
    first, second = bdb.submit(text=POLICY, source="returns.md"), bdb.submit(text=texts(1)[0], source="item.md")
    dying = psycopg.connect(db_url)
    dying.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
    dying.execute("set role beliefdb_app")
    taken = dying.execute("select j.id, j.status, j.attempts from beliefdb.job_take('dying') j").fetchone()
    assert taken == (first[0], "running", 1)
    assert [(j.id, j.status) for j in bdb.jobs(status="running")] == [(first[0], "running")]
    assert [j.id for j in bdb.jobs(status="queued")] == [second[0]]
    # another worker skips the held job and takes the next
    report = bdb.work(once=True, embed=False)
    assert [o.id for o in report.outcomes] == second
    # the worker dies: its transaction is rolled back, the job is queued as it was, untried
    pid = dying.info.backend_pid
    with psycopg.connect(db_url, autocommit=True) as admin:
        # (pg_terminate_backend only signals: the backend and its locks go a moment later)
        admin.execute("select pg_terminate_backend(%s, 10000)", (pid,))
    dying.close()
    (again,) = [j for j in bdb.jobs() if j.id == first[0]]
    assert (again.status, again.attempts, again.started_at) == ("queued", 0, None)
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert {j.status for j in bdb.jobs()} == {"done"}


def test_a_job_acts_as_whoever_submitted_it(db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        (job,) = alice.submit(text=POLICY, source="returns.md")
        assert bob.work(stop_when_empty=True, embed=False).done == 1
        (done,) = bob.jobs()
        assert (done.id, done.submitted_by) == (job, "alice")
        assert {b.owner for b in bob.beliefs()} == {"alice"}


def test_bad_submissions_are_refused_and_queue_nothing(bdb: beliefdb.BeliefDB, write_doc: Any, tmp_path: Any) -> None:
    good = write_doc("good.md", POLICY)
    with pytest.raises(errors.NotFound):
        bdb.submit(good, tmp_path / "missing.md")
    with pytest.raises(errors.InvalidInput, match="empty"):
        bdb.submit(text="  ", source="blank.md")
    with pytest.raises(errors.InvalidInput, match="authority"):
        bdb.submit(good, authority="pope")
    with pytest.raises(errors.InvalidInput, match="max attempts"):
        bdb.submit(good, max_attempts=0)
    with pytest.raises(errors.InvalidInput, match="unknown extractor"):
        bdb.submit(good, extractor="magic")
    with pytest.raises(errors.InvalidInput, match="unknown job status"):
        bdb.jobs(status="lost")
    assert bdb.jobs() == []


@pytest.mark.slow
def test_beliefs_a_killed_worker_left_without_vectors_are_embedded_by_the_next(bdb: beliefdb.BeliefDB,
                                                                               postgresql: psycopg.Connection[Any]
                                                                               ) -> None:
    bdb.submit(text=POLICY, source="returns.md")
    bdb.work(stop_when_empty=True, embed=False)  # (as a worker killed right after the job committed)
    missing = "select count(*) from beliefdb.belief b where not exists (select from beliefdb.belief_embedding e" \
              " where e.belief_id = b.id)"
    assert postgresql.execute(missing).fetchone() == (2,)
    report = bdb.work(stop_when_empty=True)
    assert report.embedded == 2
    assert postgresql.execute(missing).fetchone() == (0,)


def test_the_command_line_queues_lists_and_works(cli: Cli, write_doc: Any) -> None:
    paths = [write_doc(f"item-{i}.md", t) for i, t in enumerate(texts(2))]
    queued = cli.json("ingest", *paths, "--queue")
    assert len(queued["jobs"]) == 2
    text = cli("ingest", write_doc("returns.md", POLICY), "--queue").stdout
    assert text.startswith("queued job ") and "returns.md" in text
    listed = cli.json("jobs", "--status", "queued")
    assert [j["status"] for j in listed] == ["queued"] * 3
    report = cli.json("worker", "--until-empty", "--no-embed")
    assert (report["done"], report["failed"]) == (3, 0)
    shown = cli("jobs").stdout
    assert "done" in shown and "returns.md" in shown and "accepted" in shown
    assert cli.json("jobs", "--status", "queued") == []
    assert "0 done" in cli("worker", "--once", "--no-embed").stdout



def test_a_batch_worker_whose_jobs_failed_for_good_exits_1_and_says_so(cli: Cli, write_doc: Any,
                                                                      bdb: beliefdb.BeliefDB) -> None:
    """worker --until-empty (and --once) is how a script drains the queue: a job failed for good is a
    failure of the run (exit 1, the reason on stderr), and the summary does not call the retries made
    along the way jobs "to try again" when none is left queued. It used to exit 0 with "0 done, 4 to try
    again, 1 failed"."""
    cli("ingest", write_doc("returns.md", POLICY), "--queue")
    small = {"BELIEFDB_INGEST_MAX_BYTES": "10"}  # (the worker's limit is lower than the submitter's)
    result = cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=small, expect=1)
    assert worker_lines(result.stdout)[-1] == "0 done, 4 attempt(s) failed and queued again, 1 failed for good"
    assert result.stderr.strip().splitlines() == [
        "error: 1 job(s) failed for good: see beliefdb jobs --status failed"]
    assert cli.json("jobs", "--status", "queued") == []
    report = cli.json("worker", "--until-empty", "--no-embed", env=small)  # nothing left: a clean run
    assert (report["done"], report["failed"]) == (0, 0)
    # failed for good, a job is tried no more: it shows no backoff pending (it kept an hour's, a retry's that
    # would never come); its run_after is when it failed
    (job,) = bdb.submit(text=POLICY, source="other.md", max_attempts=1)
    cli("worker", "--until-empty", "--no-embed", "--backoff", "3600", env=small, expect=1)
    (failed,) = [j for j in bdb.jobs(status="failed") if j.id == job]
    assert failed.finished_at is not None and failed.run_after <= failed.finished_at

    cli("ingest", write_doc("other.md", POLICY.replace("30 days", "60 days")), "--queue")
    for _attempt in range(4):
        once = cli.json("worker", "--once", "--no-embed", "--backoff", "0", env=small)
        assert (once["retried"], once["failed"]) == (1, 0)
    once = cli.json("worker", "--once", "--no-embed", "--backoff", "0", env=small, expect=1)
    assert (once["retried"], once["failed"]) == (0, 1)


def test_a_jobs_limit_out_of_range_is_bad_input(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """jobs --limit 99999999999 failed with "function beliefdb.jobs(unknown, bigint) does not exist"
    (error code "error"): a limit is between 1 and 100,000, as a page of beliefs or decisions (the command
    line's --limit refuses it as a usage error)."""
    assert cli.error("jobs", "--limit", "99999999999", code="invalid_input", expect=2)["message"] == \
        "--limit: Input should be less than or equal to 100000"
    with pytest.raises(beliefdb.errors.InvalidInput, match="limit must be between 1 and 100,000"):
        bdb.jobs(limit=0)
    assert bdb.jobs(limit=100_000) == []


def test_the_jobs_list_says_what_an_ingest_that_stored_nothing_did(cli: Cli, write_doc: Any) -> None:
    """A done job whose ingest stored no version says why, as ingest does (it said "0 accepted, version 1"
    for the same text again and "0 accepted, version None" for a proposal to the source's owner)."""
    doc = write_doc("returns.md", POLICY)
    cli("ingest", doc, "--queue")
    cli("worker", "--until-empty", "--no-embed")
    # (the text in force, queued again: with another extractor, whose claims it would still settle)
    cli("ingest", doc, "--queue", "--extractor", "none")
    cli("ingest", write_doc("returns.md", POLICY.replace("30 days", "60 days")), "--queue", "--as", "bob")
    cli("worker", "--until-empty", "--no-embed")
    proposed, again, first = cli("jobs").stdout.splitlines()[1:-1]
    assert first.endswith("returns.md — 2 accepted, version 1")
    assert again.endswith("returns.md — unchanged: the same text as version 1, in force")
    assert "returns.md — returns.md belongs to " in proposed and "proposed to its owner" in proposed
    assert "None" not in proposed


def test_the_jobs_list_says_what_else_an_ingest_did(cli: Cli, write_doc: Any) -> None:
    """A done job lists what its ingest corroborated, superseded and rejected, not only what it accepted: a
    document that only confirmed what another said showed "0 accepted, version 1"."""
    cli("ingest", write_doc("returns.md", POLICY))
    cli("ingest", write_doc("copy.md", POLICY), "--queue")
    cli("worker", "--until-empty", "--no-embed")
    (line, totals) = cli("jobs").stdout.splitlines()[1:]
    assert line.endswith("copy.md — 0 accepted, 2 corroborated, version 1"), line
    assert totals == "totals: 0 queued, 0 running, 1 done, 0 failed"


def test_the_command_line_refuses_what_the_queue_cannot_do(cli: Cli, write_doc: Any, tmp_path: Any) -> None:
    doc = write_doc("returns.md", POLICY)
    assert "--queue" in cli.one_line_error("ingest", doc, "--queue", "--preview")
    chat = write_doc("chat.jsonl", '{"speaker": "Ana", "text": "I live in Porto."}\n')
    bad = write_doc("bad.jsonl", '{"speaker": "Ana", "text": "I live in Porto."}\n{"speaker": "Ana"}\n')
    assert "bad.jsonl" in cli.one_line_error("ingest", chat, bad, "--queue")  # all or none: nothing queued
    assert "--once or --until-empty" in cli.one_line_error("worker", "--once", "--until-empty")
    cli.error("ingest", doc, tmp_path / "missing.md", "--queue", code="not_found")
    assert cli.json("jobs") == []
    assert "--status: 'lost' is not one of" in cli.fail("jobs", "--status", "lost").output


def test_the_versions_of_one_source_are_ingested_in_the_order_submitted(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    first = bdb.submit(text=POLICY, source="returns.md")
    second = bdb.submit(text=POLICY.replace("30 days", "60 days"), source="returns.md")
    other = bdb.submit(text=texts(1)[0], source="item.md")
    holder = psycopg.connect(db_url)
    holder.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
    holder.execute("set role beliefdb_app")
    assert holder.execute("select j.id from beliefdb.job_take('holder') j").fetchone() == (first[0],)
    # the next version waits for the first: another worker takes the other source's job
    assert [o.id for o in bdb.work(once=True, embed=False).outcomes] == other
    assert bdb.work(once=True, embed=False).outcomes == []
    holder.rollback()
    holder.close()
    assert [o.id for o in bdb.work(stop_when_empty=True, embed=False).outcomes] == first + second
    current = {b.value for b in bdb.beliefs()}
    assert "60 days" in current and "30 days" not in current  # the later version is the one in force


def test_the_http_api_queues_a_text_and_lists_the_workspaces_jobs(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    from fastapi.testclient import TestClient

    from beliefdb.interfaces.http import create_app

    alice = beliefdb.api.create_token("default", "alice", url=db_url).token
    rita = beliefdb.api.create_token("default", "rita", read_only=True, url=db_url).token
    writer, reader = {"Authorization": f"Bearer {alice}"}, {"Authorization": f"Bearer {rita}"}
    with TestClient(create_app(db_url, mcp=False)) as client:
        queued = client.post("/jobs", json={"source": "returns.md", "text": POLICY, "authority": "official"},
                             headers=writer)
        assert queued.status_code == 202, queued.text
        (job,) = queued.json()["jobs"]
        refused = client.post("/jobs", json={"source": "x.md", "text": POLICY}, headers=reader)
        assert refused.status_code == 403 and refused.json()["error"] == "read_only_token"
        assert client.post("/jobs", json={"source": "x.md", "text": POLICY, "path": "/etc/passwd"},
                           headers=writer).status_code == 400  # (no paths: they would name the server's files)
        listed = client.get("/jobs", params={"status": "queued"}, headers=reader)
        assert listed.status_code == 200 and [(j["id"], j["submitted_by"]) for j in listed.json()] == [(job, "alice")]
        assert bdb.work(stop_when_empty=True, embed=False).done == 1
        (done,) = client.get("/jobs", headers=reader).json()
        assert done["status"] == "done" and done["result"]["accepted"] == 2
        assert client.get("/jobs", params={"status": "lost"}, headers=reader).status_code == 400
    assert {b.owner for b in bdb.beliefs()} == {"alice"}


def test_a_document_whose_worker_dies_at_every_attempt_is_failed_with_the_reason(bdb: beliefdb.BeliefDB,
                                                                                 db_url: str) -> None:
    (job,) = bdb.submit(text=POLICY, source="returns.md", max_attempts=2)
    for attempt in (1, 2):
        dying = psycopg.connect(db_url)
        dying.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
        dying.execute("set role beliefdb_app")
        taken = dying.execute("select j.id, j.attempts from beliefdb.job_take('dying') j").fetchone()
        assert taken == (job, attempt)
        # the start, recorded on a connection of its own as run_one does, outlives the worker
        assert bdb.database.scalar("select beliefdb.job_started(%s, 'dying')", (job,)) == attempt
        with psycopg.connect(db_url, autocommit=True) as admin:
            # (with a timeout it waits until the backend is gone and its transaction rolled back: without one it
            # only signals, and the job could still be seen running)
            admin.execute("select pg_terminate_backend(%s, 10000)", (dying.info.backend_pid,))
        dying.close()
        (seen,) = bdb.jobs()
        assert (seen.status, seen.attempts) == ("queued", attempt)  # (rolled back, but its start counts)
    # both attempts were used up by workers that died: the next take fails it instead of running it (and
    # that worker counts it failed for good)
    report = bdb.work(stop_when_empty=True, embed=False)
    assert [(o.id, o.status, o.attempts) for o in report.outcomes] == [(job, "failed", 2)] and report.failed == 1
    (failed,) = bdb.jobs()
    assert (failed.status, failed.attempts) == ("failed", 2)
    assert failed.last_error == "its worker died during 2 of its 2 attempts (killed, or brought down by this document)"
    assert bdb.beliefs() == []


@pytest.mark.slow
def test_an_agents_login_takes_only_its_own_jobs(cli: Cli, db_url: str, bdb: beliefdb.BeliefDB) -> None:
    names = [f"queue_{who}_{uuid.uuid4().hex[:8]}" for who in ("a", "b")]
    try:
        urls = [cli.json("agent", "create", name)["url"] for name in names]
        with beliefdb.connect(urls[0]) as a, beliefdb.connect(urls[1]) as b:
            (job,) = a.submit(text=POLICY, source="returns.md")
            assert b.work(stop_when_empty=True, embed=False).outcomes == []
            with pytest.raises(errors.NotFound, match="unknown job"):
                b.database.scalar("select beliefdb.job_started(%s, 'b')", (job,))
            assert [o.id for o in a.work(stop_when_empty=True, embed=False).outcomes] == [job]
        assert {b.owner for b in bdb.beliefs()} == {names[0]}
    finally:
        with psycopg.connect(db_url, autocommit=True) as su:
            for name in names:
                su.execute(sql.SQL("drop owned by {} cascade").format(sql.Identifier(name)))
                su.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))


def test_a_worker_whose_workspace_is_deleted_stops_and_says_so(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    bdb.create_workspace("ephemeral")
    with beliefdb.connect(db_url, "ephemeral") as there:
        there.submit(text=POLICY, source="returns.md")
        outcome: list[BaseException | WorkReport] = []

        def run() -> None:
            try:
                outcome.append(there.work(embed=False))
            except BaseException as exc:  # (what the worker raised, for the assertion below)
                outcome.append(exc)

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        deadline = time.monotonic() + 20
        while [j.status for j in there.jobs()] != ["done"] and time.monotonic() < deadline:
            time.sleep(0.05)
        bdb.delete_workspace("ephemeral", force=True)
        worker.join(20)
    assert not worker.is_alive(), "the worker went on polling a deleted workspace"
    (raised,) = outcome
    assert isinstance(raised, errors.UnknownWorkspace) and "'ephemeral' was deleted" in raised.message


def test_queueing_for_the_llm_extractor_without_an_endpoint_is_refused_at_submit(
        cli: Cli, bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    """ingest --queue --extractor llm with no OpenAI-compatible endpoint configured queued jobs that each
    failed 5 times later in the workers: it is refused now, on one line, and nothing is queued."""
    doc = write_doc("returns.md", POLICY)
    line = cli.one_line_error("ingest", doc, "--queue", "--extractor", "llm", env={"BELIEFDB_LLM_URL": None})
    assert line == ("error: the llm extractor needs an OpenAI-compatible endpoint: set BELIEFDB_LLM_URL (e.g."
                    " http://127.0.0.1:8080/v1; the rule extractor is the default) here and for the workers;"
                    " nothing was queued")
    assert cli.error("ingest", doc, "--queue", "--extractor", "llm", env={"BELIEFDB_LLM_URL": "ftp://x"},
                     code="invalid_input")["message"].startswith("BELIEFDB_LLM_URL must be an http(s) URL")
    with pytest.raises(errors.InvalidInput, match="needs an OpenAI-compatible endpoint"):
        bdb.submit(text=POLICY, source="returns.md", extractor="llm")
    assert bdb.jobs() == []
    # configured, it is queued (the workers call the endpoint)
    queued = cli.json("ingest", doc, "--queue", "--extractor", "llm", env={"BELIEFDB_LLM_URL": "http://127.0.0.1:9/v1"})
    assert len(queued["jobs"]) == 1


def test_the_workers_summary_says_it_embedded_what_an_earlier_run_left() -> None:
    """It read "3 belief(s) left without vectors embedded" (a user trial read it as beliefs left behind)."""
    from beliefdb.cli.queue import _summary
    from beliefdb.models import WorkReport

    assert _summary(WorkReport(done=2, embedded=3)) == (
        "2 done, 0 attempt(s) failed and queued again, 0 failed for good;"
        " embedded 3 belief(s) an earlier run had left without vectors")
