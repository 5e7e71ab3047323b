"""What the benchmark scripts share: progress lines, the database they measure (``--db`` or a
throw-away embedded server), the ``--db``/``--json`` options, timing, percentiles and the machine.

The scripts import it as ``_common``: ``python bench/<script>.py`` puts ``bench/`` on the path; a
script in a folder below (``bench/repair/run.py``, ``bench/retrieval/run.py``) adds it itself.
"""

from __future__ import annotations

import argparse
import contextlib
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


def random_uuids(rng: np.random.Generator, n: int) -> list[uuid.UUID]:
    """Version-4 UUIDs from ``rng`` (reproducible with --seed)."""
    raw = rng.integers(0, 256, size=(n, 16), dtype="uint8")
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    data = raw.tobytes()
    return [uuid.UUID(bytes=data[i * 16:(i + 1) * 16]) for i in range(n)]


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
