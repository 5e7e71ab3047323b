"""What the benchmark scripts share: progress lines, the database they measure (``--db`` or a
throw-away embedded server), the ``--db``/``--json`` options, timing, percentiles and the machine.

The scripts import it as ``_common``: ``python bench/<script>.py`` puts ``bench/`` on the path; a
script in a folder below (``bench/repair/run.py``, ``bench/retrieval/run.py``) adds it itself.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import platform
import sys
import time
import uuid
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

if TYPE_CHECKING:
    import numpy as np

DB_HELP = "libpq URL of a migrated beliefdb database, as a superuser"


def log(message: str) -> None:
    """A progress line on stderr (stdout carries the report)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def arguments(doc: str | None, *, db_help: str = DB_HELP,
              json_help: str = "print one JSON object") -> argparse.ArgumentParser:
    """A parser described by the first paragraph of ``doc`` (the script's docstring), with the
    options every script has: ``--json`` and ``--db``."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help=json_help)
    parser.add_argument("--db", help=db_help)
    return parser


@contextlib.contextmanager
def database(url: str | None, prefix: str = "beliefdb-bench-") -> Iterator[str]:
    """``url``, or a throw-away migrated embedded server, stopped and deleted at the end."""
    if url is not None:
        yield url
        return
    from beliefdb.db.bootstrap import scratch_database

    log("starting a throw-away embedded server")
    with contextlib.ExitStack() as stack:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs' runtime-dir warning inside the embedded wheel
            started = stack.enter_context(scratch_database(prefix))
        yield started


def print_json(value: Any, *, indent: int | None = None) -> None:
    """The report as JSON on stdout."""
    print(json.dumps(value, indent=indent), flush=True)


def ms_since(t0: float) -> float:
    """Milliseconds since ``t0`` (a ``time.perf_counter()`` reading)."""
    return (time.perf_counter() - t0) * 1000


@contextlib.contextmanager
def timed(into: list[float]) -> Iterator[None]:
    """Append the milliseconds the block took to ``into`` (nothing if it raised)."""
    t0 = time.perf_counter()
    yield
    into.append(ms_since(t0))


def percentile(values: Sequence[float], q: float, *, nearest: bool = False) -> float:
    """The ``q``-th percentile (0-100) of ``values``: linear interpolation between the closest ranks
    (numpy's default, ``statistics.quantiles(method="inclusive")``), or with ``nearest`` the value at
    the nearest rank. NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = q / 100 * (len(ordered) - 1)
    if nearest:
        return ordered[min(len(ordered) - 1, max(0, round(position)))]
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def random_uuid_bytes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Version-4 UUIDs from ``rng`` (reproducible with --seed) as an ``(n, 16)`` uint8 array."""
    raw = rng.integers(0, 256, size=(n, 16), dtype="uint8")
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    return raw


def random_uuids(rng: np.random.Generator, n: int) -> list[uuid.UUID]:
    """Version-4 UUIDs from ``rng`` (reproducible with --seed)."""
    data = random_uuid_bytes(rng, n).tobytes()
    return [uuid.UUID(bytes=data[i * 16:(i + 1) * 16]) for i in range(n)]


def belief_sha256(statement: str, subject: str, attribute: str, value: str, kind: str = "fact") -> bytes:
    """``beliefdb.belief_sha256`` of a belief with the other columns' defaults (scope ``{}``, valid time
    ``(,)``, world ``production``): what the trigger stores in ``belief.sha256``, which a load with the
    triggers off writes itself (``audit_verify`` compares it with what the belief says)."""
    return hashlib.sha256("\x1f".join((statement, subject, attribute, value, kind, "{}", "(,)", "production"))
                          .encode()).digest()


def copy_rows(conn: psycopg.Connection[Any], table: str, columns: Sequence[str], types: Sequence[str],
              rows: Iterable[tuple[Any, ...]], total: int | None = None) -> None:
    """Binary ``COPY`` of ``rows`` into ``beliefdb.<table>`` (an enum column travels as text: an
    enum's binary form is its label); with ``total``, a progress line says how long it took."""
    t0 = time.perf_counter()
    with conn.cursor() as cur, cur.copy(
            f"copy beliefdb.{table} ({', '.join(columns)}) from stdin (format binary)") as copy:
        copy.set_types(list(types))
        for row in rows:
            copy.write_row(row)
    if total is not None:
        log(f"  {table}: {total:,} rows in {time.perf_counter() - t0:.1f} s")


def server_settings(conn: psycopg.Connection[Any], names: Iterable[str]) -> dict[str, str]:
    """``show <name>`` for each of ``names``."""
    settings = {}
    for name in names:
        row = conn.execute(f"show {name}").fetchone()  # type: ignore[arg-type]
        settings[name] = str(row[0]) if row else "?"
    return settings


def machine() -> dict[str, Any]:
    """Cores, memory, CPU model and Python version of this machine."""
    mem_kb = 0
    with contextlib.suppress(OSError), open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    cpu = platform.processor() or ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "memory_gb": round(mem_kb / 1024 / 1024, 1), "cpu": cpu,
            "python": platform.python_version()}


