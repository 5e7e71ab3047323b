"""The product view's pages over HTTP on a workspace of 10,000 beliefs: the median (and 95th
percentile) time to answer the workspace page ``/`` (60 beliefs drawn, the default, and 200), a
belief's page and an impact page, from a client to ``beliefdb serve``'s app run in this process
(uvicorn on a loopback port, in a thread).

The workspace is bench/impact.py's synthetic support graph (sources → fragments → beliefs → derived
beliefs → decisions → actions, hubs by a power law), loaded with binary COPY; the pages are those a
signed-in browser gets (a session cookie holding a token, ``Accept: text/html``). The target for ``/``
is under a second on this machine class (issue 18)."""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psycopg

from beliefdb.api import servers

sys.path.insert(0, str(Path(__file__).resolve().parent))
import impact  # bench/impact.py: the synthetic graph and its loader
from _common import arguments, database, log, machine, percentile, print_json, timed

#: the share of beliefs (extracted and derived) among the generator's nodes (impact.MIX)
BELIEF_SHARE = impact.MIX[impact.BELIEF] + impact.MIX[impact.DERIVED]


def load(url: str, beliefs: int, seed: int) -> tuple[str, impact.Graph]:
    """A new workspace with about ``beliefs`` beliefs; its name and the generated graph."""
    rng = np.random.default_rng(seed)
    nodes = max(20, math.ceil(beliefs / BELIEF_SHARE))
    while int(nodes * impact.MIX[impact.BELIEF]) + int(nodes * impact.MIX[impact.DERIVED]) < beliefs:
        nodes += 1  # the generator rounds each layer down
    g = impact.generate(nodes, rng)
    name = f"bench-ui-{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("insert into beliefdb.workspace (name) values (%s) returning id", (name,)).fetchone()
    assert row is not None
    t0 = time.perf_counter()
    with psycopg.connect(url) as conn:
        impact.load(conn, uuid.UUID(str(row[0])), g)
    with psycopg.connect(url, autocommit=True) as conn:
        for table in ("node", "fragment", "belief", "decision", "action", "justification",
                      "justification_antecedent", "evidence", "source", "source_version", "adjacency"):
            conn.execute(f"vacuum (analyze) beliefdb.{table}")
    log(f"loaded {g.nodes:,} nodes in {time.perf_counter() - t0:.1f} s")
    return name, g


def measure(client: httpx.Client, paths: Sequence[str], runs: int) -> dict[str, float]:
    """Milliseconds per answer over ``runs`` requests (cycling through ``paths``), after one warm-up each."""
    for path in paths:
        client.get(path).raise_for_status()
    took: list[float] = []
    for i in range(runs):
        with timed(took):
            response = client.get(paths[i % len(paths)])
        response.raise_for_status()
    return {"p50_ms": round(statistics.median(took), 1), "p95_ms": round(percentile(took, 95), 1),
            "runs": len(took)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--beliefs", type=int, default=10_000, help="beliefs in the workspace (default 10,000)")
    parser.add_argument("--runs", type=int, default=30, help="measured requests per page (default 30)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    from beliefdb import api

    with database(args.db) as url:
        name, g = load(url, args.beliefs, args.seed)
        token = api.create_token(name, impact.PRINCIPAL, read_only=True, url=url).token
        first, last = g.first(impact.BELIEF), g.first(impact.DECISION)
        picked = random.Random(args.seed).sample(range(first, last), min(args.runs, last - first))
        beliefs = [str(g.node_ids[i]) for i in picked]
        counted = last - first
        with servers.serving(url, mcp=False) as base, httpx.Client(
                base_url=base, timeout=120, cookies={"beliefdb_token": token},
                headers={"Accept": "text/html"}) as client:
            log(f"measuring {args.runs} requests per page on {counted:,} beliefs")
            report: dict[str, Any] = {
                "beliefs": counted, "nodes": g.nodes,
                "workspace_page": measure(client, ["/"], args.runs),
                "workspace_page_200": measure(client, ["/?limit=200"], args.runs),
                "belief_page": measure(client, [f"/beliefs/{b}" for b in beliefs], args.runs),
                "impact_page": measure(client, [f"/impact?ref={b}" for b in beliefs], args.runs),
                "machine": machine(),
            }
    if args.json:
        print_json(report)
    else:
        print(f"{counted:,} beliefs ({g.nodes:,} nodes), median (p95) of {args.runs} requests each:")
        for page in ("workspace_page", "workspace_page_200", "belief_page", "impact_page"):
            print(f"  {page:18} {report[page]['p50_ms']:8.1f} ms  ({report[page]['p95_ms']:.1f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
