"""Benchmark cases: a world, multi-session tasks and the faults injected into memory, from a seed.

A case is run twice in Python: on clean memory (the ground truth) and with the faults. Only
cases whose faults change the final answer (the last answer of the last session) are kept: a
fault that does not change the answer is not a case.

Fault types (each is a memory that is the latest one for its key when the agent reads it):

* ``poisoned``: an outside write (an injected instruction, a bad import) with a wrong value;
* ``stale``: an earlier value of the field comes back later (an outdated sync);
* ``wrong_user``: another user's value recorded under this user;
* ``summary_drift``: the agent's own session summary gets one note wrong; later sessions read
  the summary instead of the notes.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from agent import DOMAINS, Agent, Domain, LocalMemory, LocalRun, Task, Trace, World, history_before, read_memory

FAULT_TYPES = ("poisoned", "stale", "wrong_user", "summary_drift")
SESSIONS = (3, 4, 4, 5)
TASKS_PER_SESSION = (3, 4)
JSON = dict[str, Any]


@dataclass(frozen=True)
class Fault:
    type: str
    attribute: str  # the memory's attribute: a profile field, or summary:s<k>
    key: str  # the field inside it that is wrong (the note, for a summary)
    wrong: str  # the wrong value as the agent reads it (a note's JSON, for a summary)
    before: int  # injected before this session (a drifted summary is written at the end of before-1)


@dataclass
class Built:
    trace: Trace
    answer: JSON | None
    faults: list[uuid.UUID]  # memory ids of the faulty memories, in the order of Case.faults
    final_step: uuid.UUID


@dataclass
class Case:
    index: int
    domain: str
    world: World
    sessions: list[list[Task]]
    faults: list[Fault]
    clean: Built
    faulty: Built
    follow_up: JSON = field(default_factory=dict)  # the clean answer of the follow-up session

    @property
    def compound(self) -> bool:
        return len(self.faults) > 1


def build(world: World, sessions: list[list[Task]], faults: list[Fault]) -> Built:
    """Run the agent over all sessions with ``faults`` injected (none: the clean run)."""
    domain = DOMAINS[world.domain]
    trace = Trace()
    drift = {f.attribute: (f.key, f.wrong) for f in faults if f.type == "summary_drift"}
    agent = Agent(world, LocalMemory(trace), drift)
    history: dict[str, tuple[int, str]] = {}
    fault_ids: dict[Fault, uuid.UUID] = {}
    last: JSON | None = None
    for k, tasks in enumerate(sessions, start=1):
        for f in faults:
            if f.type != "summary_drift" and f.before == k:
                source = {"poisoned": "web page injection", "stale": "outdated CRM sync",
                          "wrong_user": "conversation with user:" + str(1 + k % 5)}[f.type]
                rec = LocalRun(trace, task=f"memory import: {source}", agent="import")
                s = rec.step("memory_write", {"op": "import", "source": source})
                fault_ids[f] = rec.memory(s, world.subject, f.attribute, f.wrong, kind="preference")
        rec = LocalRun(trace, task=f"session {k}", agent=domain.agent, session=k)
        last = agent.session(rec, k, tasks, history, consolidate=k < len(sessions))
    for f in faults:
        if f.type == "summary_drift":
            found = trace.get(world.subject, f.attribute)
            assert found is not None
            fault_ids[f] = found.id
    final = [s for s in trace.runs[-1].steps if s.kind == "answer"][-1]
    return Built(trace, last, [fault_ids[f] for f in faults], final.id)


def follow_up(world: World, memory: Any, faults: list[Fault]) -> JSON:
    """The follow-up session's answer: the agent reads the faulty keys again and says what it found."""
    answer: JSON = {}
    for f in faults:
        if f.type == "summary_drift":
            values, _ = read_memory(memory, world.subject, [f.key], f.attribute)
        else:
            values, _ = read_memory(memory, world.subject, [f.key], None)
        answer[f"{f.attribute}/{f.key}"] = values[f.key]
    return answer


def recurs(case: Case, answer: JSON) -> bool:
    """Does a fault's wrong value show up again in the follow-up answer?"""
    return any(answer.get(f"{f.attribute}/{f.key}") == f.wrong for f in case.faults)


def _fake_ref(domain: Domain, world: World, rng: random.Random, true: str | None) -> str:
    while True:
        if domain.name == "travel":
            ref = f"C{rng.randrange(16**6):06X}"
        elif domain.name == "shopping":
            sku = rng.choice([s for s, i in world.data["catalogue"].items() if i["category"] == "shirts"])
            ref = f"O{sku}-{rng.randrange(10**5):05d}"
        else:
            ref = f"T{rng.randrange(10**6):06d}"
        if ref != true:
            return ref