# ---------------------------------------------------------------------------------------------
# binary COPY built in numpy: a column is either a fixed-width numpy array (``(n, 16)`` uint8 for
# uuids, ``>i4``/``>f4``/``?`` for the rest, already big-endian), a list of ``str`` or a numpy
# ``bytes_`` array (text, enum labels: an enum's binary form is its label); no per-row Python work
# but the texts' encoding

COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8
COPY_TRAILER = b"\xff\xff"
Column = Any  # np.ndarray (fixed width, one row per element or per first-axis row) | list[str]


class Nullable:
    """A column with nulls: ``values`` as any other column, ``null`` a boolean array, true where the
    row's field is null (its value is not sent)."""

    def __init__(self, values: Column, null: np.ndarray) -> None:
        self.values = values
        self.null = null


def _field(column: Column) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """A column as an ``(n, width)`` byte matrix, for text each row's length (the rest of its row
    in the matrix is padding), and where the column has nulls, which rows are null."""
    import numpy as np

    if isinstance(column, Nullable):
        matrix, lengths, _ = _field(column.values)
        return matrix, lengths, np.asarray(column.null, dtype=bool)
    if isinstance(column, list):
        padded = np.array(column, dtype=np.bytes_)  # NUL-padded to the longest; texts have no NULs
        lengths = np.fromiter(map(len, column), dtype=np.int64, count=len(column))
        if padded.itemsize < int(lengths.max(initial=0)):
            raise ValueError("text columns must be ASCII (lengths are taken in characters)")
        return padded.view(np.uint8).reshape(len(column), padded.itemsize), lengths, None
    if column.dtype.kind == "S":  # labels already as bytes (e.g. an enum's labels taken by code)
        return (column.view(np.uint8).reshape(len(column), column.itemsize),
                np.char.str_len(column).astype(np.int64), None)
    flat = np.ascontiguousarray(column)
    return flat.view(np.uint8).reshape(len(flat), -1), None, None


