"""The in-memory reference of bench/impact.py: what ``impact`` answers, computed by Python.

The forward closure of the seed, then a dict-based least fixpoint of holding inside it (a
justification holds when each antecedent is outside the closure or holds again), the flagged
decisions, held actions and surviving decisions with their live support. Two storages of the same
graph, the same algorithm and the same answers:

* ``Memory`` (the default): the edges in CSR arrays (``array.array``: one machine word or less per
  edge, scalar reads as fast as a list's), the closure a plain-Python breadth-first walk over the
  CSR slices. ~110 bytes per node (1,064 MiB at 10M nodes), where networkx needs ~1.75 kB (RSS at 100k).
* ``NetworkxMemory`` (``--reference networkx``): the closure by ``networkx.descendants`` on a
  ``DiGraph``, the rest in dicts of tuples, as before issue 21 (~17.5 GB at 10M nodes by the same measure).
"""

from __future__ import annotations

import time
from array import array
from typing import TYPE_CHECKING, Any

import numpy as np
from _common import log

if TYPE_CHECKING:
    from impact import Graph

FRAGMENT, BELIEF, DERIVED, DECISION, ACTION = range(5)


def csr(keys: np.ndarray, values: np.ndarray, n: int) -> tuple[array[int], array[int]]:
    """``values`` grouped by ``keys`` (stable: each group keeps the input order): (ptr, values)."""
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return array("q", ptr.tobytes()), array("i", values[order].astype(np.int32).tobytes())


def distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` by sorting: numpy 2.4's ``np.unique`` of 38M int64 took minutes here
    (24 s for 3.8M, where sorting takes under a second)."""
    ordered = np.sort(values)
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


class Memory:
    def __init__(self, g: Graph) -> None:
        t0 = time.perf_counter()
        n = g.nodes
        self.kind = array("b", g.kind.astype(np.int8).tobytes())
        self.cons = array("i", g.cons.astype(np.int32).tobytes())
        self.ptr = array("q", g.ptr.astype(np.int64).tobytes())
        self.ant = array("i", g.ant.astype(np.int32).tobytes())
        # a node's justifications, in justification order
        self.jptr, self.jidx = csr(g.cons, np.arange(len(g.cons)), n)
        # the justifications each node is an antecedent of, in justification order
        owner = np.repeat(np.arange(len(g.cons)), np.diff(g.ptr))
        self.uptr, self.uidx = csr(g.ant, owner, n)
        # node-to-node edges (antecedent -> consequent), each pair once, as a DiGraph has them
        pairs = distinct(g.ant.astype(np.int64) * n + g.cons[owner])
        self.sptr, self.succ = csr(pairs // n, pairs % n, n)
        self.edges = len(pairs)
        a0 = g.first(ACTION)
        self.aptr, self.aidx = csr(g.action_decision, np.arange(a0, n), n)
        del owner, pairs
        log(f"in-memory graph (CSR): {n:,} nodes, {self.edges:,} node-to-node edges, "
            f"{self.nbytes() / 2**20:,.0f} MiB in {time.perf_counter() - t0:.1f} s")

    def nbytes(self) -> int:
        return sum(a.itemsize * len(a) for a in (self.kind, self.cons, self.ptr, self.ant, self.jptr, self.jidx,
                                                  self.uptr, self.uidx, self.sptr, self.succ, self.aptr, self.aidx))

    def ants(self, j: int) -> tuple[int, ...]:
        return tuple(self.ant[self.ptr[j]:self.ptr[j + 1]])

    def justs(self, n: int) -> array[int]:
        return self.jidx[self.jptr[n]:self.jptr[n + 1]]

    def descendants(self, seed: int) -> set[int]:
        """Every node reachable from ``seed`` (not ``seed`` itself), as networkx.descendants."""
        seen = {seed}
        frontier = [seed]
        sptr, succ = self.sptr, self.succ
        while frontier:
            nxt = []
            for x in frontier:
                for y in succ[sptr[x]:sptr[x + 1]]:
                    if y not in seen:
                        seen.add(y)
                        nxt.append(y)
            frontier = nxt
        seen.discard(seed)
        return seen

    def impact(self, seed: int) -> dict[str, Any]:
        """What stops holding if ``seed`` does, which decisions are flagged, which actions held,
        and which decisions lose a reason but survive, and by which justifications."""
        closure = self.descendants(seed)
        closure.add(seed)
        kind, cons, ptr, ant = self.kind, self.cons, self.ptr, self.ant
        jptr, jidx, uptr, uidx = self.jptr, self.jidx, self.uptr, self.uidx
        missing: dict[int, int] = {}
        holding: set[int] = set()
        queue: list[int] = []
        for n in closure:
            if n == seed:
                continue
            if kind[n] == FRAGMENT:  # a premise (its source is in force)
                holding.add(n)
                queue.append(n)
                continue
            for j in jidx[jptr[n]:jptr[n + 1]]:
                left = sum(1 for a in ant[ptr[j]:ptr[j + 1]] if a in closure)
                missing[j] = left
                if left == 0 and n not in holding:
                    holding.add(n)
                    queue.append(n)
        while queue:  # least fixpoint: a justification holds once no antecedent is missing
            x = queue.pop()
            for j in uidx[uptr[x]:uptr[x + 1]]:
                left = missing[j] - 1
                missing[j] = left
                if left == 0:
                    n = cons[j]
                    if n not in holding and n != seed:
                        holding.add(n)
                        queue.append(n)
        return self._answer(closure, holding)

    def _answer(self, closure: set[int], holding: set[int]) -> dict[str, Any]:
        decisions = [n for n in closure if self.kind[n] == DECISION]
        flagged = [d for d in decisions if d not in holding]

        def live(j: int) -> bool:
            return all(a not in closure or a in holding for a in self.ants(j))

        # every node is current before the change: a decision that holds survives on other
        # support when one of its justifications stops being live
        survives = {d: [self.ants(j) for j in self.justs(d) if live(j)]
                    for d in decisions if d in holding and not all(live(j) for j in self.justs(d))}
        held = [a for d in flagged for a in self.aidx[self.aptr[d]:self.aptr[d + 1]]]
        return {"closure": len(closure), "stopped": closure - holding, "flagged": flagged, "held": held,
                "survives": survives}

    def closure_size(self, seed: int, cap: int) -> int:
        """Size of the forward closure of ``seed``, or cap + 1 once it passes ``cap``."""
        seen = {seed}
        frontier = [seed]
        sptr, succ = self.sptr, self.succ
        while frontier:
            nxt = []
            for x in frontier:
                for y in succ[sptr[x]:sptr[x + 1]]:
                    if y not in seen:
                        seen.add(y)
                        nxt.append(y)
            if len(seen) > cap:
                return cap + 1
            frontier = nxt
        return len(seen)


class NetworkxMemory:
    """The reference as it was before issue 21: networkx closure, dicts of tuples."""

    def __init__(self, g: Graph) -> None:
        import networkx as nx

        self.nx = nx
        t0 = time.perf_counter()
        cons = g.cons.tolist()
        ptr = g.ptr.tolist()
        ant = g.ant.tolist()
        self.kind = g.kind.tolist()
        self.cons = cons
        self._ants: dict[int, tuple[int, ...]] = {j: tuple(ant[ptr[j]:ptr[j + 1]]) for j in range(len(cons))}
        self._justs: dict[int, list[int]] = {}
        self.uses: dict[int, list[int]] = {}
        for j, c in enumerate(cons):
            self._justs.setdefault(c, []).append(j)
            for a in self._ants[j]:
                self.uses.setdefault(a, []).append(j)
        self.actions: dict[int, list[int]] = {}
        a0 = g.first(ACTION)
        for i, d in enumerate(g.action_decision.tolist()):
            self.actions.setdefault(d, []).append(a0 + i)
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(range(g.nodes))
        self.graph.add_edges_from((a, c) for j, c in enumerate(cons) for a in self._ants[j])
        log(f"in-memory graph (networkx): {self.graph.number_of_nodes():,} nodes, "
            f"{self.graph.number_of_edges():,} node-to-node edges in {time.perf_counter() - t0:.1f} s")

    def ants(self, j: int) -> tuple[int, ...]:
        return self._ants[j]

    def descendants(self, seed: int) -> set[int]:
        found: set[int] = self.nx.descendants(self.graph, seed)
        return found

    def impact(self, seed: int) -> dict[str, Any]:
        closure = self.descendants(seed)
        closure.add(seed)
        missing: dict[int, int] = {}
        holding: set[int] = set()
        queue: list[int] = []
        for n in closure:
            if n == seed:
                continue
            if self.kind[n] == FRAGMENT:
                holding.add(n)
                queue.append(n)
                continue
            for j in self._justs.get(n, ()):
                left = sum(1 for a in self._ants[j] if a in closure)
                missing[j] = left
                if left == 0 and n not in holding:
                    holding.add(n)
                    queue.append(n)
        while queue:
            x = queue.pop()
            for j in self.uses.get(x, ()):
                left = missing[j] - 1
                missing[j] = left
                if left == 0:
                    n = self.cons[j]
                    if n not in holding and n != seed:
                        holding.add(n)
                        queue.append(n)
        decisions = [n for n in closure if self.kind[n] == DECISION]
        flagged = [d for d in decisions if d not in holding]

        def live(j: int) -> bool:
            return all(a not in closure or a in holding for a in self._ants[j])

        survives = {d: [self._ants[j] for j in self._justs[d] if live(j)]
                    for d in decisions if d in holding and not all(live(j) for j in self._justs[d])}
        return {"closure": len(closure), "stopped": closure - holding, "flagged": flagged,
                "held": [a for d in flagged for a in self.actions.get(d, ())], "survives": survives}

    def closure_size(self, seed: int, cap: int) -> int:
        seen = {seed}
        frontier = [seed]
        succ = self.graph.succ
        while frontier:
            nxt = []
            for x in frontier:
                for y in succ[x]:
                    if y not in seen:
                        seen.add(y)
                        nxt.append(y)
            if len(seen) > cap:
                return cap + 1
            frontier = nxt
        return len(seen)