def _sessions(rng: random.Random, domain: Domain, world: World) -> list[list[Task]]:
    regular = [t for t in domain.templates.values() if t.history is None]
    history = next(t for t in domain.templates.values() if t.history is not None)
    writer = next(t for t in regular if any(w.kind == domain.ref for w in t.writes))
    count = rng.choice(SESSIONS)
    sessions: list[list[Task]] = []
    for k in range(1, count + 1):
        tasks = [Task("_onboard", {"facts": dict(world.users[0]), "text": "about me"})] if k == 1 else []
        tasks.append(Task("_lookup", {}))
        picks = [rng.choice(regular) for _ in range(rng.choice(TASKS_PER_SESSION))]
        if k == 1 or (k == count - 1 and rng.random() < 0.5):
            picks[rng.randrange(len(picks))] = writer
        if k > 1 and rng.random() < 0.4:
            picks[rng.randrange(len(picks))] = history
        tasks += [Task(t.name, t.request(rng, world)) for t in picks]
        sessions.append(tasks)
    return sessions


def _fault(rng: random.Random, domain: Domain, world: World, kind: str, key: str, sessions: list[list[Task]],
           ref_session: int | None, clean: Trace) -> Fault:
    count = len(sessions)
    if kind == "summary_drift":
        assert ref_session is not None
        attribute = f"summary:s{ref_session}"
        note = clean.get(world.subject, key)
        true = json.loads(note.value) if note is not None else None
        return Fault(kind, attribute, key, json.dumps(_fake_ref(domain, world, rng, true)), ref_session + 1)
    true = world.users[0][key]
    if kind == "poisoned":
        wrong = rng.choice([v for v in domain.fields[key] if v != true])
    elif kind == "stale":
        wrong = world.previous[key]
    else:
        others = [u[key] for u in world.users[1:] if u[key] != true]
        wrong = rng.choice(others) if others else rng.choice([v for v in domain.fields[key] if v != true])
    return Fault(kind, key, key, wrong, rng.randint(2, count))


def make_case(seed: int, index: int, compound: bool) -> Case:
    """Case ``index`` of ``seed``: retried (with new draws) until its faults change the final answer."""
    rng = random.Random(seed * 1_000_003 + index)
    domain = list(DOMAINS.values())[index % len(DOMAINS)]
    block = index // len(DOMAINS)  # each block of three cases covers the three domains
    primary = FAULT_TYPES[block % len(FAULT_TYPES)]
    for _attempt in range(200):
        world = domain.world(rng)
        sessions = _sessions(rng, domain, world)
        regular = [t for t in domain.templates.values() if t.history is None]
        history = next(t for t in domain.templates.values() if t.history is not None)
        final = history if primary == "summary_drift" else rng.choice(regular)
        sessions[-1].append(Task(final.name, final.request(rng, world)))
        ref_session, ref_note = history_before(domain, sessions[:-1])[domain.ref]
        clean = build(world, sessions, [])
        # the primary fault hits what the final task uses; compound cases add 1-3 more anywhere read
        if primary == "summary_drift":
            keys = [ref_note]
        else:
            keys = sorted({f for s in final.stages for f in s.uses} & set(domain.fields))
        faults = [_fault(rng, domain, world, primary, rng.choice(keys), sessions, ref_session, clean.trace)]
        if compound:
            for _ in range(rng.randint(1, 3)):
                kind = rng.choice(FAULT_TYPES)
                taken = {f.attribute for f in faults}
                if kind == "summary_drift":
                    readable = [(k, n) for k in range(1, len(sessions)) if f"summary:s{k}" not in taken
                                for n in _notes(clean.trace, world, k) if n.startswith(f"{domain.ref}:")]
                    if not readable:
                        continue
                    k, note = rng.choice(readable)
                    faults.append(_fault(rng, domain, world, kind, note, sessions, k, clean.trace))
                else:
                    free = [f for f in domain.fields if f not in taken]
                    faults.append(_fault(rng, domain, world, kind, rng.choice(free), sessions, None, clean.trace))
            if len(faults) == 1:
                continue
        faulty = build(world, sessions, faults)
        if faulty.answer == clean.answer:
            continue  # not a case
        case = Case(index, domain.name, world, sessions, faults, clean, faulty)
        case.follow_up = follow_up(world, LocalMemory(clean.trace), faults)
        return case
    raise RuntimeError(f"no case {index} for seed {seed}: faults never changed the answer")


def _notes(trace: Trace, world: World, k: int) -> list[str]:
    m = trace.get(world.subject, f"summary:s{k}")
    return sorted(json.loads(m.value)) if m is not None else []


def make_cases(seed: int, count: int) -> list[Case]:
    """``count`` cases; every third block of three is compound (2-4 faults); domains and primary fault
    types rotate, so every (domain, fault type, single/compound) combination comes round."""
    return [make_case(seed, i, compound=is_compound(i)) for i in range(count)]


def is_compound(index: int) -> bool:
    return (index // len(DOMAINS)) % 3 == 2
