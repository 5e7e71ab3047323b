"""CJK text is not spaced: a Chinese word is found inside the turn or the belief that says it, by its pairs
of characters (the full-text parser reads "我住在上海" as one word, which "上海" is not)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import beliefdb
from beliefdb.models import Turn


def day(n: int) -> datetime:
    return datetime(2024, 3, 4, 9, 0, tzinfo=UTC) + timedelta(days=n)


def test_a_chinese_word_finds_the_turn_and_the_belief_that_say_it(bdb: beliefdb.BeliefDB) -> None:
    # CJK words are not spaced: "我住在上海" was one word of the full-text search, and "上海" found nothing
    bdb.ingest_conversation([Turn("李雷", "我住在上海。", day(0)), Turn("李雷", "我喜欢喝茶。", day(1)),
                             Turn("Ann", "I moved to Lisbon.", day(2))], source="chat", embed=False)
    found = bdb.ask("上海")
    assert [f.text for f in found.fragments] == ["我住在上海。"]
    assert [f.text for f in bdb.ask("他住在哪里？").fragments] == ["我住在上海。"]  # (住在: a word in common)
    assert bdb.ask("北京").fragments == []
    bdb.ingest_text("公司的总部在上海浦东。\n", source="about.md")  # (no belief: no 是)
    bdb.ingest_text("办公室的城市是上海浦东。\n", source="office.md")
    (office,) = bdb.ask("浦东").beliefs
    assert (office.belief.attribute, office.belief.value) == ("城市", "上海浦东") and "text" in office.matched_by
    assert [f.text for f in bdb.ask("浦东").fragments] == ["公司的总部在上海浦东。"]
