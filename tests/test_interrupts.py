"""Interruptions of the command line say what happened (a user trial: SIGINT and timeouts mid-change).

Ctrl-C in ``ingest --bulk`` stops at once (the embedding batches not started are cancelled, what they were
for left unembedded for ``beliefdb embed``) instead of embedding them all first; Ctrl-C in ``ingest`` (one
file, several, ``--bulk``) and ``embed`` prints one line saying what was stored and what is left; a timeout
or a lost connection after some batches (files) were committed says so instead of "nothing was changed";
Ctrl-C while the command still loads exits 130 without a traceback."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from test_retrieval import FakeEmbeddings

import beliefdb
from beliefdb import errors
from beliefdb.store import interrupted

ROOT = Path(__file__).resolve().parent.parent


def document(i: int) -> str:
    """A document of two beliefs, its own."""
    return (f"# Document {i}\n"
            f"The reference code of item {i} is R{i:06d}.\n"
            f"The shelf of item {i} is S{i % 97}.\n")


def documents(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"doc-{i:04d}.md").write_text(document(i), encoding="utf-8")
    return folder


class SlowEmbeddings(FakeEmbeddings):
    """The fake endpoint, ``seconds`` per request, counting the requests it was sent."""

    def __init__(self, seconds: float) -> None:
        self.asked = 0
        self.changed = threading.Condition()

        def slowly(_texts: list[str]) -> None:
            with self.changed:
                self.asked += 1
                self.changed.notify_all()
            time.sleep(seconds)

        super().__init__(on_request=slowly)

    def wait_for(self, requests: int, timeout: float = 120) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.asked >= requests, timeout), f"{self.asked} request(s) only"

    def env(self) -> dict[str, str]:
        return {"BELIEFDB_EMBEDDER": "openai", "BELIEFDB_EMBED_URL": self.url, "BELIEFDB_EMBED_MODEL": "tiny-16"}


@pytest.fixture
def fake_embeddings() -> Iterator[FakeEmbeddings]:
    fake = FakeEmbeddings()
    yield fake
    fake.close()


@pytest.fixture
def slow() -> Iterator[SlowEmbeddings]:
    fake = SlowEmbeddings(1.0)
    yield fake
    fake.close()


# Ctrl-C as a terminal's command gets it: a run started in the background by a shell that is not interactive
# (a CI script's `cmd &`) ignores SIGINT, and so do its children, which Python then leaves ignored
SIGINT_AS_TYPED = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
AS_MODULE = ["-c", SIGINT_AS_TYPED + "import runpy, sys; sys.argv[0] = 'beliefdb';"
                                    " runpy.run_module('beliefdb', run_name='__main__', alter_sys=True)"]


def beliefdb_process(db_url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    return subprocess.Popen([sys.executable, *AS_MODULE, *args, "--db", db_url],
                            env=clean | {"PYTHONWARNINGS": "ignore"} | (env or {}), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def interrupt(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[float, str, str]:
    """SIGINT ``proc``; how long it took to exit, its stdout and stderr."""
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return time.monotonic() - sent, out, err


def counts(db_url: str) -> tuple[int, int, int]:
    """(source versions, beliefs, beliefs without a vector) in the default workspace."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        row = conn.execute(
            "select (select count(*) from beliefdb.source_version), (select count(*) from beliefdb.belief),"
            " (select count(*) from beliefdb.belief b where not exists (select from beliefdb.belief_embedding e"
            " where e.workspace_id = b.workspace_id and e.belief_id = b.id))").fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def said(err: str) -> str:
    """The one line an interrupted command printed."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("interrupted: ")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.slow
def test_ctrl_c_in_a_bulk_ingest_stops_at_once_and_says_what_was_stored(
        db_url: str, tmp_path: Path, slow: SlowEmbeddings) -> None:
    folder = documents(tmp_path / "big", 200)  # 400 beliefs: 7 embedding batches of a second each
    proc = beliefdb_process(db_url, "ingest", str(folder), "--bulk", "--batch", "10", env=slow.env())
    slow.wait_for(2)
    took, _out, err = interrupt(proc)
    assert proc.returncode == 130, err
    assert took < 4, f"{took:.1f} s to stop after Ctrl-C (it embedded what was queued first)"
    line = said(err)
    found = re.fullmatch(r"interrupted: (\d+) of 200 documents stored(?: \(run the same command again to store the"
                         r" rest\))?; (\d+) beliefs not embedded yet: beliefdb embed", line)
    assert found, line
    versions, beliefs, unembedded = counts(db_url)
    assert int(found[1]) == versions > 0 and beliefs == 2 * versions
    assert int(found[2]) == unembedded > 0  # left for beliefdb embed
    assert ("run the same command again" in line) == (versions < 200)


@pytest.mark.slow
def test_ctrl_c_in_an_ingest_of_several_files_says_how_many_are_stored(
        db_url: str, tmp_path: Path, slow: SlowEmbeddings) -> None:
    folder = documents(tmp_path / "nine", 9)
    proc = beliefdb_process(db_url, "ingest", str(folder), env=slow.env())
    slow.wait_for(5)  # the fifth file is stored, its beliefs being embedded
    _took, _out, err = interrupt(proc)
    assert proc.returncode == 130, err
    line = said(err)
    assert line == ("interrupted: 5 of 9 files stored (run the same command again to store the rest);"
                    " 2 beliefs not embedded yet: beliefdb embed"), line
    assert counts(db_url) == (5, 10, 2)


@pytest.mark.slow
def test_ctrl_c_in_an_ingest_of_one_file_says_whether_it_is_stored(
        db_url: str, tmp_path: Path, slow: SlowEmbeddings) -> None:
    path = documents(tmp_path / "one", 1) / "doc-0000.md"
    proc = beliefdb_process(db_url, "ingest", str(path), env=slow.env())
    slow.wait_for(1)
    _took, _out, err = interrupt(proc)
    assert proc.returncode == 130, err
    line = said(err)
    assert re.fullmatch(r"interrupted: \S*doc-0000\.md stored; 2 beliefs not embedded yet: beliefdb embed", line), line
    assert counts(db_url) == (1, 2, 2)


@pytest.mark.slow
def test_ctrl_c_in_embed_says_how_many_are_embedded(db_url: str, tmp_path: Path, slow: SlowEmbeddings) -> None:
    with beliefdb.connect(db_url) as db:
        db.ingest(documents(tmp_path / "five", 5), embed=False)
    proc = beliefdb_process(db_url, "embed", "--batch", "2", env=slow.env())
    slow.wait_for(3)  # two batches embedded, the third under way
    _took, _out, err = interrupt(proc)
    assert proc.returncode == 130, err
    assert said(err) == "interrupted: 4 of 10 beliefs embedded; 6 not embedded yet: beliefdb embed"
    assert counts(db_url) == (5, 10, 6)


class Busy:
    """Another session holding the default workspace's write lock, from when ``take`` is called."""

    def __init__(self, db_url: str) -> None:
        self.conn = psycopg.connect(db_url)

    def take(self) -> None:
        self.conn.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                          " where w.name = 'default' for update of h")

    def close(self) -> None:
        if not self.conn.closed:
            self.conn.rollback()
            self.conn.close()


