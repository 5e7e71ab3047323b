"""Speed and load of the HTTP API on loopback: ``ask`` over HTTP against the in-process library call on
the same store, in the same run; then concurrent clients for a while mixing ask, remember and correct,
checking that no request failed, no write was lost and the audit chain verifies; with p50/p95 per
operation and the server's memory afterwards. ``beliefdb serve`` runs as its own process on 127.0.0.1.

    python bench/serve.py                                  # 16 clients for 60 s
    python bench/serve.py --clients 4 --seconds 5 --asks 30 --json
"""

from __future__ import annotations

import random
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx
import psycopg
from _common import arguments, database, log, machine, percentile, print_json, timed

import beliefdb
from beliefdb import api

QUESTIONS = ["how many days for returns of product 7?", "what is the warranty of product 3?",
             "how many days for returns?", "what is the restocking fee?", "warranty of product 12",
             "who pays return shipping?"]
MIX = (("ask", 0.6), ("remember", 0.3), ("correct", 0.1))


def _seed(db: beliefdb.BeliefDB, facts: int) -> None:
    for i in range(facts):
        text = (f"# Product {i}\nReturns of product {i} are accepted within {10 + i % 20} days of delivery.\n"
                f"Warranty: {1 + i % 3} years\n")
        db.ingest_text(text, source=f"product-{i}.md", authority="official")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _memory_mb(pid: int) -> dict[str, float]:
    """Resident and peak resident memory of a process, in MB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out["rss_mb" if key == "VmRSS" else "peak_rss_mb"] = round(int(value.split()[0]) / 1024, 1)
    return out


class Load:
    """One client of the load phase: its own connection, its own beliefs, its latencies and errors."""

    def __init__(self, base: str, token: str, n: int, seed: int) -> None:
        self.client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120)
        self.n, self.rng = n, random.Random(seed)
        self.times: dict[str, list[float]] = {op: [] for op, _ in MIX}
        self.errors: list[str] = []
        self.remembered: list[str] = []
        self.corrected: dict[str, str] = {}  # belief -> its replacement

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        response = self.client.post(path, json=body)
        if response.status_code != 200:
            self.errors.append(f"{path} {response.status_code} {response.text[:200]}")
            return None
        return response.json()

    def one(self) -> None:
        op = self.rng.choices([o for o, _ in MIX], [w for _, w in MIX])[0]
        if op == "correct" and len(self.remembered) <= len(self.corrected):
            op = "remember"
        with timed(self.times[op]):
            if op == "ask":
                self._post("/ask", {"question": self.rng.choice(QUESTIONS), "k": 3})
            elif op == "remember":
                k = len(self.remembered)
                quote = f"the code of order {self.n}-{k} is X{self.n}{k}"
                made = self._post("/beliefs", {"statement": f"The code of order {self.n}-{k} is X{self.n}{k}.",
                                               "subject": f"order_{self.n}_{k}", "attribute": "code",
                                               "value": f"X{self.n}{k}", "quote": quote,
                                               "source": f"chat-{self.n}-{k}", "text": f"Note: {quote}."})
                if made is not None:
                    self.remembered.append(made["accepted"][0]["id"])
            else:
                belief = next(b for b in self.remembered if b not in self.corrected)
                seen = self._post("/corrections/preview", {"belief": belief})
                if seen is not None:
                    done = self._post("/corrections", {"belief": belief, "expected_revision": seen["revision"],
                                                       "statement": "The code was mistyped.", "value": "corrected"})
                    if done is not None:
                        self.corrected[belief] = done["replacement"]

    def run(self, until: float) -> None:
        try:
            while time.monotonic() < until:
                self.one()
        except Exception as exc:  # a client that crashed is an error of the run, not of the bench
            self.errors.append(f"client {self.n}: {exc!r}")
        finally:
            self.client.close()


def _lost_writes(url: str, loads: list[Load]) -> dict[str, int]:
    """Remembered beliefs missing, and corrections whose belief is not superseded by its replacement."""
    remembered = [b for load in loads for b in load.remembered]
    corrected = {b: r for load in loads for b, r in load.corrected.items()}
    with psycopg.connect(url) as conn:
        found = conn.execute("select count(*) from beliefdb.belief where id = any(%s::uuid[])",
                             (remembered,)).fetchone()
        applied = conn.execute(
            "select count(*) from unnest(%s::uuid[], %s::uuid[]) as c (old, new)"
            " join beliefdb.belief b on b.id = c.old and b.status = 'superseded'"
            " join beliefdb.relation r on r.workspace_id = b.workspace_id and r.kind = 'supersedes'"
            " and r.to_belief = c.old and r.from_belief = c.new",
            (list(corrected), list(corrected.values()))).fetchone()
    return {"remembered": len(remembered), "remembered_missing": len(remembered) - int(found[0] if found else 0),
            "corrected": len(corrected), "corrections_missing": len(corrected) - int(applied[0] if applied else 0)}


def _p(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_ms": round(percentile(values, 50), 2), "p95_ms": round(percentile(values, 95), 2)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database, as its owner (default: a"
                                        " throw-away one)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients of the load phase")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the load phase runs")
    parser.add_argument("--asks", type=int, default=200, help="asks timed each way for the latency comparison")
    parser.add_argument("--facts", type=int, default=40, help="documents ingested before anything is timed")
    args = parser.parse_args(argv)
    workspace = f"bench-http-{secrets.token_hex(3)}"
    with database(args.db, "beliefdb-http-") as url:
        api.create_workspace(workspace, url=url)
        token = api.create_token(workspace, "bench", url=url).token
        port = _free_port()
        server = subprocess.Popen([sys.executable, "-m", "beliefdb", "serve", "--port", str(port), "--db", url,
                                   "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
        base = f"http://127.0.0.1:{port}"
        try:
            with beliefdb.connect(url, workspace, principal="bench") as db:
                log(f"seeding {args.facts} documents")
                _seed(db, args.facts)
                deadline = time.monotonic() + 60
                while True:
                    try:
                        if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"beliefdb serve did not start: {server.communicate()[1][-2000:]}")
                    time.sleep(0.1)
                log(f"ask: {args.asks} in-process calls and {args.asks} over HTTP, interleaved")
                local: list[float] = []
                remote: list[float] = []
                with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
                    for q in QUESTIONS:  # warm both: the embedder, the pools, the plans
                        db.ask(q, k=3)
                        http.post("/ask", json={"question": q, "k": 3}).raise_for_status()
                    for i in range(args.asks):
                        q = QUESTIONS[i % len(QUESTIONS)]
                        with timed(local):
                            db.ask(q, k=3)
                        with timed(remote):
                            http.post("/ask", json={"question": q, "k": 3}).raise_for_status()
            log(f"load: {args.clients} clients for {args.seconds:g} s (ask, remember, correct)")
            loads = [Load(base, token, n, seed=n) for n in range(args.clients)]
            until = time.monotonic() + args.seconds
            threads = [threading.Thread(target=load.run, args=(until,)) for load in loads]
            t0 = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - t0
            memory = _memory_mb(server.pid)
            with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
                audit = http.get("/audit/verify").json()
            lost = _lost_writes(url, loads)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(30)
            if server.stderr is not None:
                server.stderr.close()
            api.delete_workspace(workspace, url=url, force=True)
    times = {op: [t for load in loads for t in load.times[op]] for op, _ in MIX}
    errors = [e for load in loads for e in load.errors]
    result = {
        "ask_in_process": _p(local), "ask_http": _p(remote),
        "http_over_in_process_p50": round(percentile(remote, 50) / percentile(local, 50), 2),
        "load": {"clients": args.clients, "seconds": round(elapsed, 1),
                 "requests": sum(len(v) for v in times.values()),
                 "per_second": round(sum(len(v) for v in times.values()) / elapsed, 1),
                 **{op: _p(v) for op, v in times.items()}},
        "errors": len(errors), "first_errors": errors[:5], "lost_writes": lost,
        "audit_ok": bool(audit.get("ok")), "audit_events": audit.get("events"),
        "server_memory": memory, "machine": machine(),
    }
    if args.json:
        print_json(result)
    else:
        print_json(result, indent=2)
    ok = (not errors and not lost["remembered_missing"] and not lost["corrections_missing"] and result["audit_ok"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
