"""Domains, tools and the deterministic agent of the repair benchmark.

The agent is a program, not a script of answers: every step's payload is computed by ``execute``
from the payloads of the step's recorded inputs (and, for a memory read, from the memory it
finds). The original run and every replay go through the same ``execute``, so a replay sees
exactly the logic the agent had, and a step depends on nothing it does not record as an input:
a plan cites only the claims its tool arguments use, an answer only the claims and observations
it reads. A wrong memory therefore really produces wrong claims, wrong tool arguments and a
wrong answer, and a memory read alongside it but not used produces claims that are right.

Three tool domains with in-process, deterministic tools:

* travel: a fare table (routes x airlines x cabins), bookings, visas, lounges, hotels;
* shopping: a catalogue (sizes, brands, colours, prices), shipping quotes, orders and returns;
* customer service: an order/CRM store, refund policy by tier and region, tickets, warranty.

Memory keys (subject ``user:<n>``): profile facts (attribute = field) written in the first
session from the user's own words; notes written by tasks (``<kind>:s<k>t<i>``, never rewritten);
and a summary per session (``summary:s<k>``, JSON of that session's notes) that later sessions
read first, falling back to the notes when there is no summary.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

JSON = dict[str, Any]


def hnum(*parts: object) -> int:
    """A stable 64-bit hash of ``parts`` (the tools' deterministic pseudo-randomness)."""
    data = json.dumps(parts, sort_keys=True, default=str).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


# ---------------------------------------------------------------------------------------------
# a trace kept in Python (the faulty run is generated here, then recorded through the API)


@dataclass
class Step:
    id: uuid.UUID
    run: uuid.UUID
    seq: int
    kind: str
    payload: JSON
    inputs: list[tuple[str, uuid.UUID]]
    supports: list[uuid.UUID]


@dataclass
class Memory:
    id: uuid.UUID
    step: uuid.UUID
    subject: str
    attribute: str
    value: str
    kind: str
    order: int


@dataclass
class Run:
    id: uuid.UUID
    task: str
    agent: str
    parent: uuid.UUID | None
    session: int  # 1.. for agent sessions, 0 for memory written from outside (fault injection)
    # ("step", Step) | ("memory", Memory) | ("delete", (step id, memory id)), in call order
    events: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def steps(self) -> list[Step]:
        return [e[1] for e in self.events if e[0] == "step"]


@dataclass
class Trace:
    runs: list[Run] = field(default_factory=list)
    steps: dict[uuid.UUID, Step] = field(default_factory=dict)
    memories: dict[uuid.UUID, Memory] = field(default_factory=dict)
    deleted: set[uuid.UUID] = field(default_factory=set)
    by_key: dict[tuple[str, str], list[uuid.UUID]] = field(default_factory=dict)

    def current(self) -> list[Memory]:
        return [m for m in self.memories.values() if m.id not in self.deleted]

    def get(self, subject: str, attribute: str) -> Memory | None:
        for mid in reversed(self.by_key.get((subject, attribute), [])):
            if mid not in self.deleted:
                return self.memories[mid]
        return None


class MemoryLike(Protocol):
    def get(self, subject: str, attribute: str) -> tuple[uuid.UUID, str] | None: ...


class LocalMemory:
    """The latest current memory of a key in a Python trace."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def get(self, subject: str, attribute: str) -> tuple[uuid.UUID, str] | None:
        m = self.trace.get(subject, attribute)
        return (m.id, m.value) if m is not None else None


class LocalRun:
    """Records a run into a Trace, with the same calls as beliefdb's RunRecorder."""

    def __init__(self, trace: Trace, *, task: str, agent: str, parent: uuid.UUID | None = None,
                 session: int = 0) -> None:
        self.trace = trace
        self.run = Run(uuid.uuid4(), task, agent, parent, session)
        self.id = self.run.id
        trace.runs.append(self.run)

    def step(self, kind: str, payload: JSON, *, inputs: Sequence[tuple[str, uuid.UUID]] = (),
             supports: Sequence[uuid.UUID] = ()) -> uuid.UUID:
        step = Step(uuid.uuid4(), self.run.id, len(self.run.steps), kind, payload, list(inputs), list(supports))
        self.trace.steps[step.id] = step
        self.run.events.append(("step", step))
        return step.id

    def memory(self, step: uuid.UUID, subject: str, attribute: str, value: str, *, kind: str = "fact") -> uuid.UUID:
        mem = Memory(uuid.uuid4(), step, subject, attribute, value, kind, len(self.trace.memories))
        self.trace.memories[mem.id] = mem
        self.trace.by_key.setdefault((subject, attribute), []).append(mem.id)
        self.run.events.append(("memory", mem))
        return mem.id

    def delete_memory(self, step: uuid.UUID, memory: uuid.UUID) -> None:
        self.trace.deleted.add(memory)
        self.run.events.append(("delete", (step, memory)))


# ---------------------------------------------------------------------------------------------
# domains


@dataclass
class World:
    domain: str
    salt: int
    users: list[JSON]  # profiles; users[0] is the case's user
    previous: JSON  # an earlier value of each field of users[0] (what a stale memory says)
    data: JSON

    @property
    def subject(self) -> str:
        return "user:0"


Tool = Callable[[World, JSON], JSON]
Args = Callable[[JSON, JSON, list[JSON]], JSON]


@dataclass(frozen=True)
class Stage:
    tool: str
    uses: tuple[str, ...]  # the claims its arguments depend on (and cites)
    args: Args  # (request, claims, earlier observations) -> tool arguments


@dataclass(frozen=True)
class Write:
    kind: str  # note attribute is f"{kind}:s{session}"
    uses: tuple[str, ...]  # claims it cites
    from_answer: bool  # cites the answer
    value: Callable[[JSON, JSON, JSON], Any]  # (request, claims, answer) -> value


@dataclass(frozen=True)
class Template:
    name: str
    fields: tuple[str, ...]
    stages: tuple[Stage, ...]
    answer_uses: tuple[str, ...]
    answer: Callable[[JSON, JSON, list[JSON]], JSON]
    request: Callable[[random.Random, World], JSON]
    writes: tuple[Write, ...] = ()
    history: str | None = None  # reads the summary of an earlier session for this note kind


@dataclass(frozen=True)
class Domain:
    name: str
    agent: str
    fields: dict[str, tuple[str, ...]]
    record: tuple[str, ...]  # fields the account lookup returns from the system of record
    lookup: str
    tools: dict[str, Tool]
    templates: dict[str, Template]
    make_data: Callable[[random.Random], JSON]
    ref: str  # the note kind a history task acts on

    def world(self, rng: random.Random, users: int = 6) -> World:
        profiles = [{f: rng.choice(pool) for f, pool in self.fields.items()} for _ in range(users)]
        previous = {f: rng.choice([v for v in pool if v != profiles[0][f]]) for f, pool in self.fields.items()}
        return World(self.name, rng.getrandbits(32), profiles, previous, self.make_data(rng))


def _lookup(world: World, args: JSON) -> JSON:
    """The system of record: the account as the provider knows it (independent of the agent's memory)."""
    domain = DOMAINS[world.domain]
    return {"record": {f: world.users[0][f] for f in domain.record}}


def _num(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _first(obs: list[JSON], key: str) -> Any:
    items = obs[0].get(key) or [] if obs else []
    return items[0] if items else None


# -- travel: a fare table ----------------------------------------------------------------------

AIRPORTS = {"SFO": "US", "SEA": "US", "JFK": "US", "BOS": "US", "ORD": "US", "LAX": "US", "YVR": "CA", "YYZ": "CA",
            "FRA": "DE", "MUC": "DE", "NRT": "JP", "DEL": "IN", "LHR": "GB", "CDG": "FR"}
HOMES = ("SFO", "SEA", "JFK", "BOS", "ORD", "LAX", "YVR", "YYZ")
AIRLINES = ("UA", "DL", "AA", "AS", "AC")
CABIN = {"economy": 1.0, "premium": 1.7, "business": 3.2}


def _fares(world: World, origin: str, dest: str) -> list[JSON]:
    table = world.data["fares"]
    if (origin, dest) not in table:
        rows = []
        for airline in AIRLINES:
            for n in range(2):
                x = hnum(world.salt, origin, dest, airline, n)
                rows.append({"flight": f"{airline}{100 + x % 900}", "airline": airline, "base": 90 + (x >> 12) % 700})
        table[(origin, dest)] = rows
    rows: list[JSON] = table[(origin, dest)]
    return rows


def search_fares(world: World, a: JSON) -> JSON:
    origin, dest = a.get("origin"), a.get("dest")
    if origin not in AIRPORTS or dest not in AIRPORTS or origin == dest:
        return {"flights": [], "error": "no such route"}
    factor = CABIN.get(a.get("cabin") or "economy", 1.0)
    limit = _num(a.get("max_price"))
    found = [{"flight": f["flight"], "airline": f["airline"], "price": round(f["base"] * factor)}
             for f in _fares(world, origin, dest)]
    found = sorted((f for f in found if limit is None or f["price"] <= limit), key=lambda f: (f["price"], f["flight"]))
    return {"flights": found[:3]}


def book(world: World, a: JSON) -> JSON:
    flight = a.get("flight")
    if not flight:
        return {"error": "nothing to book"}
    code = f"C{hnum(world.salt, flight, a.get('seat'), a.get('meal')) % 16**6:06X}"
    return {"confirmation": code, "flight": flight["flight"], "price": flight["price"], "seat": a.get("seat"),
            "meal": a.get("meal")}


def visa_check(world: World, a: JSON) -> JSON:
    passport, country = a.get("passport"), AIRPORTS.get(a.get("dest") or "")
    if not passport or not country:
        return {"error": "unknown passport or destination"}
    if passport == country:
        return {"visa_required": False, "days": 0}
    x = hnum(world.salt, "visa", passport, country)
    return {"visa_required": x % 2 == 0, "days": 0 if x % 2 else 3 + x % 25}


def lounge_access(world: World, a: JSON) -> JSON:
    airline, cabin = a.get("airline"), a.get("cabin")
    if airline not in AIRLINES or cabin not in CABIN:
        return {"error": "unknown airline or cabin"}
    x = hnum(world.salt, "lounge", airline, a.get("airport"))
    return {"lounge": f"{airline} Club {x % 9 + 1}", "passes": {"economy": 0, "premium": 1, "business": 2}[cabin]}


def hotel_search(world: World, a: JSON) -> JSON:
    budget, meal = _num(a.get("budget")), a.get("meal")
    if budget is None:
        return {"hotels": [], "error": "no budget"}
    rows = []
    for n in range(8):
        x = hnum(world.salt, "hotel", a.get("city"), n)
        rows.append({"hotel": f"H{x % 1000:03d}", "night": 60 + x % 260, "kitchen": ["standard", "vegetarian", "kosher",
                                                                                   "halal"][(x >> 9) % 4]})
    ok = sorted((r for r in rows if r["night"] * 4 <= budget and (meal == "standard" or r["kitchen"] == meal)),
                key=lambda r: (r["night"], r["hotel"]))
    return {"hotels": ok[:2]}


def change_booking(world: World, a: JSON) -> JSON:
    ref = a.get("confirmation")
    if not ref:
        return {"error": "no booking to change"}
    x = hnum(world.salt, "change", ref, a.get("days"))
    return {"confirmation": ref, "fee": 40 + x % 160, "new_confirmation": f"C{x % 16**6:06X}"}


def _pick(obs: list[JSON], claims: JSON) -> JSON | None:
    flights = obs[0].get("flights") or []
    preferred = [f for f in flights if f["airline"] == claims.get("loyalty_airline")]
    return (preferred or flights or [None])[0]


def _dest(rng: random.Random, world: World) -> JSON:
    return {"dest": rng.choice([a for a in AIRPORTS if a != world.users[0]["home_airport"]])}


TRAVEL = Domain(
    name="travel", agent="travel-agent", lookup="loyalty_lookup", ref="booking",
    fields={"home_airport": HOMES, "cabin": tuple(CABIN), "loyalty_airline": AIRLINES, "seat": ("aisle", "window"),
            "meal": ("standard", "vegetarian", "kosher", "halal"),
            "budget": tuple(str(b) for b in range(400, 2001, 200)),
            "passport": ("US", "CA", "DE", "IN", "JP")},
    record=("loyalty_airline", "passport"),
    tools={"loyalty_lookup": _lookup, "search_fares": search_fares, "book": book, "visa_check": visa_check,
           "lounge_access": lounge_access, "hotel_search": hotel_search, "change_booking": change_booking},
    make_data=lambda rng: {"fares": {}},
    templates={t.name: t for t in (
        Template("flight_search", ("home_airport", "cabin", "budget"),
                 (Stage("search_fares", ("home_airport", "cabin", "budget"),
                        lambda r, c, o: {"origin": c["home_airport"], "dest": r["dest"], "cabin": c["cabin"],
                                         "max_price": c["budget"]}),),
                 (), lambda r, c, o: {"best": _first(o, "flights"), "options": len(o[0].get("flights", []))}, _dest,
                 (Write("route", ("home_airport",), False, lambda r, c, a: f"{c['home_airport']}-{r['dest']}"),)),
        Template("book_flight", ("home_airport", "cabin", "loyalty_airline", "seat", "meal"),
                 (Stage("search_fares", ("home_airport", "cabin"),
                        lambda r, c, o: {"origin": c["home_airport"], "dest": r["dest"], "cabin": c["cabin"],
                                         "max_price": None}),
                  Stage("book", ("loyalty_airline", "seat", "meal"),
                        lambda r, c, o: {"flight": _pick(o, c), "seat": c["seat"], "meal": c["meal"]})),
                 (), lambda r, c, o: {k: o[1].get(k) for k in ("confirmation", "flight", "price", "error")}, _dest,
                 (Write("booking", (), True, lambda r, c, a: a.get("confirmation")),
                  Write("loyalty", ("loyalty_airline",), False, lambda r, c, a: c["loyalty_airline"]))),
        Template("visa", ("passport", "seat"),
                 (Stage("visa_check", ("passport",), lambda r, c, o: {"passport": c["passport"], "dest": r["dest"]}),),
                 (), lambda r, c, o: dict(o[0]), _dest),
        Template("lounge", ("loyalty_airline", "cabin", "home_airport"),
                 (Stage("lounge_access", ("loyalty_airline", "cabin", "home_airport"),
                        lambda r, c, o: {"airline": c["loyalty_airline"], "cabin": c["cabin"],
                                         "airport": c["home_airport"]}),),
                 (), lambda r, c, o: dict(o[0]), lambda rng, w: {}),
        Template("hotel", ("budget", "meal", "passport"),
                 (Stage("hotel_search", ("budget", "meal"),
                        lambda r, c, o: {"city": r["dest"], "budget": c["budget"], "meal": c["meal"]}),),
                 (), lambda r, c, o: {"hotel": _first(o, "hotels")}, _dest),
        Template("change_booking", (),
                 (Stage("change_booking", ("ref",), lambda r, c, o: {"confirmation": c["ref"], "days": r["days"]}),),
                 (), lambda r, c, o: dict(o[0]), lambda rng, w: {"days": rng.randint(1, 30)}, history="booking"),
    )},
)


# -- shopping: a catalogue -----------------------------------------------------------------------

BRANDS = ("Arden", "Brio", "Corvo", "Dune", "Elm")
COLOURS = ("black", "white", "navy", "green", "red", "grey")
CITIES = ("Boston", "Denver", "Austin", "Seattle", "Miami", "Chicago", "Portland", "Phoenix")
SHOE_SIZES = tuple(str(s) for s in range(38, 47))
SHIRT_SIZES = ("S", "M", "L", "XL")


def _catalogue(rng: random.Random) -> JSON:
    items = {}
    for i in range(120):
        category = ("shoes", "shirts", "jackets")[i % 3]
        sizes = SHOE_SIZES if category == "shoes" else SHIRT_SIZES
        sku = f"{category[0].upper()}{i:03d}"
        items[sku] = {"sku": sku, "category": category, "brand": rng.choice(BRANDS), "colour": rng.choice(COLOURS),
                      "price": rng.randrange(25, 330), "sizes": sorted(rng.sample(sizes, max(1, len(sizes) * 2 // 3)))}
    return {"catalogue": items}


def search_catalogue(world: World, a: JSON) -> JSON:
    limit = _num(a.get("max_price"))
    found = [i for i in world.data["catalogue"].values()
             if i["category"] == a.get("category") and a.get("size") in i["sizes"]
             and (limit is None or i["price"] <= limit)]
    found.sort(key=lambda i: (i["brand"] != a.get("brand"), i["colour"] != a.get("colour"), i["price"], i["sku"]))
    return {"items": [{k: i[k] for k in ("sku", "brand", "colour", "price")} for i in found[:3]]}


def shipping_quote(world: World, a: JSON) -> JSON:
    city, speed = a.get("city"), a.get("speed")
    if city not in CITIES or speed not in ("standard", "express"):
        return {"error": "cannot quote"}
    x = hnum(world.salt, "ship", city)
    days = 2 + x % 6
    express = speed == "express"
    return {"days": max(1, days // 2) if express else days, "cost": (12 if express else 4) + x % 5}


def place_order(world: World, a: JSON) -> JSON:
    sku = a.get("sku")
    if not sku:
        return {"error": "nothing to order"}
    quote = shipping_quote(world, {"city": a.get("city"), "speed": a.get("speed")})
    if "error" in quote:
        return {"error": "no delivery address"}
    item = world.data["catalogue"][sku]
    oid = f"O{sku}-{hnum(world.salt, sku, a.get('size'), a.get('city'), a.get('speed')) % 10**5:05d}"
    return {"order_id": oid, "total": item["price"] + quote["cost"], "arrives_in": quote["days"]}


def return_order(world: World, a: JSON) -> JSON:
    oid = a.get("order_id") or ""
    item = world.data["catalogue"].get(oid[1:].split("-")[0])
    if item is None:
        return {"error": "unknown order"}
    fee = 5 if item["category"] == "shoes" else 0
    return {"order_id": oid, "refund": item["price"] - fee, "label": f"L{oid[-5:]}"}


def _top(obs: list[JSON]) -> str | None:
    item = _first(obs, "items")
    return item["sku"] if item else None


SHOPPING = Domain(
    name="shopping", agent="shopping-assistant", lookup="account_lookup", ref="order",
    fields={"shoe_size": SHOE_SIZES, "shirt_size": SHIRT_SIZES, "brand": BRANDS, "colour": COLOURS,
            "budget": tuple(str(b) for b in range(60, 301, 30)), "city": CITIES, "shipping": ("standard", "express")},
    record=("city", "shipping"),
    tools={"account_lookup": _lookup, "search_catalogue": search_catalogue, "shipping_quote": shipping_quote,
           "place_order": place_order, "return_order": return_order},
    make_data=_catalogue,
    templates={t.name: t for t in (
        Template("find_shoes", ("shoe_size", "brand", "colour", "budget"),
                 (Stage("search_catalogue", ("shoe_size", "brand", "colour", "budget"),
                        lambda r, c, o: {"category": "shoes", "size": c["shoe_size"], "brand": c["brand"],
                                         "colour": c["colour"], "max_price": c["budget"]}),),
                 (), lambda r, c, o: {"pick": _first(o, "items")}, lambda rng, w: {},
                 (Write("wishlist", (), True, lambda r, c, a: (a.get("pick") or {}).get("sku")),)),
        Template("buy_shirt", ("shirt_size", "brand", "budget", "city", "shipping"),
                 (Stage("search_catalogue", ("shirt_size", "brand", "budget"),
                        lambda r, c, o: {"category": "shirts", "size": c["shirt_size"], "brand": c["brand"],
                                         "colour": None, "max_price": c["budget"]}),
                  Stage("place_order", ("shirt_size", "city", "shipping"),
                        lambda r, c, o: {"sku": _top(o), "size": c["shirt_size"], "city": c["city"],
                                         "speed": c["shipping"]})),
                 (), lambda r, c, o: {"order_id": o[1].get("order_id"), "total": o[1].get("total"),
                                      "error": o[1].get("error")}, lambda rng, w: {},
                 (Write("order", (), True, lambda r, c, a: a.get("order_id")),
                  Write("ship_to", ("city",), False, lambda r, c, a: c["city"]))),
        Template("delivery", ("city", "shipping", "colour"),
                 (Stage("shipping_quote", ("city", "shipping"),
                        lambda r, c, o: {"city": c["city"], "speed": c["shipping"]}),),
                 (), lambda r, c, o: dict(o[0]), lambda rng, w: {}),
        Template("jacket", ("shirt_size", "colour", "budget"),
                 (Stage("search_catalogue", ("shirt_size", "colour", "budget"),
                        lambda r, c, o: {"category": "jackets", "size": c["shirt_size"], "brand": None,
                                         "colour": c["colour"], "max_price": c["budget"]}),),
                 (), lambda r, c, o: {"pick": _first(o, "items")}, lambda rng, w: {}),
        Template("return_order", (),
                 (Stage("return_order", ("ref",), lambda r, c, o: {"order_id": c["ref"]}),),
                 (), lambda r, c, o: dict(o[0]), lambda rng, w: {}, history="order"),
    )},
)


# -- customer service: an order/CRM store ------------------------------------------------------

TIERS = ("bronze", "silver", "gold", "platinum")
ITEMS = ("kettle", "router", "headphones", "blender", "monitor", "printer", "camera", "speaker")


def _orders(rng: random.Random) -> JSON:
    return {"orders": {f"R{1000 + n}": {"order_id": f"R{1000 + n}", "item": rng.choice(ITEMS),
                                        "amount": rng.randrange(20, 900), "days": rng.randrange(1, 800)}
                       for n in range(10)}}


def order_lookup(world: World, a: JSON) -> JSON:
    order = world.data["orders"].get(a.get("order_id"))
    return dict(order) if order else {"error": "unknown order"}


def refund_policy(world: World, a: JSON) -> JSON:
    tier, region, days, amount = a.get("tier"), a.get("region"), _num(a.get("days")), _num(a.get("amount"))
    if tier not in TIERS or region not in ("EU", "US", "APAC") or days is None or amount is None:
        return {"error": "cannot decide"}
    window = {"bronze": 14, "silver": 30, "gold": 45, "platinum": 90}[tier] + (14 if region == "EU" else 0)
    percent = 100 if days <= window else (50 if tier in ("gold", "platinum") and days <= 2 * window else 0)
    return {"eligible": percent > 0, "refund": amount * percent // 100}


def _priority(tier: str | None) -> str:
    return {"platinum": "urgent", "gold": "high", "silver": "normal"}.get(tier or "", "low")


def create_ticket(world: World, a: JSON) -> JSON:
    if not a.get("channel") or not a.get("language"):
        return {"error": "no contact route"}
    x = hnum(world.salt, "ticket", a.get("order_id"), a.get("priority"), a.get("channel"), a.get("language"))
    return {"ticket_id": f"T{x % 10**6:06d}", "queue": f"{a['language']}-{a['channel']}",
            "sla_hours": {"urgent": 4, "high": 12, "normal": 24, "low": 72}[a.get("priority") or "low"]}


def ticket_status(world: World, a: JSON) -> JSON:
    ref = a.get("ticket_id")
    if not ref:
        return {"error": "no ticket"}
    x = hnum(world.salt, "status", ref)
    return {"ticket_id": ref, "status": ("open", "waiting on customer", "resolved", "escalated")[x % 4],
            "agent": f"A{x % 97}"}


def warranty_claim(world: World, a: JSON) -> JSON:
    plan, days = a.get("warranty"), _num(a.get("days"))
    if plan not in ("none", "basic", "extended") or days is None:
        return {"error": "cannot check"}
    limit = {"none": 30, "basic": 365, "extended": 1095}[plan]
    return {"covered": days <= limit, "item": a.get("item"), "replacement": days <= limit // 3}


def schedule_callback(world: World, a: JSON) -> JSON:
    channel, time, language = a.get("channel"), a.get("time"), a.get("language")
    if not channel or not time or not language:
        return {"error": "cannot schedule"}
    x = hnum(world.salt, "slot", channel, time, language)
    hour = {"morning": 9, "afternoon": 14, "evening": 18}[time] + x % 3
    return {"slot": f"{hour}:00", "via": channel, "agent_language": language}


SERVICE = Domain(
    name="service", agent="support-agent", lookup="crm_lookup", ref="ticket",
    fields={"tier": TIERS, "region": ("EU", "US", "APAC"), "language": ("en", "de", "fr", "es", "ja"),
            "channel": ("email", "phone", "chat"), "warranty": ("none", "basic", "extended"),
            "contact_time": ("morning", "afternoon", "evening")},
    record=("tier", "region"),
    tools={"crm_lookup": _lookup, "order_lookup": order_lookup, "refund_policy": refund_policy,
           "create_ticket": create_ticket, "ticket_status": ticket_status, "warranty_claim": warranty_claim,
           "schedule_callback": schedule_callback},
    make_data=_orders,
    templates={t.name: t for t in (
        Template("refund", ("tier", "region", "language"),
                 (Stage("order_lookup", (), lambda r, c, o: {"order_id": r["order_id"]}),
                  Stage("refund_policy", ("tier", "region"),
                        lambda r, c, o: {"tier": c["tier"], "region": c["region"], "days": o[0].get("days"),
                                         "amount": o[0].get("amount")})),
                 (), lambda r, c, o: dict(o[1]), lambda rng, w: {"order_id": rng.choice(sorted(w.data["orders"]))}),
        Template("open_ticket", ("tier", "channel", "language"),
                 (Stage("create_ticket", ("tier", "channel", "language"),
                        lambda r, c, o: {"order_id": r["order_id"], "priority": _priority(c["tier"]),
                                         "channel": c["channel"], "language": c["language"]}),),
                 (), lambda r, c, o: dict(o[0]), lambda rng, w: {"order_id": rng.choice(sorted(w.data["orders"]))},
                 (Write("ticket", (), True, lambda r, c, a: a.get("ticket_id")),
                  Write("priority", ("tier",), False, lambda r, c, a: _priority(c["tier"])))),
        Template("warranty", ("warranty", "region"),
                 (Stage("order_lookup", (), lambda r, c, o: {"order_id": r["order_id"]}),
                  Stage("warranty_claim", ("warranty",),
                        lambda r, c, o: {"warranty": c["warranty"], "item": o[0].get("item"),
                                         "days": o[0].get("days")})),
                 (), lambda r, c, o: dict(o[1]), lambda rng, w: {"order_id": rng.choice(sorted(w.data["orders"]))}),
        Template("callback", ("channel", "contact_time", "language", "tier"),
                 (Stage("schedule_callback", ("channel", "contact_time", "language"),
                        lambda r, c, o: {"channel": c["channel"], "time": c["contact_time"],
                                         "language": c["language"]}),),
                 (), lambda r, c, o: dict(o[0]), lambda rng, w: {}),
        Template("ticket_followup", (),
                 (Stage("ticket_status", ("ref",), lambda r, c, o: {"ticket_id": c["ref"]}),),
                 (), lambda r, c, o: dict(o[0]), lambda rng, w: {}, history="ticket"),
    )},
)

DOMAINS: dict[str, Domain] = {d.name: d for d in (TRAVEL, SHOPPING, SERVICE)}


# ---------------------------------------------------------------------------------------------
# the one step function: the original run and every replay compute payloads with it


@dataclass(frozen=True)
class Input:
    edge: str
    node_kind: str  # 'step' or 'belief'
    payload: JSON


@dataclass
class Output:
    payload: JSON
    reads: list[uuid.UUID] = field(default_factory=list)
    writes: list[tuple[str, str, str, str]] = field(default_factory=list)  # subject, attribute, value, kind


def read_memory(memory: MemoryLike, subject: str, fields: Sequence[str],
                summary: str | None) -> tuple[JSON, list[uuid.UUID]]:
    """Retrieve ``fields``: from the summary when there is one, else each from its own memory."""
    if summary is not None:
        found = memory.get(subject, summary)
        if found is not None:
            values = json.loads(found[1])
            return {f: values.get(f) for f in fields}, [found[0]]
    values: JSON = {}
    reads = []
    for f in fields:
        got = memory.get(subject, f)
        values[f] = got[1] if got is not None else None
        if got is not None:
            reads.append(got[0])
    return values, reads


def execute(world: World, kind: str, payload: JSON, inputs: Sequence[Input], memory: MemoryLike) -> Output:
    """The payload of a step from its (static) payload, its inputs' payloads and the memory."""
    domain = DOMAINS[world.domain]
    steps = [i.payload for i in inputs if i.node_kind == "step" and i.edge != "supports"]
    by_op: dict[str, list[JSON]] = {}
    for p in steps:
        by_op.setdefault(p.get("op", ""), []).append(p)
    request = by_op["input"][0]["request"] if "input" in by_op else {}
    claims = {c["as"]: c["value"] for c in by_op.get("claim", [])}
    observations = [o["result"] for o in sorted(by_op.get("observe", []), key=lambda o: o["stage"])]
    op = payload["op"]
    template = domain.templates.get(payload.get("template", ""))
    out = dict(payload)
    if op == "input":
        return Output(out)
    if op == "read":
        values, reads = read_memory(memory, payload["subject"], payload["fields"], payload.get("summary"))
        out["values"] = values
        return Output(out, reads)
    if op == "claim":
        value = by_op["read"][0]["values"].get(payload["field"])
        if payload["as"] == "ref" and value is not None:  # notes are stored as JSON
            value = json.loads(value)
        out["value"] = value
        return Output(out)
    if op == "plan":
        if payload["template"] == "_lookup":
            out.update(tool=domain.lookup, args={"user": world.subject})
        else:
            assert template is not None
            stage = template.stages[payload["stage"]]
            out.update(tool=stage.tool, args=stage.args(request, claims, observations))
        return Output(out)
    if op == "call":
        plan = by_op["plan"][0]
        out.update(tool=plan["tool"], args=plan["args"])
        return Output(out)
    if op == "observe":
        call = by_op["call"][0]
        out["result"] = domain.tools[call["tool"]](world, call["args"])
        return Output(out)
    if op == "answer":
        if payload["template"] == "_lookup":
            out["answer"] = {"account": "checked", "fields": sorted(observations[0]["record"])}
        else:
            assert template is not None
            out["answer"] = template.answer(request, claims, observations)
        return Output(out)
    if op == "write":
        assert template is not None
        write = template.writes[payload["index"]]
        answer = by_op["answer"][0]["answer"] if "answer" in by_op else {}
        value = write.value(request, claims, answer)
        return Output(out, writes=[(payload["subject"], payload["attribute"], json.dumps(value), "event")])
    if op == "fact":
        return Output(out, writes=[(payload["subject"], payload["field"], request["facts"][payload["field"]],
                                    "preference")])
    if op == "consolidate":
        values = by_op["read"][0]["values"]
        return Output(out, writes=[(payload["subject"], payload["attribute"], json.dumps(values, sort_keys=True),
                                    "other")])
    raise ValueError(f"unknown op {op!r}")


# ---------------------------------------------------------------------------------------------
# the agent


def note_attribute(kind: str, session: int, task: int) -> str:
    return f"{kind}:s{session}t{task}"


def history_before(domain: Domain, sessions: Sequence[Sequence[Task]]) -> dict[str, tuple[int, str]]:
    """What the agent's ``history`` is after ``sessions``: note kind -> (session, attribute) of the latest."""
    history: dict[str, tuple[int, str]] = {}
    for k, tasks in enumerate(sessions, start=1):
        for i, task in enumerate(tasks):
            template = domain.templates.get(task.template)
            for w in template.writes if template is not None else ():
                history[w.kind] = (k, note_attribute(w.kind, k, i))
    return history


@dataclass(frozen=True)
class Task:
    template: str  # a template name, or "_onboard" / "_lookup"
    request: JSON


class Recorder(Protocol):
    id: uuid.UUID

    def step(self, kind: str, payload: JSON, *, inputs: Sequence[tuple[str, uuid.UUID]] = (),
             supports: Sequence[uuid.UUID] = ()) -> uuid.UUID: ...

    def memory(self, step: uuid.UUID, subject: str, attribute: str, value: str, *, kind: str = "fact") -> uuid.UUID:
        ...


Drift = dict[str, tuple[str, str]]  # summary attribute -> (field, the value the summary drifts to)


class Agent:
    """Runs sessions of tasks, recording every step through ``recorder``; ``memory`` is what it reads."""

    def __init__(self, world: World, memory: MemoryLike, drift: Drift | None = None) -> None:
        self.world = world
        self.domain = DOMAINS[world.domain]
        self.memory = memory
        self.drift = drift or {}
        self.payloads: dict[uuid.UUID, JSON] = {}
        self.rec: Recorder | None = None

    def _do(self, kind: str, payload: JSON, inputs: list[tuple[str, uuid.UUID]],
            supports: Callable[[JSON], list[uuid.UUID]] | None = None) -> tuple[uuid.UUID, JSON]:
        assert self.rec is not None
        out = execute(self.world, kind, payload, [Input(e, "step", self.payloads[n]) for e, n in inputs], self.memory)
        sid = self.rec.step(kind, out.payload, inputs=inputs + [("reads", m) for m in out.reads],
                            supports=supports(out.payload) if supports else ())
        self.payloads[sid] = out.payload
        for subject, attribute, value, mkind in out.writes:
            if attribute in self.drift:  # the summariser gets one field wrong
                key, wrong = self.drift[attribute]
                values = json.loads(value)
                values[key] = wrong
                value = json.dumps(values, sort_keys=True)
            self.rec.memory(sid, subject, attribute, value, kind=mkind)
        return sid, out.payload

    def session(self, recorder: Recorder, k: int, tasks: Sequence[Task], history: dict[str, tuple[int, str]],
                consolidate: bool) -> JSON | None:
        """One session (one run). ``history``: note kind -> (session, attribute) of the latest note
        of that kind an earlier session wrote (updated at the end). Returns the payload of the session's last answer."""
        self.rec = recorder
        subject = self.world.subject
        records: list[tuple[uuid.UUID, JSON]] = []
        notes: list[str] = []
        written: dict[str, tuple[int, str]] = {}
        last: JSON | None = None
        for i, task in enumerate(tasks):
            slot = f"s{k}t{i}"
            u, _ = self._do("user_input", {"op": "input", "slot": slot, "template": task.template,
                                           "request": task.request}, [])
            if task.template == "_onboard":
                for f in self.domain.fields:
                    self._do("memory_write", {"op": "fact", "slot": f"{slot}.{f}", "subject": subject, "field": f},
                             [("cites", u)])
                continue
            if task.template == "_lookup":
                p, _ = self._do("plan", {"op": "plan", "slot": f"{slot}.plan0", "template": "_lookup", "stage": 0},
                                [("initiates", u)])
                c, _ = self._do("tool_call", {"op": "call", "slot": f"{slot}.call0"}, [("initiates", p)])
                o, op = self._do("observation", {"op": "observe", "slot": f"{slot}.obs0", "stage": 0},
                                 [("produces", c)])
                records.append((o, op["result"]["record"]))
                _, last = self._do("answer", {"op": "answer", "slot": f"{slot}.answer", "template": "_lookup"},
                                   [("initiates", u), ("cites", o)])
                continue
            t = self.domain.templates[task.template]
            claims: dict[str, uuid.UUID] = {}
            if t.history is not None:
                earlier, note = history[t.history]
                fields: tuple[str, ...] = (note,)
                summary: str | None = f"summary:s{earlier}"
            else:
                fields, summary = t.fields, None
            r, _ = self._do("memory_read", {"op": "read", "slot": f"{slot}.read", "subject": subject,
                                            "fields": list(fields), "summary": summary}, [])
            for f in fields:
                alias = "ref" if t.history is not None else f

                def agree(p: JSON, f: str = f) -> list[uuid.UUID]:
                    # a tool observation that says the same independently supports the claim
                    return [o for o, rec in records if f in rec and rec[f] == p["value"]]

                claims[alias], _ = self._do("claim", {"op": "claim", "slot": f"{slot}.claim.{f}", "field": f,
                                                      "as": alias}, [("cites", r)], agree)
            observed: list[uuid.UUID] = []
            for n, stage in enumerate(t.stages):
                p, _ = self._do("plan", {"op": "plan", "slot": f"{slot}.plan{n}", "template": t.name, "stage": n},
                                [("initiates", u)] + [("cites", claims[c]) for c in stage.uses]
                                + [("cites", o) for o in observed])
                c, _ = self._do("tool_call", {"op": "call", "slot": f"{slot}.call{n}"}, [("initiates", p)])
                o, _ = self._do("observation", {"op": "observe", "slot": f"{slot}.obs{n}", "stage": n},
                                [("produces", c)])
                observed.append(o)
            a, last = self._do("answer", {"op": "answer", "slot": f"{slot}.answer", "template": t.name},
                               [("initiates", u)] + [("cites", claims[c]) for c in t.answer_uses]
                               + [("cites", o) for o in observed])
            for n, w in enumerate(t.writes):
                attribute = note_attribute(w.kind, k, i)
                self._do("memory_write", {"op": "write", "slot": f"{slot}.write{n}", "template": t.name, "index": n,
                                          "subject": subject, "attribute": attribute},
                         [("cites", u)] + [("cites", claims[c]) for c in w.uses] + ([("cites", a)] if w.from_answer
                                                                                     else []))
                notes.append(attribute)
                written[w.kind] = (k, attribute)
        if consolidate and notes:
            slot = f"s{k}.summary"
            r, _ = self._do("memory_read", {"op": "read", "slot": f"{slot}.read", "subject": subject,
                                            "fields": notes, "summary": None}, [])
            self._do("memory_write", {"op": "consolidate", "slot": slot, "subject": subject,
                                      "attribute": f"summary:s{k}"}, [("consolidates", r)])
        history.update(written)  # later sessions act on what this one did
        return last
