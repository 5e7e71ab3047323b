"""A command whose connection the server ends mid-change (pg_terminate_backend) says so in one ``error:`` line:
psycopg_pool's "discarding closed connection: <psycopg.Connection [BAD] at 0x…>" is not printed before it (the
pool replaces the connection; the command's own error says what happened)."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import worker_lines

import beliefdb

POLICY = "# Returns\nReturns are accepted within 30 days.\nThe restocking fee is 10%.\n"


def _cut_off(db_url: str, workspace_id: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``beliefdb *argv`` while the workspace's write lock is held here, and end its session (the one waiting
    for the lock) with pg_terminate_backend."""
    holder = psycopg.connect(db_url)
    holder.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
    holder.execute("set role beliefdb_app")
    holder.execute("select beliefdb.lock_workspace()")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    command = subprocess.Popen([sys.executable, "-m", "beliefdb", *argv, "--db", db_url], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with psycopg.connect(db_url, autocommit=True) as admin:
            deadline = time.monotonic() + 30
            pid: Any = None
            while pid is None and time.monotonic() < deadline:
                pid = admin.execute("select pid from pg_stat_activity where datname = current_database()"
                                    " and wait_event_type = 'Lock'").fetchone()
                time.sleep(0.02)
            assert pid is not None, "the command never waited for the workspace's write lock"
            admin.execute("select pg_terminate_backend(%s, 10000)", (pid[0],))
        holder.rollback()
        if argv[0] == "worker":  # (it goes on: the job stays queued, and the next attempt ingests it)
            command.wait(60)
        out, err = command.communicate(timeout=60)
    finally:
        holder.close()
        if command.poll() is None:
            command.kill()
            command.wait()
    return subprocess.CompletedProcess(command.args, command.returncode, out, err)


@pytest.mark.parametrize("what", ["ingest", "retract"])
def test_a_command_cut_off_by_the_server_says_so_in_one_line(bdb: beliefdb.BeliefDB, db_url: str, tmp_path: Path,
                                                               what: str) -> None:
    document = tmp_path / "returns.md"
    document.write_text(POLICY)
    if what == "ingest":
        argv = ["ingest", str(document)]
    else:
        bdb.ingest(document)
        argv = ["retract", "--belief", str(bdb.beliefs()[0].id), "--reason", "wrong"]
    done = _cut_off(db_url, bdb.database.workspace_id, argv)
    assert done.returncode == 1, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert "discarding" not in done.stderr and "Traceback" not in done.stderr


def test_a_worker_cut_off_by_the_server_says_when_it_waited_and_nothing_more(bdb: beliefdb.BeliefDB,
                                                                              db_url: str) -> None:
    (job,) = bdb.submit(text=POLICY, source="returns.md")
    done = _cut_off(db_url, bdb.database.workspace_id, ["worker", "--until-empty", "--no-embed"])
    assert (done.returncode, done.stderr) == (0, "")
    # (but on stdout, each line with its time, that it waited for the database, and when it was back: an operator
    # read nothing of an outage the worker waited out)
    lost, back, *rest = worker_lines(done.stdout)
    assert lost == ("database lost, waiting for it (the jobs stay queued): terminating connection due to"
                    " administrator command")
    assert re.fullmatch(r"database back after \d+ s of waiting: taking jobs again", back), back
    assert rest == [f"job {job} done: returns.md (attempt 1)",
                    "1 done, 0 attempt(s) failed and queued again, 0 failed for good"]


def test_a_pipeline_cut_off_says_nothing_more_than_its_own_exception(db_url: str,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    """Ctrl-C in ``embed`` (its vectors written in a pipeline) printed psycopg's "error ignored terminating
    <psycopg.Pipeline [INERROR]>: pipeline aborted" before the interruption."""
    import beliefdb.db.pooling  # noqa: F401 (every command imports it: its filters are installed)

    with caplog.at_level(logging.WARNING), psycopg.connect(db_url) as conn, pytest.raises(KeyboardInterrupt), \
            conn.pipeline():
        conn.execute("select 1 / 0")
        raise KeyboardInterrupt
    assert [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")] == []
