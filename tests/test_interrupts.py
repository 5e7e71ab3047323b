"""Interruptions of the command line say what happened (a user trial: SIGINT and timeouts mid-change).

Ctrl-C in ``ingest --bulk`` stops at once (the embedding batches not started are cancelled, what they were
for left unembedded for ``beliefdb embed``) instead of embedding them all first; Ctrl-C in ``ingest`` (one
file, several, ``--bulk``) and ``embed`` prints one line saying what was stored and what is left; a timeout
or a lost connection after some batches (files) were committed says so instead of "nothing was changed";
Ctrl-C while the command still loads exits 130 without a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from test_retrieval import FakeEmbeddings

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


def beliefdb_process(db_url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    return subprocess.Popen([sys.executable, "-m", "beliefdb", *args, "--db", db_url],
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
    versions, beliefs, unembedded = counts(db_url)
    assert versions > 0 and beliefs == 2 * versions
    assert unembedded > 0  # left for beliefdb embed
