"""Ingest in linear time, with a size limit (issue 22, defect 6).

A text over BELIEFDB_INGEST_MAX_BYTES (``ingest --max-bytes``) is refused with one line naming its
size and the limit, before anything is written; one at the limit is stored. That ingest time grows
linearly is measured by bench/ingest_size.py (docs/benchmarks.md); here it is pinned by counting,
never timing: the work per fragment and per audit event does not grow with the document, and other
writers do not wait for the new beliefs' embedding.
"""

from __future__ import annotations

import codecs
import json
import random
import threading
import unicodedata
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors
from beliefdb.store import ingest, vectors
from beliefdb.text import gate as gate_module
from beliefdb.text.extractor import Candidate

pytestmark = pytest.mark.robustness

POLICY = "".join(f"The return window of product {i} is {i} days.\n" for i in range(1, 11))
TABLES = ("audit_event", "source", "source_version", "fragment", "node", "belief", "evidence")


def counts(conn: psycopg.Connection[Any]) -> dict[str, int]:
    found = {}
    for table in TABLES:
        row = conn.execute(f"select count(*) from beliefdb.{table}").fetchone()  # literal table names
        assert row is not None
        found[table] = row[0]
    conn.commit()
    return found


# ---------------------------------------------------------------------------------------------
# the limit
# ---------------------------------------------------------------------------------------------


def test_a_file_over_the_limit_is_refused_before_anything_is_written(
        cli: Cli, write_doc: Any, postgresql: psycopg.Connection[Any]) -> None:
    doc = write_doc("policy.md", POLICY)
    size = len(POLICY.encode())
    before = counts(postgresql)
    line = cli.one_line_error("ingest", doc, "--max-bytes", str(size - 1))
    assert f"{size:,} bytes" in line and f"the ingest limit of {size - 1:,} bytes;" in line
    assert "--max-bytes" in line and "BELIEFDB_INGEST_MAX_BYTES" in line and str(doc) in line
    error = cli.error("ingest", doc, code="invalid_input", env={"BELIEFDB_INGEST_MAX_BYTES": str(size - 1)})
    assert f"{size:,} bytes is over the ingest limit of {size - 1:,} bytes" in error["message"]
    assert counts(postgresql) == before  # not even an audit event