@pytest.fixture
def busy(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Busy]:
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    held = Busy(db_url)
    yield held
    held.close()


def test_what_a_timeout_says_of_its_own_transaction_gives_way_to_what_the_run_stored() -> None:
    stored = "batch 12 not written; 2,200 document(s) before it are stored: run again to resume"
    for message, left in [
        ("canceling statement due to statement timeout (BELIEFDB_STATEMENT_TIMEOUT; nothing was changed: try again)",
         "canceling statement due to statement timeout (BELIEFDB_STATEMENT_TIMEOUT)"),
        ("deadlock detected (nothing was changed: try again)", "deadlock detected"),
        ("another writer holds this workspace: gave up waiting after BELIEFDB_LOCK_TIMEOUT; nothing was changed:"
         " try again", "another writer holds this workspace: gave up waiting after BELIEFDB_LOCK_TIMEOUT"),
        ("cannot connect to the database (the server's log says why): nothing was changed",
         "cannot connect to the database (the server's log says why)"),
    ]:
        assert interrupted.after_committed(message, stored) == f"{left} ({stored})"


def test_a_lock_timeout_after_committed_batches_of_a_bulk_ingest_does_not_say_nothing_changed(
        db_url: str, tmp_path: Path, busy: Busy) -> None:
    folder = documents(tmp_path / "six", 6)

    def progress(done: int, _total: int) -> None:
        if done == 2:
            busy.take()

    with beliefdb.connect(db_url) as db, pytest.raises(errors.WorkspaceBusy) as raised:
        db.bulk_ingest(folder, batch=2, embed=False, progress=progress)
    assert raised.value.code == "workspace_busy"
    assert "nothing was changed" not in raised.value.message, raised.value.message
    assert "batch 2 not written; 2 document(s) before it are stored" in raised.value.message, raised.value.message
    busy.close()
    assert counts(db_url)[0] == 2


def test_a_lock_timeout_at_the_fifth_file_of_an_ingest_says_the_four_before_it_are_stored(
        db_url: str, tmp_path: Path, busy: Busy) -> None:
    folder = documents(tmp_path / "nine", 9)
    done: list[Path] = []

    def progress(path: Path) -> None:
        done.append(path)
        if len(done) == 4:
            busy.take()

    with beliefdb.connect(db_url) as db, pytest.raises(errors.WorkspaceBusy) as raised:
        db.ingest(folder, embed=False, progress=progress)
    message = raised.value.message
    assert raised.value.code == "workspace_busy"
    assert "nothing was changed" not in message, message
    assert "doc-0004.md not stored; the 4 files before it are stored" in message, message
    busy.close()
    assert counts(db_url)[0] == 4


