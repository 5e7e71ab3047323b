"""The labelled corpus of the retrieval benchmark: documents, conversations and their later versions,
and 100 questions with the belief that is current when they are asked.

Everything is written here by hand or from small templates, and loaded through the real API
(``ingest_text`` with candidates, ``retract``), so evidence, supersession (a later version of a
source, a later conversation, a higher authority), conflicts (equal authority, same start of valid
time), scopes and fixture labels are the product's own.

Kinds of questions (``Question.kind``):

* ``plain`` — the answer is the only belief on its subject and attribute;
* ``stale_closer`` — a superseded (older) value is textually closer to the question than the
  current one (the question repeats the old wording or the old value);
* ``scoped`` — asked with a scope (``{"region": ...}``): only the belief of that region applies;
* ``conflict`` — two current beliefs tie (rule 8): either value is a right top answer;
* ``fixture`` — a fixture (test data) belief is textually closest; the production one is expected;
* ``retracted`` — a poisoned source superseded the truth and was retracted: the older belief is
  current again and the poisoned one must never come back;
* ``multilingual`` — belief and/or question in another language.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from beliefdb.db.connector import Database
from beliefdb.store import ingest
from beliefdb.text.extractor import Candidate


@dataclass(frozen=True)
class Claim:
    statement: str  # also the quote: the document's line
    subject: str
    attribute: str
    value: str
    kind: str = "fact"
    scope: Mapping[str, str] = field(default_factory=dict, hash=False)
    valid_from: str | None = None


@dataclass(frozen=True)
class Doc:
    """One version of a source. ``claims`` are the beliefs this version proposes; ``keep`` are
    lines repeated from the previous version (their beliefs keep their support, rule 2)."""

    source: str
    claims: tuple[Claim, ...]
    keep: tuple[str, ...] = ()
    authority: str = "official"
    label: str = "production"
    origin: str = "document"
    version_label: str | None = None

    @property
    def text(self) -> str:
        return "\n".join([*self.keep, *(c.statement for c in self.claims)]) + "\n"


@dataclass(frozen=True)
class Retract:
    source: str
    reason: str


@dataclass(frozen=True)
class Question:
    text: str
    subject: str
    attribute: str
    values: tuple[str, ...]  # any of these is a right answer (two for a conflict)
    kind: str = "plain"
    scope: Mapping[str, str] | None = None


Step = Doc | Retract

# ---------------------------------------------------------------------------------------------
# products: a catalogue (official), v1 then v2 with new prices and warranties

PRODUCTS = [  # name, subject, price, battery, weight, warranty
    ("Aurora X2 headphones", "aurora_x2", "129 euros", "30 hours", "250 grams", "2 years"),
    ("Borealis mini speaker", "borealis_mini", "59 euros", "12 hours", "400 grams", "1 year"),
    ("Cygnus smartwatch", "cygnus_watch", "199 euros", "5 days", "48 grams", "2 years"),
    ("Draco e-reader", "draco_reader", "139 euros", "6 weeks", "190 grams", "1 year"),
    ("Eridanus action camera", "eridanus_cam", "249 euros", "2 hours", "120 grams", "1 year"),
    ("Fornax electric toothbrush", "fornax_brush", "79 euros", "3 weeks", "130 grams", "2 years"),
    ("Gemini robot vacuum", "gemini_vacuum", "349 euros", "120 minutes", "3.2 kilograms", "2 years"),
    ("Hydra power bank", "hydra_powerbank", "45 euros", "20000 mAh", "350 grams", "1 year"),
    ("Indus fitness tracker", "indus_tracker", "69 euros", "10 days", "25 grams", "1 year"),
    ("Lyra wireless earbuds", "lyra_earbuds", "89 euros", "8 hours", "50 grams", "1 year"),
    ("Mensa drone", "mensa_drone", "499 euros", "31 minutes", "570 grams", "1 year"),
    ("Norma laptop stand", "norma_stand", "39 euros", "no battery", "1.1 kilograms", "3 years"),
    ("Orion mechanical keyboard", "orion_keyboard", "119 euros", "4 weeks", "900 grams", "2 years"),
    ("Pavo wireless mouse", "pavo_mouse", "35 euros", "70 days", "85 grams", "2 years"),
    ("Quasar portable projector", "quasar_projector", "299 euros", "3 hours", "800 grams", "2 years"),
    ("Reticulum baby monitor", "reticulum_monitor", "109 euros", "18 hours", "300 grams", "1 year"),
]
NEW_PRICE = {"aurora_x2": "99 euros", "cygnus_watch": "179 euros", "draco_reader": "149 euros",
             "eridanus_cam": "219 euros", "gemini_vacuum": "299 euros", "lyra_earbuds": "79 euros",
             "mensa_drone": "449 euros", "quasar_projector": "329 euros"}
NEW_WARRANTY = {"borealis_mini": "2 years", "hydra_powerbank": "2 years", "indus_tracker": "2 years",
                "reticulum_monitor": "3 years"}


def _product_claims(name: str, subj: str, price: str, battery: str, weight: str, warranty: str) -> list[Claim]:
    battery_line = (f"The {name} has no battery." if battery == "no battery"
                    else f"The {name} battery lasts {battery}." if "mAh" not in battery
                    else f"The {name} has a capacity of {battery}.")
    return [Claim(f"The {name} costs {price}.", subj, "price", price),
            Claim(battery_line, subj, "battery", battery),
            Claim(f"The {name} weighs {weight}.", subj, "weight", weight),
            Claim(f"The {name} comes with a {warranty} warranty.", subj, "warranty", warranty)]


def _catalogue() -> list[Doc]:
    v1: list[Claim] = []
    keep: list[str] = []
    changed: list[Claim] = []
    for name, subj, price, battery, weight, warranty in PRODUCTS:
        claims = _product_claims(name, subj, price, battery, weight, warranty)
        v1 += claims
        new = _product_claims(name, subj, NEW_PRICE.get(subj, price), battery, weight,
                              NEW_WARRANTY.get(subj, warranty))
        for old, cur in zip(claims, new, strict=True):
            (keep.append(old.statement) if old == cur else changed.append(cur))
    return [Doc("catalogue.md", tuple(v1), version_label="2026-01"),
            Doc("catalogue.md", tuple(changed), keep=tuple(keep), version_label="2026-04")]


def _product_questions() -> list[Question]:
    out: list[Question] = []
    info = {p[1]: p for p in PRODUCTS}
    for subj, new in NEW_PRICE.items():
        name, _, old = info[subj][0], info[subj][1], info[subj][2]
        out.append(Question(f"Does the {name} cost {old}?", subj, "price", (new,), "stale_closer"))
    for subj, new in NEW_WARRANTY.items():
        name, old = info[subj][0], info[subj][5]
        out.append(Question(f"Is the {name} covered by a {old} warranty?", subj, "warranty", (new,),
                            "stale_closer"))
    plain = [("borealis_mini", "price", "How much is the {name}?"),
             ("fornax_brush", "battery", "How long does the {name} battery last?"),
             ("hydra_powerbank", "battery", "What is the capacity of the {name}?"),
             ("indus_tracker", "weight", "How heavy is the {name}?"),
             ("norma_stand", "warranty", "What warranty does the {name} have?"),
             ("orion_keyboard", "price", "What is the price of the {name}?"),
             ("pavo_mouse", "battery", "How many days does the {name} battery last?"),
             ("mensa_drone", "battery", "What is the flight time on one battery of the {name}?"),
             ("gemini_vacuum", "weight", "How much does the {name} weigh?"),
             ("quasar_projector", "warranty", "How long is the {name} warranty?"),
             ("cygnus_watch", "weight", "What is the weight of the {name}?"),
             ("reticulum_monitor", "price", "What does the {name} cost?")]
    column = {"price": 2, "battery": 3, "weight": 4, "warranty": 5}
    for subj, attr, template in plain:
        p = info[subj]
        value = {"price": NEW_PRICE, "warranty": NEW_WARRANTY}.get(attr, {}).get(subj, p[column[attr]])
        out.append(Question(template.format(name=p[0]), subj, attr, (value,)))
    return out


# ---------------------------------------------------------------------------------------------
# customers: preferences said in conversations (user authority); some change in a later chat

CUSTOMERS = [  # name, contact channel, delivery slot, language
    ("Alice Martin", "email", "mornings", "French"), ("Bruno Keller", "phone", "evenings", "German"),
    ("Chloe Dubois", "SMS", "weekends", "French"), ("Daniel Novak", "email", "afternoons", "Czech"),
    ("Elena Rossi", "WhatsApp", "mornings", "Italian"), ("Farid Haddad", "phone", "weekends", "Arabic"),
    ("Greta Lindqvist", "email", "evenings", "Swedish"), ("Hiro Tanaka", "SMS", "mornings", "Japanese"),
    ("Ines Moreau", "post", "afternoons", "French"), ("Jonas Berg", "email", "weekends", "Norwegian"),
    ("Karin Vogel", "phone", "mornings", "German"), ("Luis Ortega", "WhatsApp", "evenings", "Spanish"),
    ("Maya Cohen", "email", "afternoons", "Hebrew"), ("Nils Petersen", "SMS", "weekends", "Danish"),
    ("Olga Ivanova", "phone", "afternoons", "Russian"), ("Pablo Ruiz", "email", "mornings", "Spanish"),
    ("Quentin Lefebvre", "post", "evenings", "French"), ("Rosa Alves", "WhatsApp", "weekends", "Portuguese"),
    ("Sven Larsen", "email", "evenings", "Danish"), ("Tara Singh", "SMS", "afternoons", "Hindi"),
]
# later conversations: customer -> (attribute, new value)
CUSTOMER_CHANGES = {"Alice Martin": ("contact_channel", "SMS"), "Bruno Keller": ("delivery_slot", "mornings"),
                    "Chloe Dubois": ("contact_channel", "email"), "Elena Rossi": ("delivery_slot", "weekends"),
                    "Greta Lindqvist": ("contact_channel", "phone"), "Hiro Tanaka": ("language", "English"),
                    "Luis Ortega": ("contact_channel", "email"), "Olga Ivanova": ("delivery_slot", "mornings")}


def _slug(name: str) -> str:
    return "customer_" + name.lower().replace(" ", "_")


def _customer_claim(name: str, attribute: str, value: str) -> Claim:
    text = {"contact_channel": f"{name} prefers to be contacted by {value}.",
            "delivery_slot": f"{name} wants deliveries in the {value}." if value != "weekends"
            else f"{name} wants deliveries on weekends.",
            "language": f"{name} wants to be answered in {value}."}[attribute]
    return Claim(text, _slug(name), attribute, value, kind="preference")


def _customers() -> list[Doc]:
    docs = []
    for name, channel, slot, language in CUSTOMERS:
        claims = tuple(_customer_claim(name, a, v) for a, v in
                       (("contact_channel", channel), ("delivery_slot", slot), ("language", language)))
        docs.append(Doc(f"chat-{_slug(name)}-1", claims, authority="user", origin="conversation"))
    for name, (attribute, value) in CUSTOMER_CHANGES.items():
        docs.append(Doc(f"chat-{_slug(name)}-2", (_customer_claim(name, attribute, value),), authority="user",
                        origin="conversation"))
    return docs


def _customer_questions() -> list[Question]:
    out = []
    old = {c[0]: {"contact_channel": c[1], "delivery_slot": c[2], "language": c[3]} for c in CUSTOMERS}
    phrasing = {"contact_channel": "Should we contact {name} by {old}?",
                "delivery_slot": "Does {name} want deliveries in the {old}?",
                "language": "Should we answer {name} in {old}?"}
    for name, (attribute, value) in CUSTOMER_CHANGES.items():
        out.append(Question(phrasing[attribute].format(name=name, old=old[name][attribute]), _slug(name), attribute,
                            (value,), "stale_closer"))
    plain = [("Daniel Novak", "contact_channel", "How does {name} want to be contacted?"),
             ("Farid Haddad", "delivery_slot", "When does {name} want his deliveries?"),
             ("Ines Moreau", "contact_channel", "Which contact channel does {name} prefer?"),
             ("Jonas Berg", "language", "Which language does {name} want to be answered in?"),
             ("Karin Vogel", "delivery_slot", "What delivery time suits {name}?"),
             ("Maya Cohen", "language", "In which language should we reply to {name}?"),
             ("Pablo Ruiz", "contact_channel", "What is the preferred contact channel of {name}?"),
             ("Tara Singh", "delivery_slot", "When should deliveries to {name} arrive?")]
    for name, attribute, template in plain:
        out.append(Question(template.format(name=name), _slug(name), attribute, (old[name][attribute],)))
    return out


# ---------------------------------------------------------------------------------------------
# policies: documents in two versions; the second rewords some rules

POLICY_V1 = [  # source, subject, attribute, v1 statement, v1 value, v2 statement or None, v2 value
    ("return-policy.md", "return_policy", "window", "Returns are accepted within 7 days of delivery.", "7 days",
     "Returns are accepted within 15 days of delivery.", "15 days"),
    ("return-policy.md", "return_policy", "restocking_fee", "The restocking fee is 10% of the item price.", "10%",
     "Opened items are taken back with a restocking charge of 5 percent.", "5%"),
    ("return-policy.md", "return_policy", "refund_delay", "Refunds are issued within 14 days of receiving the return.",
     "14 days", None, None),
    ("return-policy.md", "refund_method", "method", "Refunds are paid back to the original payment method.",
     "original payment method", None, None),
    ("shipping-policy.md", "standard_shipping", "delivery_time", "Standard shipping takes 3 to 5 business days.",
     "3 to 5 business days", "With the new carrier, standard parcels arrive in 2 business days.",
     "2 business days"),
    ("shipping-policy.md", "free_shipping", "threshold", "Shipping is free for orders above 50 euros.", "50 euros",
     "Orders over 35 euros ship at no cost.", "35 euros"),
    ("shipping-policy.md", "express_delivery", "cutoff", "Express orders placed before 2 pm ship the same day.",
     "2 pm", None, None),
    ("shipping-policy.md", "international_shipping", "countries", "We ship to 27 countries in Europe.",
     "27 countries", None, None),
    ("warranty-policy.md", "warranty_claims", "deadline", "Warranty claims must be filed within 30 days of the fault.",
     "30 days", "A fault must be reported within 60 days to claim the warranty.", "60 days"),
    ("warranty-policy.md", "warranty_repair", "turnaround", "Warranty repairs are completed within 10 working days.",
     "10 working days", None, None),
    ("warranty-policy.md", "warranty_proof", "document", "A proof of purchase is required for every warranty claim.",
     "proof of purchase", None, None),
    ("privacy-policy.md", "data_retention", "period", "Customer data is kept for 5 years after the last order.",
     "5 years", "Customer records are deleted 3 years after the last purchase.", "3 years"),
    ("privacy-policy.md", "data_export", "delay", "Data export requests are answered within 30 days.", "30 days",
     None, None),
    ("privacy-policy.md", "marketing_consent", "default", "Marketing emails are sent only with explicit opt-in.",
     "opt-in", None, None),
    ("payment-policy.md", "payment_methods", "accepted", "We accept Visa, Mastercard and PayPal.",
     "Visa, Mastercard, PayPal", "We accept Visa, Mastercard, PayPal and Apple Pay.",
     "Visa, Mastercard, PayPal, Apple Pay"),
    ("payment-policy.md", "invoice_terms", "due", "Business invoices are due within 30 days.", "30 days",
     "Business invoices must be paid within 45 days.", "45 days"),
    ("payment-policy.md", "installments", "minimum", "Payment in installments is offered from 300 euros.",
     "300 euros", None, None),
    ("loyalty-policy.md", "loyalty_points", "rate", "Members earn 1 point per euro spent.", "1 point per euro",
     "Members earn 2 points for every euro they spend.", "2 points per euro"),
    ("loyalty-policy.md", "loyalty_expiry", "period", "Loyalty points expire after 12 months.", "12 months", None,
     None),
    ("loyalty-policy.md", "gift_wrapping", "fee", "Gift wrapping is free for members.", "free",
     "Gift wrapping costs 3 euros, also for members.", "3 euros"),
]


def _policies() -> list[Doc]:
    docs: list[Doc] = []
    sources = list(dict.fromkeys(p[0] for p in POLICY_V1))
    for source in sources:
        rows = [p for p in POLICY_V1 if p[0] == source]
        docs.append(Doc(source, tuple(Claim(p[3], p[1], p[2], p[4], kind="policy") for p in rows),
                        version_label="v1"))
    for source in sources:
        rows = [p for p in POLICY_V1 if p[0] == source]
        changed = tuple(Claim(p[5], p[1], p[2], p[6], kind="policy") for p in rows if p[5])
        if changed:
            docs.append(Doc(source, changed, keep=tuple(p[3] for p in rows if not p[5]), version_label="v2"))
    return docs


def _policy_questions() -> list[Question]:
    stale = [("Are returns accepted within 7 days of delivery?", "return_policy", "window", "15 days"),
             ("Is the restocking fee 10% of the item price?", "return_policy", "restocking_fee", "5%"),
             ("Does standard shipping take 3 to 5 business days?", "standard_shipping", "delivery_time",
              "2 business days"),
             ("Is shipping free for orders above 50 euros?", "free_shipping", "threshold", "35 euros"),
             ("Must warranty claims be filed within 30 days of the fault?", "warranty_claims", "deadline",
              "60 days"),
             ("Is customer data kept for 5 years after the last order?", "data_retention", "period", "3 years"),
             ("Are business invoices due within 30 days?", "invoice_terms", "due", "45 days"),
             ("Is gift wrapping free for members?", "gift_wrapping", "fee", "3 euros")]
    plain = [("How long do refunds take after you receive a return?", "return_policy", "refund_delay", "14 days"),
             ("How are refunds paid?", "refund_method", "method", "original payment method"),
             ("What is the cutoff time for same-day express shipping?", "express_delivery", "cutoff", "2 pm"),
             ("How many countries do we ship to?", "international_shipping", "countries", "27 countries"),
             ("How long does a warranty repair take?", "warranty_repair", "turnaround", "10 working days"),
             ("Which payment methods are accepted?", "payment_methods", "accepted",
              "Visa, Mastercard, PayPal, Apple Pay"),
             ("How many loyalty points do members earn per euro?", "loyalty_points", "rate", "2 points per euro"),
             ("When do loyalty points expire?", "loyalty_expiry", "period", "12 months")]
    return ([Question(q, s, a, (v,), "stale_closer") for q, s, a, v in stale]
            + [Question(q, s, a, (v,)) for q, s, a, v in plain])


# ---------------------------------------------------------------------------------------------
# operations: scoped rules per region, and unscoped runbook rules

REGIONS = ("EU", "US", "APAC")
SCOPED = [  # subject, attribute, template, values per region, question
    ("deploy_window", "hours", "In {region}, production deploys are allowed between {value}.",
     ("9:00 and 16:00 CET", "10:00 and 15:00 ET", "8:00 and 14:00 SGT"),
     "When are production deploys allowed?"),
    ("support_hours", "hours", "In {region}, customer support is open {value}.",
     ("8:00-20:00 CET", "7:00-19:00 ET", "9:00-18:00 SGT"), "What are the customer support opening hours?"),
    ("vat_rate", "default", "In {region}, invoices apply a default tax rate of {value}.",
     ("20%", "0% federal, state sales tax varies", "9% GST"), "Which default tax rate do invoices apply?"),
    ("data_residency", "location", "In {region}, customer data is stored in {value}.",
     ("Frankfurt", "Virginia", "Singapore"), "Where is customer data stored?"),
    ("oncall_escalation", "contact", "In {region}, the on-call escalation goes to {value}.",
     ("the Berlin SRE team", "the Austin SRE team", "the Singapore SRE team"), "Who receives on-call escalations?"),
    ("return_shipping", "cost", "In {region}, return shipping costs {value} for the customer.",
     ("nothing", "8 dollars", "6 dollars"), "How much does return shipping cost the customer?"),
]
OPS = [  # subject, attribute, statement, value, question
    ("incident_sev1", "response_time", "A severity 1 incident must be acknowledged within 15 minutes.",
     "15 minutes", "How fast must a sev1 incident be acknowledged?"),
    ("database_backups", "frequency", "Database backups run every 6 hours.", "every 6 hours",
     "How often are database backups taken?"),
    ("backup_retention", "period", "Backups are retained for 35 days.", "35 days",
     "For how long do we keep backups?"),
    ("password_rotation", "period", "Service passwords are rotated every 90 days.", "90 days",
     "How often do we rotate service passwords?"),
    ("code_review", "approvals", "Every pull request needs two approving reviews before merge.", "two",
     "How many approvals does a pull request need?"),
    ("postmortem", "deadline", "A postmortem is published within 5 business days of an incident.",
     "5 business days", "When is the incident postmortem due?"),
    ("freeze_period", "dates", "No deploys happen between December 20 and January 3.", "December 20 to January 3",
     "When is the end-of-year deploy freeze?"),
    ("laptop_encryption", "requirement", "All company laptops must use full-disk encryption.", "full-disk encryption",
     "Do company laptops need disk encryption?"),
]
# runbook v2 changes two unscoped rules and one scoped rule
OPS_V2 = {"database_backups": ("Database snapshots are now taken every hour.", "every hour"),
          "incident_sev1": ("Sev1 pages are acknowledged within 5 minutes.", "5 minutes")}
SCOPED_V2 = {("support_hours", "US"): "7:00-22:00 ET"}


def _operations() -> list[Doc]:
    v1 = []
    keep_v2 = []
    changed = []
    for subj, attr, template, values, _ in SCOPED:
        for region, value in zip(REGIONS, values, strict=True):
            claim = Claim(template.format(region=region, value=value), subj, attr, value, kind="rule",
                          scope={"region": region})
            v1.append(claim)
            new = SCOPED_V2.get((subj, region))
            if new:
                changed.append(Claim(template.format(region=region, value=new), subj, attr, new, kind="rule",
                                     scope={"region": region}))
            else:
                keep_v2.append(claim.statement)
    for subj, attr, statement, value, _ in OPS:
        v1.append(Claim(statement, subj, attr, value, kind="rule"))
        if subj in OPS_V2:
            changed.append(Claim(OPS_V2[subj][0], subj, attr, OPS_V2[subj][1], kind="rule"))
        else:
            keep_v2.append(statement)
    return [Doc("ops-runbook.md", tuple(v1), authority="internal", version_label="r1"),
            Doc("ops-runbook.md", tuple(changed), keep=tuple(keep_v2), authority="internal", version_label="r2")]


def _operations_questions() -> list[Question]:
    out = []
    picks = [(0, "EU"), (0, "US"), (0, "APAC"), (1, "EU"), (1, "US"), (1, "APAC"), (2, "EU"), (2, "APAC"),
             (3, "US"), (3, "APAC"), (4, "EU"), (4, "US"), (5, "EU"), (5, "APAC")]
    for i, region in picks:
        subj, attr, _, values, question = SCOPED[i]
        value = SCOPED_V2.get((subj, region), values[REGIONS.index(region)])
        out.append(Question(question, subj, attr, (value,), "scoped", {"region": region}))
    for subj, attr, _, value, question in OPS:
        if subj == "database_backups":
            out.append(Question("Do database backups run every 6 hours?", subj, attr, (OPS_V2[subj][1],),
                                "stale_closer"))
        elif subj == "incident_sev1":
            out.append(Question("Must a severity 1 incident be acknowledged within 15 minutes?", subj, attr,
                                (OPS_V2[subj][1],), "stale_closer"))
        else:
            out.append(Question(question, subj, attr, (value,)))
    return out


# ---------------------------------------------------------------------------------------------
# conflicts (equal authority, same start of valid time), fixtures, a retracted poisoned source,
# and other languages

CONFLICTS = [  # subject, attribute, (statement, value) x 2, question
    ("express_shipping", "price", ("Express shipping costs 9 euros.", "9 euros"),
     ("Express shipping costs 12 euros.", "12 euros"), "How much does express shipping cost?"),
    ("warehouse_lyon", "closing_time", ("The Lyon warehouse closes at 18:00.", "18:00"),
     ("The Lyon warehouse closes at 20:00.", "20:00"), "When does the Lyon warehouse close?"),
    ("partner_discount", "rate", ("Partner resellers get a 15% discount.", "15%"),
     ("Partner resellers get a 20% discount.", "20%"), "What discount do partner resellers get?"),
    ("trial_period", "length", ("The software trial lasts 14 days.", "14 days"),
     ("The software trial lasts 30 days.", "30 days"), "How long is the software trial?"),
    ("bulk_order", "minimum", ("Bulk pricing starts at 50 units.", "50 units"),
     ("Bulk pricing starts at 100 units.", "100 units"), "From how many units does bulk pricing start?"),
]

FIXTURES = [  # fixture statement and its subject; the production belief it shadows; question
    (Claim("In the staging fixture, refunds go to store credit.", "fixture_refund", "method", "store credit"),
     "Are refunds paid as store credit?", "refund_method", "method", "original payment method"),
    (Claim("Test customer Alice Martin prefers to be contacted by fax.", "fixture_alice", "contact_channel", "fax"),
     "Should Alice Martin be contacted by fax?", "customer_alice_martin", "contact_channel", "SMS"),
    (Claim("Fixture catalogue: the Pavo wireless mouse costs 1 euro.", "fixture_pavo", "price", "1 euro"),
     "Does the Pavo wireless mouse cost 1 euro?", "pavo_mouse", "price", "35 euros"),
    (Claim("Test data: backups are retained for 1 day.", "fixture_backups", "retention", "1 day"),
     "Are backups retained for only 1 day?", "backup_retention", "period", "35 days"),
    (Claim("Sample data: loyalty points expire after 1 week.", "fixture_loyalty", "expiry", "1 week"),
     "Do loyalty points expire after one week?", "loyalty_expiry", "period", "12 months"),
    (Claim("Demo fixture: data export requests are answered within 1 hour.", "fixture_export", "delay", "1 hour"),
     "Are data export requests answered within one hour?", "data_export", "delay", "30 days"),
]

RETRACTED = [  # internal truth, official poisoned claim (same subject/attribute), question
    (Claim("The premium plan costs 25 euros per month.", "premium_plan", "price", "25 euros"),
     "The premium plan costs 5 euros per month.", "5 euros", "Does the premium plan cost 5 euros per month?"),
    (Claim("Admin password resets require a manager's approval.", "admin_reset", "approval", "manager approval"),
     "Admin password resets require no approval.", "no approval",
     "Do admin password resets require no approval?"),
    (Claim("Wire transfers above 10000 euros need two signatures.", "wire_transfer", "signatures", "two"),
     "Wire transfers above 10000 euros need one signature.", "one",
     "How many signatures does a wire transfer above 10000 euros need?"),
]

MULTILINGUAL = [  # statement, subject, attribute, value, question
    ("Les retours en magasin sont acceptés pendant 30 jours.", "store_returns", "window", "30 jours",
     "Combien de jours pour rendre un article en magasin ?"),
    ("Der Kundendienst in Wien ist samstags geschlossen.", "vienna_support", "saturday", "geschlossen",
     "Ist der Kundendienst in Wien am Samstag geöffnet?"),
    ("El envío a Canarias cuesta 15 euros.", "canary_shipping", "price", "15 euros",
     "¿Cuánto cuesta el envío a Canarias?"),
    ("上海仓库每天下午五点停止发货。", "shanghai_warehouse", "cutoff", "下午五点", "上海仓库几点停止发货？"),
    ("The Milan showroom opens at 10:00.", "milan_showroom", "opening", "10:00",
     "A che ora apre lo showroom di Milano?"),
    ("Gift cards are valid for two years.", "gift_cards", "validity", "two years",
     "Combien de temps une carte cadeau est-elle valable ?"),
    ("Die Garantie für Akkus beträgt 6 Monate.", "battery_warranty", "period", "6 Monate",
     "How long is the warranty on batteries?"),
    ("東京オフィスの電話サポートは平日のみです。", "tokyo_support", "days", "平日のみ",
     "Is phone support in the Tokyo office available on weekends?"),
]


def _others() -> list[Step]:
    steps: list[Step] = []
    for subj, attr, (s1, v1), (s2, v2), _ in CONFLICTS:
        frm = "2026-01-01T00:00:00Z"
        steps.append(Doc(f"price-list-{subj}-a", (Claim(s1, subj, attr, v1, valid_from=frm),), authority="internal"))
        steps.append(Doc(f"price-list-{subj}-b", (Claim(s2, subj, attr, v2, valid_from=frm),), authority="internal"))
    steps.append(Doc("test-fixtures.md", tuple(f[0] for f in FIXTURES), authority="user", label="fixture"))
    steps.append(Doc("security-handbook.md", tuple(r[0] for r in RETRACTED), authority="internal"))
    steps.append(Doc("leaked-memo.md", tuple(Claim(r[1], r[0].subject, r[0].attribute, r[2]) for r in RETRACTED),
                     authority="official"))
    steps.append(Retract("leaked-memo.md", "poisoned: a forged memo"))
    steps.append(Doc("international.md", tuple(Claim(m[0], m[1], m[2], m[3]) for m in MULTILINGUAL)))
    return steps


def _other_questions() -> list[Question]:
    out = [Question(c[4], c[0], c[1], (c[2][1], c[3][1]), "conflict") for c in CONFLICTS]
    out += [Question(f[1], f[2], f[3], (f[4],), "fixture") for f in FIXTURES]
    out += [Question(r[3], r[0].subject, r[0].attribute, (r[0].value,), "retracted") for r in RETRACTED]
    out += [Question(m[4], m[1], m[2], (m[3],), "multilingual") for m in MULTILINGUAL]
    return out


def steps() -> list[Step]:
    """Everything to load, in order (later versions after the first ones)."""
    first = _catalogue()[:1] + [d for d in _policies() if d.version_label == "v1"] + _operations()[:1]
    later = _catalogue()[1:] + [d for d in _policies() if d.version_label == "v2"] + _operations()[1:]
    customers = _customers()
    return [*first, *customers[:len(CUSTOMERS)], *later, *customers[len(CUSTOMERS):], *_others()]


def questions() -> list[Question]:
    return (_product_questions() + _customer_questions() + _policy_questions() + _operations_questions()
            + _other_questions())


def claims_count() -> int:
    return sum(len(s.claims) for s in steps() if isinstance(s, Doc))


def load(db: Database) -> dict[str, Any]:
    """Load the corpus through the product's API (ingest with candidates, retract); embeddings are
    computed at ingest by the default embedder."""
    from beliefdb.store import retraction

    accepted = rejected = 0
    for step in steps():
        if isinstance(step, Retract):
            retraction.retract(db, source=step.source, reason=step.reason)
            continue
        options = ingest.SourceOptions(name=step.source, authority=step.authority, provenance=step.label,
                                       origin=step.origin, version_label=step.version_label)
        candidates = [Candidate(statement=c.statement, subject=c.subject, attribute=c.attribute, value=c.value,
                                quote=c.statement, kind=c.kind, scope=dict(c.scope), valid_from=c.valid_from)
                      for c in step.claims]
        report = ingest.ingest_text(db, step.text, options, candidates=candidates, extractor="none")
        accepted += len(report.accepted)
        rejected += len(report.rejected)
    return {"accepted": accepted, "rejected": rejected}


def iter_questions(limit: int | None = None) -> Iterator[Question]:
    """The questions, or a spread subset of ``limit`` of them (every kind represented)."""
    qs = questions()
    if limit is None or limit >= len(qs):
        yield from qs
        return
    step = len(qs) / limit
    for i in range(limit):
        yield qs[int(i * step)]