def copy_tuples(columns: Sequence[Column]) -> bytes:
    """The binary COPY tuples of these columns (no header): per row a field count, then per field
    its length (-1 for a null, ``Nullable``) and bytes. Every row is laid out in a fixed-width
    matrix (texts padded to the longest), then the padding is dropped with one boolean mask:
    column copies, not per-byte scatters (~10x faster at 10M nodes)."""
    import numpy as np

    fields = [_field(c) for c in columns]
    n = len(fields[0][0])
    width = 2 + sum(4 + m.shape[1] for m, _, _ in fields)
    rows = np.empty((n, width), dtype=np.uint8)
    rows[:, 0:2] = np.frombuffer(np.array(len(fields), dtype=">i2").tobytes(), dtype=np.uint8)
    keep: np.ndarray | None = None
    at = 2
    for matrix, lengths, null in fields:
        w = matrix.shape[1]
        size = np.full(n, w, dtype=np.int64) if lengths is None else lengths
        if null is not None:
            size = np.where(null, -1, size)
        rows[:, at:at + 4] = size.astype(">i4").view(np.uint8).reshape(n, 4)
        rows[:, at + 4:at + 4 + w] = matrix
        if lengths is not None or null is not None:
            if keep is None:
                keep = np.ones((n, width), dtype=bool)
            keep[:, at + 4:at + 4 + w] = np.arange(w) < np.maximum(size, 0)[:, None]
        at += 4 + w
    return (rows.reshape(-1) if keep is None else rows[keep]).tobytes()


def copy_binary(conn: psycopg.Connection[Any], table: str, columns: Sequence[str],
                chunks: Iterable[Sequence[Column]], schema: str = "beliefdb") -> tuple[int, float]:
    """Binary ``COPY`` into ``<schema>.<table>`` of ``chunks`` (each a list of columns, see
    ``copy_tuples``); returns (rows, seconds) and logs them."""
    t0 = time.perf_counter()
    rows = 0
    with conn.cursor() as cur, cur.copy(
            f"copy {schema}.{table} ({', '.join(columns)}) from stdin (format binary)") as copy:
        copy.write(COPY_HEADER)
        for chunk in chunks:
            rows += len(chunk[0])
            copy.write(copy_tuples(chunk))
        copy.write(COPY_TRAILER)
    seconds = time.perf_counter() - t0
    log(f"  {table}: {rows:,} rows in {seconds:.1f} s ({rows / max(seconds, 1e-9):,.0f} rows/s)")
    return rows, seconds


def kept_workspace(parser: argparse.ArgumentParser, url: str | None, name: str) -> tuple[psycopg.Connection[Any], Any]:
    """An autocommit superuser connection to ``url`` and the id of the workspace named ``name`` that a
    ``bench/impact.py --db URL --keep`` run loaded; a usage error without either."""
    if url is None:
        parser.error("--db is needed: a database a bench/impact.py --keep run loaded")
    admin = psycopg.connect(url, autocommit=True)
    found = admin.execute("select id from beliefdb.workspace where name = %s", (name,)).fetchone()
    if found is None:
        parser.error(f"no workspace named {name!r} in that database")
    return admin, found[0]


# auto_explain in every session a connection opens: set at its start, as a superuser
PLANS = ("-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 "
         "-c auto_explain.log_analyze=on -c auto_explain.log_timing=off -c auto_explain.log_nested_statements=on "
         "-c auto_explain.log_format=json -c auto_explain.log_level=notice")


def traced_beliefdb(url: str, workspace: str, principal: str | None,
                    plans: list[tuple[str, dict[str, Any]]], current: list[str]) -> Any:
    """A ``BeliefDB`` of one connection whose every plan, nested statements included (``auto_explain``,
    ``log_analyze``, no timing), is appended to ``plans`` as (``current[0]``, the JSON plan)."""
    import beliefdb

    previous = os.environ.get("PGOPTIONS")
    os.environ["PGOPTIONS"] = f"{previous or ''} {PLANS}"
    try:
        db = beliefdb.BeliefDB(url, workspace, principal=principal, max_size=1)
    finally:
        if previous is None:
            del os.environ["PGOPTIONS"]
        else:
            os.environ["PGOPTIONS"] = previous

    def capture(notice: psycopg.errors.Diagnostic) -> None:
        text = notice.message_primary or ""
        if "plan:" in text:
            plans.append((current[0], json.loads(text.split("plan:", 1)[1])))

    with db.database.transaction() as conn:  # its one connection: the handler stays on it for every call
        conn.add_notice_handler(capture)
    return db

