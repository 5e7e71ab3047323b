"""Writes the conversation-memory evaluation's data (issue 20): data/conversations.jsonl and
data/questions.jsonl. The committed files are what the evaluation reads; this script only says how
they were made (run it again to get the same bytes).

    pip install chitchat-dataset==0.9.0   # MIT; only to regenerate, not a dependency
    python bench/conversations/make_data.py

Each conversation is two people chatting over five or six dated sessions spread over months. Two
kinds of turns are mixed:

* **fact turns**, written here (templates with several phrasings each, chosen with a fixed seed):
  things people say about themselves, their family and plans, some in passing, some changed later
  ("we moved to Porto", "actually it's green tea now"), some split over a question and a short
  answer;
* **chit-chat turns**, human-written: consecutive messages of one real conversation of the BYU
  PCC lab's Chit-Chat Challenge dataset (the ``chitchat-dataset`` package on PyPI, MIT licence,
  7,168 conversations), given to the two speakers in turn. Messages that touch what the questions
  ask about (homes, jobs, children, pets, cars, drinks, sports, trips, allergies, instruments,
  family...) are left out, so no chit-chat line can contradict a gold answer.

Questions are asked after the last session, in four categories: ``knowledge_update`` (the value
changed; ``stale`` lists the old values that must not be presented as current), ``temporal`` ("when
did X", "what was X before Y"), ``single`` (said once) and ``multi_turn`` (the answer needs a
question and its short reply). Each has gold answer strings and gold evidence turn ids.
Conversations whose number is divisible by 3 are the held-out split.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SEED = 20
CONVERSATIONS = 45

USERS = ["Maya", "Jonas", "Priya", "Lukas", "Amara", "Tomasz", "Elena", "Kofi", "Sofia", "Henrik", "Aiko",
         "Mateo", "Ingrid", "Ravi", "Chloe", "Dmitri", "Fatima", "Oliver", "Yuki", "Bruno", "Leila", "Nils",
         "Camila", "Emeka", "Hanna", "Diego", "Zara", "Pavel", "Greta", "Samir", "Noor", "Felix", "Lucia",
         "Arjun", "Freya", "Marco", "Ines", "Kenji", "Astrid", "Omar", "Clara", "Viktor", "Mei", "Rafael",
         "Selin"]
FRIENDS = ["Sam", "Alex", "Robin", "Charlie", "Jamie", "Kim", "Noa", "Sasha", "Toni", "Lou", "Kai", "Remy"]

CITIES = ["Berlin", "Lisbon", "Porto", "Leeds", "Utrecht", "Graz", "Bilbao", "Tampere", "Cork", "Turin", "Nantes",
          "Ghent", "Aarhus", "Brno", "Krakow", "Seville"]
EMPLOYERS = ["Acme Logistics", "Globex", "Initech", "Nordwind", "Bluefin Labs", "Kestrel Health", "Maple Software",
             "Vireo Bank", "Helix Energy", "Corvid Games", "Solaris Media", "Tundra Foods"]
ROLES = ["data analyst", "product manager", "backend developer", "accountant", "UX designer", "sales lead"]
KIDS = ["Lily", "Noah", "Emma", "Leo", "Mila", "Finn", "Ava", "Theo", "Nora", "Milo"]
PLANS = ["monthly", "annual", "family", "student"]
SERVICES = ["the streaming service", "the gym", "the music app", "the cloud storage"]
DRINKS = ["flat white", "espresso", "cappuccino", "green tea", "chai latte", "oat latte", "mint tea", "rooibos"]
CARS = ["Golf", "Fiat Panda", "Tesla Model 3", "Volvo V60", "Toyota Yaris", "Skoda Octavia", "Renault Zoe",
        "Mazda MX-5"]
SPORTS = ["tennis", "padel", "badminton", "squash", "volleyball", "climbing", "swimming", "rowing"]
TRIPS = ["Japan", "Iceland", "Morocco", "Norway", "Greece", "Canada", "Mexico", "Vietnam"]
PETS = ["Biscuit", "Pepper", "Miso", "Luna", "Rocket", "Tofu", "Juno", "Waffles", "Pickle", "Mochi"]
INSTRUMENTS = ["cello", "ukulele", "saxophone", "piano", "violin", "drums", "banjo", "trumpet"]
SIBLINGS = ["brother", "sister"]
SIBLING_NAMES = ["Tom", "Anna", "Ben", "Julia", "Max", "Lena", "Ivan", "Rosa"]
JOBS_B = ["nurse", "architect", "teacher", "carpenter", "pharmacist", "translator", "pilot", "chef"]
ALLERGIES = ["peanuts", "shellfish", "kiwi", "sesame", "hazelnuts", "strawberries"]

# chit-chat messages that mention any of these are left out (they could contradict a gold answer)
TOPIC = re.compile(
    r"\b(live[sd]?|living|moved?|moving|city|town|home|house|apartment|job|work(s|ed|ing)?|company|office|boss|"
    r"daughter|son|kids?|child(ren)?|baby|dog|cat|pets?|puppy|plan|subscription|car|drive|driving|coffee|tea|"
    r"latte|drink|favou?rite|tennis|padel|sport|gym|play(s|ing)?|trip|travel|vacation|holiday|allerg\w*|"
    r"instrument|guitar|piano|brother|sister|wife|husband|partner|mom|dad|mother|father|family|old|age|born|"
    r"name|nurse|teacher|chef|pilot|architect|http)\b", re.I)
TOPIC_NAMES = re.compile("|".join(re.escape(w) for w in CITIES + EMPLOYERS + TRIPS + PETS + KIDS + SIBLING_NAMES))

GREETINGS = [("Hey {B}! Long time no chat.", "Hi {A}! Good to hear from you."),
             ("Morning {B}, got a minute?", "Sure, what's up?"),
             ("Hi there, how was your week?", "Busy, but good. Yours?"),
             ("Evening! Are you around?", "Yep, just got home."),
             ("Hey, quick catch-up?", "Always. How are things?")]


@dataclass
class Slot:
    """One thing said about a person, with its first value, later values (if any) and their turns."""

    name: str
    values: list[str]
    turns: list[str] = field(default_factory=list)  # the turn id stating each value
    dates: list[str] = field(default_factory=list)
    extra: dict[str, str] = field(default_factory=dict)


# (first statement templates, update templates). {v} is the value, {o} the value before, {x} extras
SAY: dict[str, tuple[list[str], list[str]]] = {
    "city": (["I live in {v} these days, right by the river.",
              "Life in {v} is treating me well so far.",
              "Yeah, I'm based in {v} now, the rent is fine."],
             ["Big news: we moved to {v} last weekend!",
              "I finally moved to {v}, boxes everywhere.",
              "Actually we relocated to {v} a couple of weeks ago, I love it."]),
    "employer": (["I work at {v} as a {x[role]}.",
                  "Still at {v}, doing {x[role]} stuff, nothing new.",
                  "My job at {v} keeps me busy, I'm their {x[role]}."],
                 ["I switched jobs, I'm at {v} now.",
                  "Started my new job at {v} on Monday!",
                  "I left {o}; {v} made me an offer and I took it."]),
    "kid_age": (["My daughter {x[kid]} is {v} now, she never stops talking.",
                 "{x[kid]} is {v}, so every question starts with why.",
                 "My daughter {x[kid]} just started school, she's {v}."],
                ["{x[kid]} turned {v} last week, we had a huge party.",
                 "Can you believe {x[kid]} is {v} already? Birthday was on Sunday.",
                 "My daughter is {v} now, the party was chaos."]),
    "plan": (["We're on the {v} plan for {x[service]}.",
              "For {x[service]} we pay the {v} plan, it's okay.",
              "I signed up for {x[service]} on the {v} plan."],
             ["We switched to the {v} plan for {x[service]}, cheaper in the long run.",
              "Oh and we moved {x[service]} over to the {v} plan.",
              "Changed {x[service]} to the {v} plan last month."]),
    "drink": (["My go-to drink is a {v}, every single morning.",
               "Nothing beats a {v} before work.",
               "I'm a {v} person, always have been."],
              ["Actually I've gone off {o}, it's {v} now.",
               "I switched to {v}, my stomach likes it better.",
               "These days my go-to is {v}, believe it or not."]),
    "car": (["I still drive the old {v}, it refuses to die.",
             "The {v} is parked outside, it's my daily car.",
             "Took the {v} to the coast, good little car."],
            ["Sold the {o} and bought a {v}!",
             "We finally replaced the car, it's a {v} now.",
             "I drive a {v} these days, the {o} is gone."]),
    "sport": (["I play {v} every Tuesday with my neighbours.",
               "{v} on Thursdays keeps me sane.",
               "I've been doing {v} twice a week."],
              ["I've switched from {o} to {v}, my knees thank me.",
               "I quit {o}, it's {v} now.",
               "These days I do {v} instead, joined a club."]),
    "trip": (["We're planning to go to {v} in August.",
              "Summer plan: two weeks in {v}.",
              "We booked nothing yet but it'll be {v} this summer."],
             ["Change of plans: we're going to {v} instead.",
              "Scrap the old idea, the summer trip is {v} now.",
              "We cancelled {o}, flights to {v} are booked."]),
}
QUESTIONS: dict[str, tuple[list[str], str, str]] = {
    # (current-value questions, "before" question, "when" question)
    "city": (["Where does {A} live now?", "Which city is {A} living in?"],
             "Where did {A} live before moving to {v}?", "When did {A} move to {v}?"),
    "employer": (["Where does {A} work now?", "Who is {A}'s current employer?"],
                 "Where did {A} work before {v}?", "When did {A} start at {v}?"),
    "kid_age": (["How old is {A}'s daughter {x[kid]}?", "What age is {x[kid]} now?"],
                "How old was {x[kid]} before her birthday?", "When did {x[kid]} turn {v}?"),
    "plan": (["Which plan is {A} on for {x[service]}?", "What plan does {A} have for {x[service]}?"],
             "Which plan did {A} have for {x[service]} before the {v} plan?",
             "When did {A} switch {x[service]} to the {v} plan?"),
    "drink": (["What is {A}'s go-to drink these days?", "What does {A} drink in the morning now?"],
              "What did {A} drink before switching to {v}?", "When did {A} switch to {v}?"),
    "car": (["What car does {A} drive now?", "Which car does {A} have?"],
            "What car did {A} drive before the {v}?", "When did {A} get the {v}?"),
    "sport": (["Which sport does {A} do now?", "What sport is {A} into?"],
              "Which sport did {A} do before {v}?", "When did {A} start {v}?"),
    "trip": (["Where is {A}'s summer trip going?", "Where is {A} travelling this summer?"],
             "Where did {A} first plan to go this summer?", "When did {A} change the summer trip to {v}?"),
}


def chitchat() -> list[list[tuple[int, str]]]:
    """Real conversations as lists of (speaker 0/1, message), off-topic messages left out."""
    import chitchat_dataset  # type: ignore[import-not-found,import-untyped,unused-ignore]

    out = []
    for key in sorted(data := chitchat_dataset.Dataset()):
        senders: dict[str, int] = {}
        msgs = []
        for group in data[key]["messages"]:
            for m in group:
                who = senders.setdefault(m["sender"], len(senders))
                text = " ".join(m["text"].split())
                if who > 1 or not 3 <= len(text) <= 160 or TOPIC.search(text) or TOPIC_NAMES.search(text):
                    continue
                msgs.append((who, text))
        if len(msgs) >= 12:
            out.append(msgs)
    return out


class Writer:
    """Turns of one conversation, numbered, with the time advancing within each session."""

    def __init__(self, cid: str, a: str, b: str) -> None:
        self.cid, self.names = cid, (a, b)
        self.turns: list[dict[str, Any]] = []
        self.now = datetime(2023, 1, 1)

    def session(self, start: datetime) -> None:
        self.now = start

    def say(self, who: int, text: str, rng: random.Random, *, written: bool = True) -> str:
        if written:  # "a architect" -> "an architect" (chit-chat is left as its authors wrote it)
            text = re.sub(r"\b([Aa]) ([aeio])", r"\1n \2", text)
        self.now += timedelta(seconds=rng.randint(20, 200))
        tid = f"{self.cid}-t{len(self.turns) + 1:03d}"
        self.turns.append({"id": tid, "speaker": self.names[who], "time": self.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "text": text})
        return tid


def fill(text: str, slot: Slot, v: str, o: str = "") -> str:
    return text.format(v=v, o=o, x=slot.extra)


def conversation(n: int, rng: random.Random, chat: list[list[tuple[int, str]]]) -> tuple[dict[str, Any],
                                                                                       list[dict[str, Any]]]:
    cid = f"c{n:02d}"
    a, b = USERS[n - 1], rng.choice(FRIENDS)
    w = Writer(cid, a, b)
    pools = {"city": CITIES, "employer": EMPLOYERS, "kid_age": [str(i) for i in range(3, 11)], "plan": PLANS,
             "drink": DRINKS, "car": CARS, "sport": SPORTS, "trip": TRIPS}
    names = rng.sample(sorted(pools), 6)
    updated = names[:4]  # four change once; of those, one changes twice
    slots: dict[str, Slot] = {}
    for name in names:
        extra = {"role": rng.choice(ROLES), "kid": rng.choice(KIDS), "service": rng.choice(SERVICES)}
        if name == "kid_age":
            age = rng.randint(3, 8)
            values = [str(age), str(age + 1), str(age + 2)]
        else:
            values = rng.sample(pools[name], 3)
        count = (3 if name == updated[0] else 2) if name in updated else 1
        slots[name] = Slot(name, values[:count], extra=extra)
    # said once, about other people or in passing
    sib, sib_name, sib_city = rng.choice(SIBLINGS), rng.choice(SIBLING_NAMES), rng.choice(CITIES)
    job_b, allergy = rng.choice(JOBS_B), rng.choice(ALLERGIES)
    pet, instrument = rng.choice(PETS), rng.choice(INSTRUMENTS)

    n_sessions = rng.choice([5, 6])
    start = datetime(2023, rng.randint(1, 6), rng.randint(1, 28), rng.randint(17, 21), rng.randint(0, 59))
    # what is said in which session: first values in sessions 1-2, changes in 3..n, second changes last
    plan: list[list[tuple[str, Any]]] = [[] for _ in range(n_sessions)]
    for i, name in enumerate(names):
        plan[i % 2].append(("first", name))
    for i, name in enumerate(updated):
        plan[2 + i % (n_sessions - 3)].append(("update", (name, 1)))
    plan[n_sessions - 1].append(("update", (updated[0], 2)))
    passing = [("sibling", None), ("job_b", None), ("allergy", None), ("pet", None), ("instrument", None)]
    for p in passing:
        plan[rng.randrange(n_sessions)].append(p)
    gold: dict[str, Any] = {}
    convo = rng.choice(chat)
    pos = 0
    when = start
    for s in range(n_sessions):
        w.session(when)
        hi, reply = rng.choice(GREETINGS)
        w.say(0, hi.format(A=a, B=b), rng)
        w.say(1, reply.format(A=a, B=b), rng)
        items = plan[s][:]
        rng.shuffle(items)
        n_chat = rng.randint(6, 10)
        # chit-chat is cut into runs between the fact turns
        cuts = sorted(rng.sample(range(n_chat + 1), min(len(items), n_chat + 1))) if items else []
        done = 0
        for k, item in enumerate(items):
            for _ in range(cuts[k] - done):
                if pos >= len(convo):
                    convo, pos = rng.choice(chat), 0
                who, text = convo[pos]
                pos += 1
                w.say(who, text, rng, written=False)
            done = cuts[k]
            kind, what = item
            if kind == "first":
                slot = slots[what]
                text = fill(rng.choice(SAY[what][0]), slot, slot.values[0])
                slot.turns.append(w.say(0, text, rng))
                slot.dates.append(w.now.strftime("%Y-%m-%d"))
            elif kind == "update":
                name, idx = what
                slot = slots[name]
                text = fill(rng.choice(SAY[name][1]), slot, slot.values[idx], slot.values[idx - 1])
                if rng.random() < 0.3:
                    w.say(1, rng.choice(["Anything new with you?", "So what's new?", "Tell me everything."]), rng)
                slot.turns.append(w.say(0, text, rng))
                slot.dates.append(w.now.strftime("%Y-%m-%d"))
            elif kind == "sibling":
                t = w.say(0, rng.choice([
                    f"My {sib} {sib_name} is visiting from {sib_city} next week.",
                    f"Talked to {sib_name} last night, my {sib} in {sib_city} says hi.",
                    f"Ugh, my {sib} {sib_name} wants me to fly to {sib_city} again, that's where they live."]), rng)
                gold["sibling"] = t
            elif kind == "job_b":
                w.say(0, rng.choice(["How is work treating you?", "Still enjoying your job?"]), rng)
                t = w.say(1, rng.choice([f"I'm a {job_b} at a small place near the station, long shifts.",
                                         f"Being a {job_b} is tiring this month, but I like it.",
                                         f"Fine! I've been working as a {job_b} for six years now."]), rng)
                gold["job_b"] = t
            elif kind == "allergy":
                w.say(1, rng.choice(["Want to try the new Thai place?", "I'm baking this weekend, want some?"]), rng)
                t = w.say(0, rng.choice([f"Sure, as long as there's nothing with {allergy}, I'm allergic.",
                                         f"Count me in, just keep the {allergy} away from me, allergy."]), rng)
                gold["allergy"] = t
            elif kind == "pet":
                q = w.say(1, rng.choice(["So what did you name the puppy?", "Did the puppy get a name yet?"]), rng)
                t = w.say(0, rng.choice([f"{pet}. He's already chewing everything.",
                                         f"We went with {pet}!", f"{pet}, the kids picked it."]), rng)
                gold["pet"] = [t, q]
            elif kind == "instrument":
                q = w.say(1, rng.choice(["Which instrument did you pick in the end?",
                                         "What are you learning at the music school?"]), rng)
                t = w.say(0, rng.choice([f"The {instrument}, finally.",
                                         f"{instrument.capitalize()}! Lessons on Fridays.",
                                         f"Going with the {instrument}, wish me luck."]), rng)
                gold["instrument"] = [t, q]
        for _ in range(n_chat - done):
            if pos >= len(convo):
                convo, pos = rng.choice(chat), 0
            who, text = convo[pos]
            pos += 1
            w.say(who, text, rng, written=False)
        when = when + timedelta(days=rng.randint(21, 60), minutes=rng.randint(-120, 120))

    questions: list[dict[str, Any]] = []

    def ask(category: str, text: str, answers: list[str], evidence: list[str], stale: list[str] | None = None,
            slot: str = "") -> None:
        questions.append({"id": f"{cid}-q{len(questions) + 1:02d}", "conversation": cid, "category": category,
                          "slot": slot, "question": text, "answers": answers, "evidence": evidence,
                          "stale": stale or []})

    for name in names:
        slot = slots[name]
        current, before, when_q = QUESTIONS[name]
        last = len(slot.values) - 1
        q = fill(rng.choice(current).replace("{A}", a), slot, slot.values[last])
        if last:
            ask("knowledge_update", q, [slot.values[last]], [slot.turns[last]], slot.values[:last], name)
            # one temporal question per changed slot: when it changed, or what it was before
            if rng.random() < 0.5:
                month = slot.dates[last][:7]
                ask("temporal", fill(when_q.replace("{A}", a), slot, slot.values[last]),
                    [month, datetime.strptime(month, "%Y-%m").strftime("%B %Y")], [slot.turns[last]], slot=name)
            else:
                ask("temporal", fill(before.replace("{A}", a), slot, slot.values[last]),
                    [slot.values[last - 1]], [slot.turns[last - 1]], slot=name)
        else:
            ask("single", q, [slot.values[0]], [slot.turns[0]], slot=name)
    ask("single", f"Where does {a}'s {sib} live?", [sib_city], [gold["sibling"]], slot="sibling")
    ask("single", f"What does {b} do for work?", [job_b], [gold["job_b"]], slot="job_b")
    ask("single", f"What is {a} allergic to?", [allergy], [gold["allergy"]], slot="allergy")
    ask("multi_turn", f"What is the name of {a}'s puppy?", [pet], gold["pet"], slot="pet")
    ask("multi_turn", f"Which instrument is {a} learning?", [instrument], gold["instrument"], slot="instrument")
    split = "heldout" if n % 3 == 0 else "dev"
    return {"id": cid, "split": split, "speakers": [a, b], "turns": w.turns}, [
        {**q, "split": split} for q in questions]


def main() -> None:
    rng = random.Random(SEED)
    chat = chitchat()
    DATA.mkdir(exist_ok=True)
    convs, qs = [], []
    for n in range(1, CONVERSATIONS + 1):
        c, q = conversation(n, rng, chat)
        convs.append(c)
        qs += q
    with open(DATA / "conversations.jsonl", "w") as f:
        for c in convs:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    with open(DATA / "questions.jsonl", "w") as f:
        for q in qs:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    turns = sum(len(c["turns"]) for c in convs)
    print(f"{len(convs)} conversations, {turns} turns, {len(qs)} questions")


if __name__ == "__main__":
    main()
