"""Recording agent runs as typed steps (truth rule 10 of docs/rules.md).

A :class:`RunRecorder` hands out step and memory ids at once and writes nothing until
:meth:`RunRecorder.flush` (or the end of its ``with`` block): one call to
``beliefdb.record_trace``, one transaction, however many steps and edges. That keeps recording
cheap enough to call on every step of an agent.

Edges say why a step holds. A step's ``inputs`` are needed jointly (it holds while all of them
hold); each of its ``supports`` is an independent reason of its own; ``follows`` is pure time
order and never propagates. A memory a step writes is a belief that holds while that step does.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import check_json
from beliefdb.models import Run, TraceInput, TraceStep
from beliefdb.vocabulary import BELIEF_KINDS, JOINT_EDGE_KINDS, STEP_KINDS

# The spellings of the joint input edge kinds agents tend to use.
_ALIASES = {"read": "reads", "cite": "cites", "initiate": "initiates", "derive": "derives", "produce": "produces",
            "update": "updates", "consolidate": "consolidates"}


def edge_kind(name: str) -> str:
    """The stored name of a joint input edge kind; one-line error for anything else."""
    kind = _ALIASES.get(name, name)
    if kind not in JOINT_EDGE_KINDS:
        hint = (" (give it as one of the step's supports: an independent reason)"
                if name in ("supports", "support") else "")
        raise errors.InvalidInput(f"unknown input edge '{name}' (choose from: {', '.join(JOINT_EDGE_KINDS)}){hint}")
    return kind


def check_step(kind: str, supports: Sequence[object]) -> None:
    """Refuse a step kind that does not exist, or independent support of a step that takes its inputs'."""
    if kind not in STEP_KINDS:
        raise errors.InvalidInput(f"unknown step kind '{kind}' (choose from: {', '.join(STEP_KINDS)})")
    if supports and kind in ("tool_call", "observation"):
        article = "an" if kind == "observation" else "a"
        raise errors.InvalidInput(f"{article} {kind} takes the verdict of its inputs: record them as inputs, not"
                                  " supports")


def payload_of(payload: Any) -> dict[str, Any]:
    """A step's payload as stored, a JSON object (None: an empty one), else InvalidInput naming it: a text,
    a number or a list is no object (``dict("notadict")`` raised a ValueError, ``dict(5)`` a TypeError)."""
    if payload is None:
        return {}
    if not isinstance(payload, Mapping):
        raise errors.InvalidInput(f"{errors.argument('payload')} must be a mapping (a JSON object: {{'text': ...}}),"
                                  f" not {type(payload).__name__}")
    stored = dict(payload)
    check_json(stored, "payload")
    return stored


def check_memory(subject: str, attribute: str, kind: str) -> None:
    """Refuse a memory without a subject or an attribute, or of a kind beliefs do not have."""
    if not subject.strip() or not attribute.strip():
        raise errors.InvalidInput("a memory needs a subject and an attribute")
    if kind not in BELIEF_KINDS:
        raise errors.InvalidInput(f"unknown memory kind '{kind}' (choose from: {', '.join(BELIEF_KINDS)})")


class RunRecorder:
    """Buffer a run's steps, memories and edges; write them in one round trip per flush.

    Safe to share between threads (an async agent's tasks record steps while ``await db.call(run.flush)``
    runs on a worker thread): a flush sends what was buffered when it began and keeps what is recorded
    while it runs for the next one; flushes take turns, each sending its batch once."""

    def __init__(self, db: Database, *, task: str = "", agent: str | None = None, parent: UUID | None = None,
                 run_id: UUID | None = None, first_seq: int = 0) -> None:
        self.db = db
        self.id = run_id or uuid.uuid4()
        self._run: dict[str, Any] = {"id": str(self.id), "task": task, "agent": agent,
                                     "parent": str(parent) if parent else None}
        self._seq = first_seq
        self._steps: list[dict[str, Any]] = []
        self._memories: list[dict[str, Any]] = []
        self._edges: list[dict[str, Any]] = []
        self._step_kinds: dict[UUID, str] = {}
        self._created = False
        # (the buffers and seq: a step and its edges go in together, so a flush never sends a step
        # without the edges recorded with it; flushes take turns, so two never send the same rows)
        self._buffer_lock = threading.Lock()
        self._flush_lock = threading.Lock()

    def step(self, kind: str, payload: Mapping[str, Any] | None = None, *,
             inputs: Iterable[tuple[str, UUID]] = (), supports: Iterable[UUID] = (),
             follows: Iterable[UUID] = (), replay_of: UUID | None = None) -> UUID:
        """Record one step (its seq is the order of calls); returns its id at once."""
        supports = list(supports)
        check_step(kind, supports)
        stored = payload_of(payload)
        step_id = uuid.uuid4()
        edges = ([(node, step_id, edge_kind(name)) for name, node in inputs]
                 + [(node, step_id, "supports") for node in supports]
                 + [(step_id, node, "follows") for node in follows])
        with self._buffer_lock:
            self._steps.append({"id": str(step_id), "seq": self._seq, "kind": kind, "payload": stored,
                                "replay_of": str(replay_of) if replay_of else None})
            self._seq += 1
            self._step_kinds[step_id] = kind
            for from_node, to_node, edge in edges:
                self._edge(from_node, to_node, edge)
        return step_id

    def memory(self, step: UUID, subject: str, attribute: str, value: str, statement: str | None = None, *,
               kind: str = "fact", supersedes: UUID | None = None) -> UUID:
        """A memory (belief) written by ``step``: it holds while the step does."""
        check_memory(subject, attribute, kind)
        memory_id = uuid.uuid4()
        with self._buffer_lock:
            self._memories.append({"id": str(memory_id), "step": str(step), "subject": subject,
                                   "attribute": attribute, "value": value, "statement": statement, "kind": kind,
                                   "supersedes": str(supersedes) if supersedes else None})
        return memory_id

    def delete_memory(self, step: UUID, memory: UUID) -> None:
        """``step`` deleted ``memory``: it stops being current (a repair that undoes the step restores it)."""
        with self._buffer_lock:
            self._edge(step, memory, "deletes")

    def _edge(self, from_node: UUID, to_node: UUID, kind: str) -> None:
        """(the caller holds the buffer lock)"""
        self._edges.append({"from_node": str(from_node), "to_node": str(to_node), "kind": kind})

    @property
    def next_seq(self) -> int:
        """The seq the next step will take."""
        return self._seq

    @property
    def pending(self) -> int:
        with self._buffer_lock:
            return len(self._steps) + len(self._memories) + len(self._edges)

    def flush(self, conn: psycopg.Connection[Any] | None = None) -> None:
        """Write what is buffered in one transaction (nothing of it if anything is wrong: it stays
        buffered). What is recorded while a flush runs stays for the next one."""
        with self._flush_lock:
            with self._buffer_lock:
                steps, memories, edges = list(self._steps), list(self._memories), list(self._edges)
            if self._created and not (steps or memories or edges):
                return
            with self.db.transaction(conn) as c:
                c.execute(Q.record_trace, (Jsonb(self._run), Jsonb(steps), Jsonb(memories), Jsonb(edges)))
            with self._buffer_lock:
                # (only what this flush sent: the buffers only grow at their ends between the two locks)
                del self._steps[:len(steps)], self._memories[:len(memories)], self._edges[:len(edges)]
            self._created = True

    def __enter__(self) -> RunRecorder:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.flush()