def test_a_lock_timeout_after_committed_batches_of_embed_does_not_say_nothing_changed(
        db_url: str, tmp_path: Path, busy: Busy, fake_embeddings: FakeEmbeddings,
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"BELIEFDB_EMBEDDER": "openai", "BELIEFDB_EMBED_URL": fake_embeddings.url,
                        "BELIEFDB_EMBED_MODEL": "tiny-16"}.items():
        monkeypatch.setenv(name, value)
    with beliefdb.connect(db_url) as db:
        db.ingest(documents(tmp_path / "five", 5), embed=False)

        def progress(done: int, _total: int) -> None:
            if done == 4:
                busy.take()

        with pytest.raises(errors.WorkspaceBusy) as raised:
            db.embed(batch=2, progress=progress)
    message = raised.value.message
    assert raised.value.code == "workspace_busy"
    assert "nothing was changed" not in message, message
    assert "4 of 10 beliefs embedded before it" in message, message
    busy.close()
    assert counts(db_url)[2] == 6


def console_script() -> str:
    """The module and function the ``beliefdb`` console script calls (pyproject.toml)."""
    target = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["beliefdb"]
    assert isinstance(target, str)
    return target


@pytest.mark.slow
@pytest.mark.parametrize("how", ["-m", "console script"])
def test_ctrl_c_while_the_command_loads_exits_130_without_a_traceback(db_url: str, how: str) -> None:
    module, _, function = console_script().partition(":")
    start = (AS_MODULE if how == "-m"
             else ["-c", SIGINT_AS_TYPED + f"import sys; sys.argv[0] = 'beliefdb'; from {module} import {function};"
                                           f" sys.exit({function}())"])
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    caught = 0
    for delay in (0.1, 0.2, 0.3, 0.4, 0.5, 0.7):
        proc = subprocess.Popen([sys.executable, *start, "beliefs", "--db", db_url], env=clean, cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        _took, _out, err = interrupt(proc)
        if proc.returncode == 0 or (proc.returncode == -signal.SIGINT and not err):
            continue  # done before the signal came (or it came as Python shut down, its handler gone)
        if "KeyboardInterrupt" in err and ", in main\n" not in err:
            continue  # it came before beliefdb's main ran (Python starting, a loaded machine): no code to catch it
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, (delay, err)
        assert proc.returncode == 130, (delay, proc.returncode, err)
        caught += 1
    assert caught >= 3, "too few of the signals came while the command ran: the test proved little"


def test_importing_beliefdb_loads_none_of_it_until_used() -> None:
    """What lets the entry point catch Ctrl-C while the command loads: ``import beliefdb`` is quick, and
    ``beliefdb.connect`` and the rest load when first used."""
    run = subprocess.run([sys.executable, "-c", "import sys, beliefdb; print('beliefdb.api' in sys.modules);"
                          " print(callable(beliefdb.connect), beliefdb.__version__ == beliefdb.api.SOURCE_VERSION,"
                          " beliefdb.BeliefDBError.__module__)"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60, check=True)
    assert run.stdout.split() == ["False", "True", "True", "beliefdb.errors"], run.stdout + run.stderr


def _dump_sessions(db_url: str) -> list[tuple[int, str | None]]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        return [(int(r[0]), r[1]) for r in conn.execute(
            "select pid, wait_event_type from pg_stat_activity where application_name = 'beliefdb db dump'"
            " and pid <> pg_backend_pid()")]


def _pg_dumps_of(target: Path) -> list[int]:
    """The pids of the pg_dump processes writing ``target`` (its .partial file)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # (not a process, or one that just ended)
            continue
        if argv and argv[0].endswith(b"pg_dump") and any(str(target).encode() in a for a in argv):
            found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_sigterm_stops_a_dump_as_ctrl_c_does_leaving_no_password_file_no_partial_and_no_pg_dump(
        db_url: str, tmp_path: Path) -> None:
    """A supervisor's SIGTERM (a timeout, a cancelled CI job) killed the command on the spot: its pg_dump
    went on, and the passfile holding the database's password stayed in the temporary folder."""
    temp = tmp_path / "temp"
    temp.mkdir()
    target = tmp_path / "backup.dump"
    with_password = psycopg.conninfo.make_conninfo(db_url, password="not-needed-here")
    with psycopg.connect(db_url) as holder:
        holder.execute("lock table beliefdb.belief in access exclusive mode")  # pg_dump waits for it
        proc = subprocess.Popen([sys.executable, *AS_MODULE, "db", "dump", str(target), "--db", with_password],
                                env={k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
                                | {"TMPDIR": str(temp), "PYTHONWARNINGS": "ignore"},
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while not any(wait == "Lock" for _pid, wait in _dump_sessions(db_url)):
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
                time.sleep(0.1)
            assert [p.name for p in temp.iterdir()], "no passfile while pg_dump runs: the test proves little"
            assert _pg_dumps_of(target), "no pg_dump found: the test proves little"
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 143, (proc.returncode, err)
        assert "Traceback" not in err, err
        assert _pg_dumps_of(target) == [], "pg_dump still runs after beliefdb stopped"
    assert list(temp.iterdir()) == [], "the passfile with the password was left behind"
    assert list(tmp_path.glob("backup.dump*")) == []
