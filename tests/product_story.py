"""The README's return-policy story set up through the library, for the product view's tests (the
pages are what is tested; the data only has to be the demo's): v3.2 with a refusal decided on the
7-day belief and an email carrying it out, a refund decision with two independent reasons, then
(each step its own function) v3.3, and the poisoned forum post an agent built on."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from beliefdb import BeliefDB
from beliefdb.demo.story import FORUM, V32, V33
from beliefdb.models import IngestReport


@dataclass(frozen=True)
class Story:
    seven: UUID
    refund: UUID
    fee: UUID
    preference: UUID
    refuse: UUID
    email: UUID
    credit: UUID


def _id(report: IngestReport, attribute: str) -> UUID:
    return next(a.id for a in report.accepted if a.attribute == attribute)


def before_v33(db: BeliefDB) -> Story:
    """Steps 1-2: the official v3.2, the refusal and its email, the refund decision on two reasons."""
    first = db.ingest_text(V32, source="return-policy.md", authority="official", version_label="v3.2")
    seven, refund, fee = _id(first, "window"), _id(first, "method"), _id(first, "fee")
    refuse = db.decide("Refuse the return of order 1042 (day 10)", because=[seven]).id
    email = db.act(refuse, "Email the customer a refusal").id
    said = db.remember("Customer 1043 prefers store credit.", "customer_1043", "refund_preference", "store credit",
                       "I prefer store credit", source="chat-1043",
                       text="Customer 1043: I prefer store credit, please.")
    preference = said.accepted[0].id
    credit = db.decide("Refund order 1043 as store credit", because=[refund, preference]).id
    return Story(seven, refund, fee, preference, refuse, email, credit)


def publish_v33(db: BeliefDB) -> UUID:
    """Step 3: v3.3 supersedes the 7-day belief (the refusal is flagged, its email held); the 15-day belief."""
    second = db.ingest_text(V33, source="return-policy.md", version_label="v3.3")
    return _id(second, "window")


def forum_post(db: BeliefDB) -> UUID:
    """Step 6: the forum post repeats the fee and claims free return shipping; an agent waives shipping
    on it. The waiving decision."""
    db.ingest_text(FORUM, source="forum-post.txt", authority="unverified")
    (shipping,) = db.beliefs(subject="return", attribute="shipping")
    return db.decide("Waive return shipping for order 1044", because=[shipping.id]).id
