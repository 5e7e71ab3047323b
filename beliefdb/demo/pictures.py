"""The return-policy story of ``beliefdb demo``, told through the library up to a chosen point, for
pictures (``scripts/demo_pictures.py`` draws the README's, the tests draw theirs): the official
policy v3.2 and a customer's chat; a refusal resting on the 7-day window alone, with its email; a
store-credit refund resting on the refund policy or on what the customer said; a belief derived from
the window and the refund method, and a leaflet decided on it. Then, stage by stage, v3.3 (15 days),
a reviewer's correction of the refund method, and a poisoned forum post an agent built on."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from beliefdb.demo.story import FORUM, V32, V33

if TYPE_CHECKING:
    from beliefdb.api.memory import BeliefDB

#: how far :func:`build` tells the story, in order
STAGES = ("decisions", "v3.3", "correction", "forum")


def _one(db: BeliefDB, subject: str, attribute: str) -> UUID:
    (belief,) = db.beliefs(subject=subject, attribute=attribute)
    return belief.id


def build(db: BeliefDB, through: str = "decisions") -> dict[str, UUID]:
    """Tell the story in ``db``'s workspace up to stage ``through`` (one of :data:`STAGES`); returns the
    ids of what it recorded, by name."""
    stages = STAGES[: STAGES.index(through) + 1]
    db.ingest_text(V32, source="return-policy.md", authority="official", version_label="v3.2")
    ids = {"seven": _one(db, "return_policy", "window"), "refund": _one(db, "refund", "method"),
           "fee": _one(db, "restocking_policy", "fee")}
    chat = db.remember("Customer 1043 prefers store credit.", "customer_1043", "refund_preference", "store credit",
                       "I prefer store credit", source="chat-1043",
                       text="Customer 1043: I prefer store credit, please.")
    ids["preference"] = chat.accepted[0].id
    ids["refuse"] = db.decide("Refuse the return of order 1042 (day 10)", because=[ids["seven"]]).id
    ids["email"] = db.act(ids["refuse"], "Email the customer a refusal").id
    ids["credit"] = db.decide("Refund order 1043 as store credit", because=[ids["refund"], ids["preference"]]).id
    ids["derived"] = db.derive("Returns within 7 days are refunded as store credit", "return_refund", "method",
                               "store credit within 7 days", [ids["seven"], ids["refund"]]).id
    ids["leaflet"] = db.decide("Print the 7-day store-credit leaflet", because=[ids["derived"]]).id
    if "v3.3" in stages:
        db.ingest_text(V33, source="return-policy.md", version_label="v3.3")
        ids["fifteen"] = _one(db, "return_policy", "window")
    if "correction" in stages:
        seen = db.preview_correction(ids["refund"])
        fixed = db.apply_correction(ids["refund"], "Refunds go to the original payment method.", reviewer="rita",
                                    value="original payment method", reason="policy FAQ was wrong",
                                    expect_revision=seen.revision)
        assert fixed.replacement is not None and fixed.correction is not None  # the story's principal owns it
        ids["replacement"], ids["correction"] = fixed.replacement, fixed.correction
    if "forum" in stages:
        db.ingest_text(FORUM, source="forum-post.txt", authority="unverified")
        ids["shipping"] = _one(db, "return", "shipping")
        ids["waive"] = db.decide("Waive return shipping for order 1044", because=[ids["shipping"]]).id
    return ids