def record_run(db: Database, *, task: str = "", agent: str | None = None, parent: UUID | None = None) -> RunRecorder:
    return RunRecorder(db, task=task, agent=agent, parent=parent)


def continue_run(db: Database, ref: str | UUID, conn: psycopg.Connection[Any]) -> RunRecorder:
    """A recorder that appends to a recorded run (by id or unique prefix), after its last step: flush it
    in ``conn``'s transaction. Its seq is read under the workspace's write lock, which recording takes
    anyway (first, as every writer): a writer appending to the run at the same time waits for this one
    to commit and reads the seq after it, where one reading before the other wrote took the same seq."""
    with db.transaction(conn) as c:
        c.execute(Q.lock_workspace)
        found = run_id(db, ref, c)
        row = c.execute(Q.run_next_seq, (found,)).fetchone()
    return RunRecorder(db, run_id=found, first_seq=int(row[0]) if row else 0)


def list_runs(db: Database, conn: psycopg.Connection[Any] | None = None, *, limit: int | None = None,
              offset: int = 0, newest_first: bool = False) -> list[Run]:
    """Runs oldest (or newest) first: ``limit`` of them (None: all) from ``offset``."""
    if limit is not None and limit < 1:
        raise errors.InvalidInput("limit must be at least 1")
    if not 0 <= offset <= 2**31 - 1:
        raise errors.InvalidInput("offset must be between 0 and 2,147,483,647")
    query = Q.list_runs_newest if newest_first else Q.list_runs
    return db.fetch_all(Run, query, {"limit": limit, "offset": offset}, conn)


def count_runs(db: Database, conn: psycopg.Connection[Any] | None = None) -> int:
    return int(db.scalar(Q.count_runs, None, conn))


def run_info(db: Database, ref: str | UUID) -> Run:
    """One run (by id or unique prefix) with its number of steps."""
    with db.transaction() as c:
        run: Run = db.fetch_one(Run, Q.run_info, (run_id(db, ref, c),), c)
    return run


def run_id(db: Database, ref: str | UUID, conn: psycopg.Connection[Any] | None = None) -> UUID:
    """A run by full id or unique id prefix."""
    text = str(ref).strip().lower()
    if not text:
        raise errors.InvalidInput("name a run")
    if text.strip("0123456789abcdef-"):  # (no id nor the start of one: bad input, as beliefdb.resolve_node says)
        raise errors.InvalidInput(f"run id {ref} is not an id: give an id or at least 4 of its first hex digits")
    with db.transaction(conn) as c:
        rows = c.execute(Q.run_by_prefix, (text,)).fetchall()
    # at least 4 characters, as every other id a command takes (beliefdb.resolve_node): a shorter
    # prefix names another run once there are several; too short whether or not it begins one
    short = len(text.replace("-", "")) < 4
    if len(rows) > 1:
        more = "at least 4 characters" if short else "more characters"
        raise errors.AmbiguousId(f"run id prefix {ref} matches more than one run: give {more} of the id")
    if short:
        raise errors.InvalidInput(f"run id prefix {ref} is too short: give at least 4 characters of the id")
    if not rows:
        raise errors.NotFound(f"unknown run {ref}")
    return UUID(str(rows[0][0]))


def steps(db: Database, run: UUID | None = None, ids: Sequence[UUID] | None = None,
          conn: psycopg.Connection[Any] | None = None) -> list[TraceStep]:
    """The steps of a run (or these steps), in execution order."""
    return db.fetch_all(TraceStep, Q.steps, {"run": run, "ids": list(ids) if ids is not None else None}, conn)


def inputs(db: Database, step_ids: Sequence[UUID], conn: psycopg.Connection[Any] | None = None) -> list[TraceInput]:
    """The recorded inputs of these steps, in a stable order."""
    return db.fetch_all(TraceInput, Q.step_inputs, (list(step_ids),), conn)
