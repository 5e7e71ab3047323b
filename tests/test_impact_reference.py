"""bench/impact.py's in-memory reference on CSR arrays answers exactly as the networkx one it
replaces (closure, stopped nodes, flagged decisions, held actions, survivors and their live
reasons), and the numpy-built binary COPY it loads with writes the values it was given."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import _common  # noqa: E402
import impact as bench_impact  # noqa: E402
import impact_reference  # noqa: E402


def normalised(answer: dict[str, Any]) -> dict[str, Any]:
    return {"closure": answer["closure"], "stopped": set(answer["stopped"]), "flagged": sorted(answer["flagged"]),
            "held": sorted(answer["held"]),
            "survives": {d: sorted(tuple(r) for r in reasons) for d, reasons in answer["survives"].items()}}


@pytest.mark.slow
def test_csr_reference_answers_as_networkx() -> None:
    g = bench_impact.generate(4000, np.random.default_rng(7))
    csr = impact_reference.Memory(g)
    nx = impact_reference.NetworkxMemory(g)
    seeds = range(g.first(impact_reference.FRAGMENT), g.first(impact_reference.DECISION), 7)
    flagged = survived = 0
    for seed in seeds:
        assert csr.descendants(seed) == nx.descendants(seed)
        assert csr.closure_size(seed, 50) == nx.closure_size(seed, 50)
        got, want = normalised(csr.impact(seed)), normalised(nx.impact(seed))
        assert got == want, seed
        flagged += len(got["flagged"])
        survived += len(got["survives"])
    # the comparison covered answers with flagged decisions and with survivors, not only empty ones
    assert flagged > 0 and survived > 0


def test_copy_tuples_round_trip(db_url: str) -> None:
    ids = np.frombuffer(b"".join(uuid.UUID(int=i + 1).bytes for i in range(3)), dtype=np.uint8).reshape(3, 16)
    with psycopg.connect(db_url) as conn:
        conn.execute("create temporary table t (id uuid, label text, n int4, x float4, ok boolean, "
                     "k beliefdb.node_kind)")
        rows, _ = _common.copy_binary(conn, "t", ("id", "label", "n", "x", "ok", "k"), [[
            ids, ["a", "", "longer text"], np.array([1, -2, 2**31 - 1], dtype=">i4"),
            np.array([0.5, 1e-9, -3.25], dtype=">f4"), np.array([True, False, True], dtype="?"),
            np.array(["fragment", "belief", "action"], dtype=np.bytes_)]], schema="pg_temp")
        got = conn.execute("select id, label, n, x, ok, k::text from t order by n").fetchall()
    assert rows == 3
    assert got == [(uuid.UUID(int=2), "", -2, pytest.approx(1e-9), False, "belief"),
                   (uuid.UUID(int=1), "a", 1, 0.5, True, "fragment"),
                   (uuid.UUID(int=3), "longer text", 2**31 - 1, -3.25, True, "action")]


def test_uuid_order_is_the_servers(db_url: str) -> None:
    raw = _common.random_uuid_bytes(np.random.default_rng(3), 500)
    ids = bench_impact.Ids(raw)
    with psycopg.connect(db_url) as conn:
        ordered = conn.execute("select u from unnest(%s::uuid[]) u order by u",
                               ([ids[i] for i in range(len(ids))],)).fetchall()
    assert [ids[i] for i in bench_impact.id_order(raw).tolist()] == [u for (u,) in ordered]


@pytest.mark.slow
def test_the_load_stores_well_founded_supports_and_the_adjacency_the_tables_say(db_url: str) -> None:
    from tests.test_closure_reads import adjacency_drift, support_drift

    g = bench_impact.generate(3000, np.random.default_rng(3))
    ws = bench_impact.create_workspace(db_url)
    with psycopg.connect(db_url) as conn:
        bench_impact.load(conn, ws, g)
    with psycopg.connect(db_url, autocommit=True) as conn:
        supported = conn.execute("select count(*) filter (where support is not null), count(*) from beliefdb.node"
                                 " where workspace_id = %s", (ws,)).fetchone()
        assert supported is not None and 0 < supported[0] < supported[1] == g.nodes
        assert support_drift(conn, ws) == []
        assert adjacency_drift(conn, ws) == set()