def test_a_size_under_a_kib_is_said_in_bytes_only(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("small.md", "The return window is 7 days, as agreed by all.\n" + "x" * 12 + "\n")
    line = cli.one_line_error("ingest", doc, "--max-bytes", "10")
    assert f"{doc}: 60 bytes is over the ingest limit of 10 bytes;" in line and "KiB" not in line, line
    # (a bulk run stores the others: the file refused is an error line among its progress)
    said = cli("ingest", doc, "--bulk", "--max-bytes", "1", expect=1).stderr
    (line,) = [x for x in said.splitlines() if x.startswith("error:")]
    assert f"{doc}: 60 bytes is over the ingest limit of 1 byte;" in line, line
    big = write_doc("big.md", "The return window is 7 days.\n" + "x" * 3042 + "\n")
    line = cli.one_line_error("ingest", big, "--max-bytes", "2048")
    assert f"{big}: 3.0 KiB (3,072 bytes) is over the ingest limit of 2.0 KiB (2,048 bytes);" in line, line


def test_a_file_at_the_limit_is_stored(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("policy.md", POLICY)
    report = cli.json("ingest", doc, "--max-bytes", str(len(POLICY.encode())))
    assert report["new_version"] and len(report["accepted"]) == 10
    again = cli.json("ingest", doc, env={"BELIEFDB_INGEST_MAX_BYTES": str(len(POLICY.encode()))})
    assert not again["new_version"] and again["note"].startswith("unchanged")


def test_a_byte_order_mark_is_not_counted(cli: Cli, tmp_path: Path) -> None:
    doc = tmp_path / "policy.md"
    doc.write_bytes(codecs.BOM_UTF8 + POLICY.encode())
    report = cli.json("ingest", doc, "--max-bytes", str(len(POLICY.encode())))
    assert len(report["accepted"]) == 10
    cli.error("ingest", doc, "--source", "other.md", "--max-bytes", str(len(POLICY.encode()) - 1),
              code="invalid_input")


def test_among_several_files_the_big_one_is_refused_and_the_others_stored(
        cli: Cli, write_doc: Any) -> None:
    small = write_doc("small.md", "The return window is 7 days.\n")
    big = write_doc("big.md", POLICY)
    result = cli("ingest", small, big, "--max-bytes", "100", expect=1)
    size = len(POLICY.encode())
    assert result.stderr.strip().splitlines() == [
        f"error: {big}: {size:,} bytes is over the ingest limit of 100 bytes;"
        " raise it with --max-bytes or BELIEFDB_INGEST_MAX_BYTES"]
    assert [b["value"] for b in cli.json("beliefs")] == ["7 days"]


def test_the_limit_counts_bytes_of_utf8(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Die Rückgabefrist für Schuhe ist 14 Tage. 退货期限是十五天。\n"
    size = len(text.encode())
    assert size > len(text)
    before = counts(postgresql)
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", str(len(text)))  # its characters fit, its bytes do not
    with pytest.raises(errors.InvalidInput, match=rf"^schuhe\.md: {size:,} bytes is over the ingest limit"):
        bdb.ingest_text(text, source="schuhe.md")
    with pytest.raises(errors.InvalidInput, match=r"over the ingest limit .* BELIEFDB_INGEST_MAX_BYTES$"):
        bdb.remember("Returns of shoes: 14 days.", "shoe_return", "window", "14 Tage", "14 Tage",
                     source="chat", text=text)
    assert counts(postgresql) == before
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", str(size))
    assert bdb.ingest_text(text, source="schuhe.md").new_version


def test_a_limit_under_one_byte_is_one_line(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("policy.md", POLICY)
    assert cli("ingest", doc, "--max-bytes", "0", expect=2).stderr == (
        "error: --max-bytes: Input should be greater than or equal to 1 (see beliefdb ingest --help)\n")


def test_a_limit_that_does_not_parse_is_one_line_naming_the_variable(
        bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", "64MB")
    with pytest.raises(errors.InvalidInput, match=r"^BELIEFDB_INGEST_MAX_BYTES must be a whole number, not '64MB'$"):
        bdb.ingest_text(POLICY, source="policy.md")
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", "0")
    with pytest.raises(errors.InvalidInput, match=r"^BELIEFDB_INGEST_MAX_BYTES must be more than 0, not '0'$"):
        bdb.ingest_text(POLICY, source="policy.md")


def test_the_default_limit_is_32_mib(monkeypatch: pytest.MonkeyPatch) -> None:
    # (what bench/ingest_size.py measured: 50 MB in about 10 minutes, linearly, past the default
    # statement timeout; 32 MiB in about 7: docs/benchmarks.md)
    monkeypatch.delenv("BELIEFDB_INGEST_MAX_BYTES", raising=False)
    assert ingest.max_ingest_bytes() == 32 * 1024 * 1024
    ingest.check_size("big.md", "x" * (32 * 1024 * 1024))
    with pytest.raises(errors.InvalidInput, match=r"^big\.md: 32\.0 MiB \(33,554,433 bytes\) is over the ingest"
                                                  r" limit of 32\.0 MiB \(33,554,432 bytes\); raise it with"):
        ingest.check_size("big.md", "é" + "x" * (32 * 1024 * 1024 - 1))


# ---------------------------------------------------------------------------------------------
# linear work, counted
# ---------------------------------------------------------------------------------------------


def _ingest_counted(db_url: str, workspace: str, lines: int) -> tuple[dict[str, int], float]:
    """Calls of each beliefdb function while ingesting a document of ``lines`` beliefs (one fragment
    each) into a new workspace, and the number of beliefs the planner then believes there are, both
    seen in the ingest's own transaction."""
    text = "".join(f"The return window of product {i} is {i % 90 + 1} days.\n" for i in range(lines))
    with beliefdb.connect(db_url) as admin:
        admin.create_workspace(workspace)
    with beliefdb.connect(db_url, workspace=workspace, max_size=1) as db, db.database.transaction() as c:
        report = ingest.ingest_text(db.database, text, ingest.SourceOptions(name="doc.md"), embed=False, conn=c)
        assert len(report.accepted) == lines and report.fragments == lines
        calls = dict(c.execute("select funcname, calls from pg_stat_xact_user_functions"
                               " where schemaname = 'beliefdb'").fetchall())
        row = c.execute("select reltuples from pg_catalog.pg_class where oid = 'beliefdb.belief'::regclass").fetchone()
        assert row is not None
        return calls, float(row[0])


@pytest.mark.slow
def test_work_per_fragment_does_not_grow_with_the_document(db_url: str,
                                                           postgresql: psycopg.Connection[Any]) -> None:
    # (function calls are counted only with track_functions; this test's database is its own)
    postgresql.execute(f"alter database {postgresql.info.dbname} set track_functions = 'all'")
    postgresql.commit()
    small_calls, small_planned = _ingest_counted(db_url, "small", 30)
    big_calls, big_planned = _ingest_counted(db_url, "big", 300)
    # the text of every fragment is read and checked once per statement, whatever the number of
    # fragments (one substr per fragment counted characters from the start: quadratic)
    # (_carry_forward: not called for a first version, which has nothing earlier to repeat)
    for once in ("fragment_matches_text", "_slices", "_carry_forward", "_add_claims"):
        assert small_calls.get(once, 0) == big_calls.get(once, 0) <= 3, once
    assert small_calls["fragment_matches_text"] >= 1 and small_calls["_add_claims"] >= 1
    # per fragment and belief, a constant number of calls
    for each in ("create_node", "_add_evidence", "_audit_append", "antecedent_consequent", "_settle"):
        # (a function the set-based statements no longer call is counted 0 times)
        assert big_calls.get(each, 0) <= 10 * small_calls.get(each, 0) + 10, (each, small_calls.get(each),
                                                                             big_calls.get(each))
    # a new database has no planner statistics: the claims of the big document were not all run
    # with plans made for a handful of rows (each lookup by id read every row: quadratic), the
    # statistics were gathered again in the ingest's transaction (once after the new beliefs stored
    # set-based, or at 64 and 256 claims settled one by one)
    assert "_restat_ingest_tables" not in small_calls and 1 <= big_calls["_restat_ingest_tables"] <= 2
    assert small_planned < 64 <= 200 <= big_planned


def test_an_audit_append_finds_the_head_by_key_once_per_transaction(postgresql: psycopg.Connection[Any]) -> None:
    row = postgresql.execute("select id from beliefdb.workspace where name = 'default'").fetchone()
    assert row is not None
    ws = row[0]
    postgresql.commit()

    def append(n: int) -> None:
        postgresql.execute("select beliefdb._audit_append(%s, 'test.append', jsonb_build_object('i', g))"
                           " from generate_series(1, %s) g", (ws, n))

    def head_work() -> tuple[int, int]:
        """(lookups of the head row by key, updates of it) in this transaction."""
        found = postgresql.execute("select idx_scan + seq_scan, n_tup_upd from pg_stat_xact_user_tables"
                                   " where relid = 'beliefdb.audit_head'::regclass").fetchone()
        assert found is not None
        return int(found[0]), int(found[1])

    def head_and_last() -> tuple[Any, ...]:
        found = postgresql.execute(
            "select h.seq, h.hash, e.seq, e.hash from beliefdb.audit_head h,"
            " lateral (select e.seq, e.hash from beliefdb.audit_event e where e.workspace_id = h.workspace_id"
            "          order by e.seq desc limit 1) e where h.workspace_id = %s", (ws,)).fetchone()
        assert found is not None
        return tuple(found)

    # (the counts of a transaction may still hold the last one's until they are reported: differences)
    before = head_work()
    append(300)
    # each append updated the head row and found it by key: the k-th walked k versions of it
    after = head_work()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 300)
    postgresql.commit()
    # past 1024 appends the head row waits for the commit: every update leaves a version, and an
    # index entry per page of them, each new one checked against all the others
    before = head_work()
    append(3000)
    after = head_work()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1024)
    seq, _, last, _ = head_and_last()
    assert last == seq + 3000 - 1024
    postgresql.commit()
    seq, head, last, hash_ = head_and_last()
    assert (seq, head) == (last, hash_)
    # the head can be brought up to date before the commit
    append(1500)
    postgresql.execute("set constraints beliefdb.audit_head_at_commit immediate")
    seq, head, last, hash_ = head_and_last()
    assert (seq, head) == (last, hash_)
    postgresql.commit()
    # a subtransaction rolled back takes its appends and what they left in the settings with it
    append(3)
    with postgresql.transaction():
        append(1030)
        postgresql.execute("savepoint undo")
        append(400)
        postgresql.execute("rollback to savepoint undo")
        append(1)
    postgresql.commit()
    # a setting that names no version of this workspace's head row is not used
    name = "beliefdb.audit_" + str(ws).replace("-", "")
    postgresql.execute("select set_config(%s, %s, false)", (name, f"5000/1/{'0' * 64}/(0,1)"))
    append(2)
    postgresql.execute("select set_config(%s, 'rubbish', false)", (name,))
    append(2)
    postgresql.commit()
    verified = postgresql.execute("select ok, events, first_broken from beliefdb.audit_verify(%s)",
                                  (ws,)).fetchone()
    assert verified is not None and (verified[0], verified[2]) == (True, None)
    seq, head, last, hash_ = head_and_last()
    assert (seq, head, last) == (last, hash_, verified[1])
    appended = postgresql.execute("select count(*) from beliefdb.audit_event where workspace_id = %s"
                                  " and action = 'test.append'", (ws,)).fetchone()
    assert appended == (300 + 3000 + 1500 + 3 + 1030 + 1 + 2 + 2,)
    postgresql.commit()


def test_the_commit_moves_a_workspace_head_once_not_once_per_event(postgresql: psycopg.Connection[Any]) -> None:
    """Past 1,024 appends of a transaction to a workspace the head waits for the commit, where
    audit_head_at_commit moves it to the chain's last event: once per workspace the transaction
    left behind, not once per event past the 1,024th (a 30,000-event transaction's commit took
    0.6 s instead of 0.2 s, an index probe per event; bench/audit_commit.py)."""
    spaces = []
    for name in ("commit_a", "commit_b"):
        row = postgresql.execute("insert into beliefdb.workspace (name) values (%s) returning id", (name,)).fetchone()
        assert row is not None
        spaces.append(row[0])
    postgresql.commit()
    postgresql.execute("set local track_functions = 'pl'")
    for ws, n in zip(spaces, (3000, 1500), strict=True):
        postgresql.execute("select beliefdb._audit_append(%s, 'test.append', jsonb_build_object('i', g))"
                           " from generate_series(1, %s) g", (ws, n))
    # (the commit's work, done now to be counted in this transaction)
    postgresql.execute("set constraints beliefdb.audit_head_at_commit immediate")
    calls = postgresql.execute("select calls from pg_stat_xact_user_functions"
                               " where schemaname = 'beliefdb' and funcname = 'audit_head_at_commit'").fetchone()
    assert calls == (2,)
    postgresql.commit()
    for ws in spaces:
        verified = postgresql.execute("select v.ok, v.events, h.seq from beliefdb.audit_verify(%s) v,"
                                      " beliefdb.audit_head h where h.workspace_id = %s", (ws, ws)).fetchone()
        assert verified is not None and verified[0] and verified[1] == verified[2]


def test_slices_are_what_substr_gives(postgresql: psycopg.Connection[Any]) -> None:
    rng = random.Random(7)
    alphabet = "abc de\nfé€😀退\r\t."
    text = "".join(rng.choice(alphabet) for _ in range(2000))
    spans = [(s, e) for s in (0, 1, 253, 254, 255, 256, 509, 510, 511, 1999, 2000, 2500)
             for e in (s, s + 1, s + 2, s + 255, s + 256, s + 600, 2000, 2001) if e >= s]
    spans += [(a, a + rng.randint(0, 700)) for a in (rng.randint(0, 2100) for _ in range(300))]
    spans += [(-3, 4), (-10, -5), (None, 5), (5, None)]
    starts, ends = [s for s, _ in spans], [e for _, e in spans]
    row = postgresql.execute(
        "select beliefdb._slices(%(t)s, %(s)s::integer[], %(e)s::integer[]),"
        "       array(select substr(%(t)s, x.s + 1, x.e - x.s) from unnest(%(s)s::integer[], %(e)s::integer[])"
        "             with ordinality as x (s, e, n) order by x.n)",
        {"t": text, "s": starts, "e": ends}).fetchone()
    assert row is not None
    sliced, expected = row
    assert sliced == expected
    assert sliced[:3] == [text[0:0], text[0:1], text[0:2]] and len(sliced) == len(spans)
    # what substr refuses, so does it
    with pytest.raises(psycopg.errors.SubstringError):
        postgresql.execute("select beliefdb._slices('abc', array[2], array[1])")
    postgresql.rollback()


def test_a_statement_of_fragments_is_refused_at_its_first_wrong_one(postgresql: psycopg.Connection[Any],
                                                                    bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(POLICY, source="policy.md", extractor="none")
    before = counts(postgresql)
    line = POLICY.index("product 7")
    with pytest.raises(psycopg.Error, match=r"fragment text is not the source text at offsets") as e:
        # the first wrong one by offsets, among right ones, in one statement
        postgresql.execute(
            "insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)"
            " select v.workspace_id, v.id, x.s, x.e, x.t from beliefdb.source_version v,"
            " (values (%s, %s, '7'), (0, 3, 'The'), (%s, %s, 'product 8'), (%s, %s, 'days')) x (s, e, t)"
            " where v.content = %s",
            (line + 8, line + 9, line, line + 9, line + 15, line + 19, POLICY))
    assert e.value.sqlstate == "BD001" and e.value.diag.message_primary is not None
    assert e.value.diag.message_primary.endswith(f"[{line}, {line + 9})")
    assert e.value.diag.message_detail == "expected 'product 7', got 'product 8'"
    postgresql.rollback()
    assert counts(postgresql) == before


def test_gate_folds_and_normalises_the_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Die Rückgabefrist ist 14 Tage.\n" * 50
    whole = []
    normalize = unicodedata.normalize

    def counted(form: Any, s: str) -> str:
        if s == text:
            whole.append(form)
        return normalize(form, s)

    monkeypatch.setattr(gate_module.unicodedata, "normalize", counted)
    wrong = [Candidate(statement=f"s{i}", subject="x", attribute="y", value=str(i), quote=f"Rückgabe {i}",
                       start=0, end=10) for i in range(40)]
    located, rejected = gate_module.gate(text, wrong)
    assert located == [] and [r for _, r in rejected] == ["quote is not in the source text"] * 40
    assert sorted(whole) == ["NFC", "NFKC"]


# ---------------------------------------------------------------------------------------------
# no lock held while embedding
# ---------------------------------------------------------------------------------------------


class HeldEmbeddings:
    """An OpenAI-compatible /v1/embeddings endpoint whose first answer waits until ``release``."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not outer.asked.is_set():
                    outer.asked.set()
                    outer.release.wait(60)
                data = [{"index": i, "embedding": [1.0] + [0.0] * 7} for i, _ in enumerate(body["input"])]
                payload = json.dumps({"data": data, "model": body["model"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def held_embeddings(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldEmbeddings]:
    held = HeldEmbeddings()
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
    monkeypatch.setenv("BELIEFDB_EMBED_URL", held.url)
    monkeypatch.setenv("BELIEFDB_EMBED_MODEL", "tiny-8")
    yield held
    held.release.set()
    held.server.shutdown()
    held.server.server_close()
    held.thread.join()


def test_other_writers_do_not_wait_for_an_ingests_embedding(db_url: str, held_embeddings: HeldEmbeddings) -> None:
    done: dict[str, Any] = {}
    # (should the second writer wait for the lock after all, the embedding is let go in the end,
    # and the order of events says what happened)
    valve = threading.Timer(30, held_embeddings.release.set)
    valve.start()
    with beliefdb.connect(db_url) as first, beliefdb.connect(db_url) as second:
        ingesting = threading.Thread(target=lambda: done.update(report=first.ingest_text(POLICY, source="policy.md")))
        ingesting.start()
        assert held_embeddings.asked.wait(30)  # the ingest is committed and waits for its vectors
        other = second.remember("Shipping costs 5 EUR.", "shipping", "cost", "5 EUR", "Shipping costs 5 EUR.",
                                source="chat", text="Shipping costs 5 EUR.")
        finished_while_embedding = not held_embeddings.release.is_set()
        held_embeddings.release.set()
        ingesting.join(30)
        valve.cancel()
        assert other.accepted and finished_while_embedding
        report = done["report"]
        assert len(report.accepted) == 10 and report.embedding_deferred is None
        assert vectors.count_missing(first.database, "openai/tiny-8") == 0
