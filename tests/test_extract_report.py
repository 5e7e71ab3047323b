"""Extraction that says what it did (issue 20): the sentences that produced no belief and why, the
patterns the rule extractor used to miss, and a warning for a sentence that contradicts itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import beliefdb
from beliefdb.text.extractor import Candidate
from beliefdb.text.fragments import iter_fragments
from beliefdb.text.gate import gate
from beliefdb.text.rules import RuleExtractor
from beliefdb.text.skips import extraction_report, left_out

HR_POLICY = (
    "# HR policy\n\n"
    "The probation period is 6 months.\n"
    "Employees are entitled to 25 days of paid leave per year.\n"
    "Parental leave is 12 weeks.\n"
    "Remote work is allowed 2 days per week.\n"
    "We value a healthy balance between work and life.\n"
    "Questions go to your manager first.\n"
)


def triples(text: str, source_name: str = "hr-policy.md") -> list[tuple[str, str, str]]:
    return [(c.subject, c.attribute, c.value) for c in RuleExtractor().extract(text, source_name=source_name)]


# --- patterns the rule extractor missed ---------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "expected"), [
    ("Employees are entitled to 25 days of paid leave per year.", ("employee", "paid_leave", "25 days per year")),
    ("Parental leave is 12 weeks.", ("hr_policy", "parental_leave", "12 weeks")),
    ("Remote work is allowed 2 days per week.", ("hr_policy", "remote_work", "2 days per week")),
    ("Max payload: 20 kg", ("hr_policy", "max_payload", "20 kg")),
    ("Robot max payload: 20 kg", ("robot", "max_payload", "20 kg")),
    # a rate, or a fixed phrase with "per", is one attribute
    ("Per diem: 60 EUR", ("hr_policy", "per_diem", "60 EUR")),
    ("Hotel cost per night: 150 EUR", ("hotel", "cost_per_night", "150 EUR")),
    ("Max cost per night: 150 EUR", ("hr_policy", "max_cost_per_night", "150 EUR")),
])
def test_issue_examples_become_beliefs(sentence: str, expected: tuple[str, str, str]) -> None:
    (c,) = RuleExtractor().extract(sentence, source_name="hr-policy.md")
    assert (c.subject, c.attribute, c.value) == expected
    assert c.quote == sentence and (c.start, c.end) == (0, len(sentence))


@pytest.mark.parametrize(("line", "expected"), [
    ("退货政策: 7天", ("shop", "退货政策", "7天")),
    ("退货政策：7天", ("shop", "退货政策", "7天")),
    ("退货期限是7天。", ("shop", "退货期限", "7天")),
    ("运费为10元", ("shop", "运费", "10元")),
    ("商品的退货期限是7天。", ("商品", "退货期限", "7天")),
])
def test_chinese_lines_extract(line: str, expected: tuple[str, str, str]) -> None:
    (c,) = RuleExtractor().extract(line, source_name="shop.md")
    assert (c.subject, c.attribute, c.value) == expected
    assert line[c.start:c.end] == c.quote  # type: ignore[misc]


def test_chinese_negation_extracts_nothing() -> None:
    assert triples("退货政策不是7天。") == []


def test_the_old_shapes_keep_their_names() -> None:
    assert triples("The return window is 7 days.") == [("return_policy", "window", "7 days")]
    assert triples("Return window: 7 days") == [("return_policy", "window", "7 days")]
    # a number after "is" without "the" is a fact; a non-number is not (it may be any clause)
    assert triples("Shipping is free for orders over 50 EUR.") == []
    assert triples("It is 5 minutes to midnight.") == []


# --- what produced nothing, and why -------------------------------------------------------------------

def test_report_lists_each_sentence_without_a_belief() -> None:
    text = "The return window is 7 days.\nWe love our customers.\n## Shipping\n- Notes\nOk.\n"
    proposed = RuleExtractor().extract(text, source_name="faq.md")
    located, rejected = gate(text, proposed)
    skipped, warnings = extraction_report(text, located, rejected)
    assert [(s.quote, s.reason) for s in skipped] == [("We love our customers.", "no_pattern")]
    (s,) = skipped
    assert text[s.start:s.end] == s.quote
    assert warnings == []


def test_a_quote_the_gate_rejected_names_its_sentence_and_the_reason() -> None:
    text = "Returns are   handled by the team.\nThe return window is 7 days.\n"
    wrong = Candidate(statement="x", subject="team", attribute="duty", value="returns",
                      quote="Returns are handled by the team.")
    located, rejected = gate(text, [wrong, *RuleExtractor().extract(text, source_name="faq.md")])
    skipped, _ = extraction_report(text, located, rejected)
    (s,) = skipped
    assert (s.quote, s.reason) == ("Returns are   handled by the team.", "gate")
    assert s.detail == "quote differs from the source text in whitespace"


def test_a_repeated_sentence_located_once_is_a_duplicate() -> None:
    text = "Support answers within one day.\nSupport answers within one day.\n"
    quote = "Support answers within one day."
    c = Candidate(statement=quote, subject="support", attribute="response_time", value="one day", quote=quote)
    located, rejected = gate(text, [c])
    skipped, _ = extraction_report(text, located, rejected)
    (s,) = skipped
    assert (s.reason, s.start) == ("duplicate", text.rindex(quote))
    assert s.detail == f"the same text as [0, {len(quote)}), the evidence of a belief"
    again = "We care a lot about you.\nWe care a lot about you.\n"
    skipped, _ = extraction_report(again, [], [])
    assert [(s.reason, s.start, s.detail) for s in skipped] == [
        ("no_pattern", 0, "no rule of the extractor matched"),
        ("duplicate", 25, "the same text as [0, 24), listed there")]


@pytest.mark.parametrize(("sentence", "numbers"), [
    ("Returns are accepted within sixty (90) days of delivery.", [60, 90]),
    ("The notice period is 30 (twenty) days.", [30, 20]),
    ("Parental leave is twenty-one (12) weeks.", [21, 12]),
])
def test_self_contradictory_sentence_warns_and_is_still_extracted(sentence: str, numbers: list[int]) -> None:
    located, rejected = gate(sentence, RuleExtractor().extract(sentence, source_name="policy.md"))
    assert len(located) == 1
    _, warnings = extraction_report(sentence, located, rejected)
    (w,) = warnings
    assert (w.kind, w.numbers, w.quote) == ("self_contradictory", numbers, sentence)
    assert f"{numbers[0]}" in w.message and f"{numbers[1]}" in w.message


def test_agreeing_number_word_and_numeral_do_not_warn() -> None:
    sentence = "Returns are accepted within thirty (30) days of delivery."
    located, rejected = gate(sentence, RuleExtractor().extract(sentence, source_name="policy.md"))
    assert extraction_report(sentence, located, rejected)[1] == []


_WORDS = st.sampled_from(["The", "return", "window", "is", "7", "days", "leave", "Max", "payload:", "weeks",
                          "are", "entitled", "to", "of", "per", "year", "#", "-", "退货政策", "是", "：", "?",
                          ".", "sixty", "(90)", "\n", "  ", "Remote", "work", "allowed"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=30).map(" ".join))
@example("# return are sixty")  # a heading that is the source of a belief
def test_no_sentence_is_silently_dropped(text: str) -> None:
    """Every fragment is the source of a belief, or else either listed as skipped or of a kind left
    out (left_out speaks of fragments that are the source of no belief: a heading may be one)."""
    located, rejected = gate(text, RuleExtractor().extract(text, source_name="doc.md"))
    skipped, _ = extraction_report(text, located, rejected)
    sources = {(loc.start, loc.end) for loc in located}
    listed = {(s.start, s.end) for s in skipped}
    for f in iter_fragments(text):
        span = (f.start, f.end)
        if span in sources:
            assert span not in listed, (text, f)
        else:
            assert (span in listed) != left_out(text, f), (text, f)
    assert all(text[s.start:s.end] == s.quote for s in skipped)


# --- "Name: text" lines are someone speaking, not Key: value facts -----------------------------------

SPOKEN_DETAIL = "a spoken turn ('Name: text'), not a 'Key: value' fact"


@pytest.mark.parametrize("text", [
    "Alice: hi",
    "Alice: I moved to Berlin last year.",
    "Alice: hi\nBob: hello Alice, how are you?",
    "Bob: Thanks!",
    "- Maya: we switched to the annual plan",
    "Tom: Is the store open on Sunday?",
    "Dana: my flight was late again",
    "**Returns**\nReturns are accepted within 7 days.\nCustomer: Can I return opened items?\n"
    "Agent: Yes, you can, within the same 7 days.\n",
    # a whole sentence after a name: a finite verb, or several words from a clause's start to its stop
    "Alice: The office is in Berlin.",
    "Bob: The deploy failed twice last night.",
    "Alice: The office is in Berlin.\nBob: The deploy failed twice last night.\n",
    "- Maya: It will rain tomorrow",
    "Alice: you choose",
    "Parking: I left the car outside.",  # the first person after a common noun: still someone speaking
    # a CJK name (2-4 Han characters), then a sentence in the first or second person, a question or a greeting
    "张伟：我搬到上海了。",
    "李娜: 你好吗？",
    "王芳：谢谢！",
    "张伟：您明天来吗",
    "张伟：我搬到上海了。\n李娜：我们下周见。\n",
    # a name the document also writes in lowercase ("mark it done") is still a name speaking to someone
    "Mark: you need to restart the server.\nAnn: ok, I will mark it done tonight.\n",
    "Grace: you can take the late train.\nThe grace period is 30 days.\n",
    # a name that ends like a plural of a function word ("Ines" of "in", "Wes" of "we") is no label
    "Ines: I moved to Berlin last year.",
    "Wes: The deploy failed twice last night.",
    "Sasha: Are you around?\nInes: Yep, just got home.\nSasha: How was the trip?\nInes: It was great.\n",
])
def test_a_name_speaking_is_no_key_value_fact(text: str) -> None:
    found = RuleExtractor().extract(text, source_name="notes.md")
    assert [c.quote for c in found if ":" in c.quote or "：" in c.quote] == []
    located, rejected = gate(text, found)
    skipped, _ = extraction_report(text, located, rejected)
    turns = [f for f in iter_fragments(text) if f.kind == "key_value"]
    assert [(s.start, s.end, s.reason, s.detail) for s in skipped if ":" in s.quote or "：" in s.quote] == [
        (f.start, f.end, "no_pattern", SPOKEN_DETAIL) for f in turns]


@pytest.mark.parametrize(("line", "expected"), [
    ("Price: 20 EUR", ("note", "price", "20 EUR")),
    ("Owner: Alice", ("note", "owner", "Alice")),
    ("Status: shipped", ("note", "status", "shipped")),
    ("Max payload: 20 kg", ("note", "max_payload", "20 kg")),
    ("Contact: Bob Smith", ("note", "contact", "Bob Smith")),
    ("Note: the warehouse closes at 6", ("note", "note", "the warehouse closes at 6")),
    ("Note: you must sign in first.", ("note", "note", "you must sign in first")),
    ("Shipping: we ship within 2 days", ("note", "shipping", "we ship within 2 days")),
    ("Assignee: my team", ("note", "assignee", "my team")),
    ("Alice: Berlin", ("note", "alice", "Berlin")),
    ("键: 值", ("note", "键", "值")),
    ("键：值", ("note", "键", "值")),
    # a sentence after a label, an attribute word or a word a name never ends like is still a value
    ("Status: The build is green.", ("note", "status", "The build is green")),
    ("Note: The office is closed on Fridays.", ("note", "note", "The office is closed on Fridays")),
    ("Address: The office is at 5 Main St.", ("note", "address", "The office is at 5 Main St")),
    ("Parking: The garage is open all night.", ("note", "parking", "The garage is open all night")),
    ("Alice: Head of Sales, Berlin office.", ("note", "alice", "Head of Sales, Berlin office")),
    # a key in capitals is a label or an acronym, and "Error", "Split" label lines (docs/ has such lines)
    ("ERROR: The disk is full.", ("note", "error", "The disk is full")),
    ("API: The figures are in docs.", ("note", "api", "The figures are in docs")),
    ("Error: The disk is full.", ("note", "error", "The disk is full")),
    ("Split: Odd ones are held out.", ("note", "split", "Odd ones are held out")),
    ("Failures: A bad answer is asked again.", ("note", "failure", "A bad answer is asked again")),  # a plural
    ("Notes: The office is closed on Fridays.", ("note", "note", "The office is closed on Fridays")),
    ("Fees: They are due on the first day.", ("note", "fee", "They are due on the first day")),
    ("Sizes: You pick one at checkout.", ("note", "size", "You pick one at checkout")),
    # a second-person instruction after an attribute word or a common noun is what the document says of it
    ("Color: you choose", ("note", "color", "you choose")),
    ("Size: you pick one at checkout.", ("note", "size", "you pick one at checkout")),
    ("Delivery: you pick it up at the store", ("note", "delivery", "you pick it up at the store")),
    ("Packaging: you can ask for a gift box.", ("note", "packaging", "you can ask for a gift box")),
    ("退货政策: 7天", ("note", "退货政策", "7天")),
    ("张伟：上海", ("note", "张伟", "上海")),
    ("退货政策：您可以在7天内退货。", ("note", "退货政策", "您可以在7天内退货")),  # a label word ends the key
    ("联系方式：你可以打电话。", ("note", "联系方式", "你可以打电话")),
    # a policy addresses its reader (您, 你) and speaks of its company (我司): what it says of the key
    ("退货：您可在7天内无理由退货。", ("note", "退货", "您可在7天内无理由退货")),
    ("会员：您可享受九折优惠。", ("note", "会员", "您可享受九折优惠")),
    ("颜色：你来选", ("note", "颜色", "你来选")),
    ("退货：我司支持7天无理由退货。", ("note", "退货", "我司支持7天无理由退货")),
])
def test_key_value_facts_are_still_facts(line: str, expected: tuple[str, str, str]) -> None:
    assert triples(line, "notes.md") == [expected]
    located, rejected = gate(line, RuleExtractor().extract(line, source_name="notes.md"))
    assert extraction_report(line, located, rejected)[0] == []


def test_a_key_the_document_writes_in_lowercase_is_a_noun_not_a_speaker() -> None:
    """"Breakfast: It is served from 7 to 10." is no one speaking when the document says "breakfast"
    elsewhere (a common noun, not a name); the same line alone is read as spoken."""
    line = "Breakfast: It is served from 7 to 10."
    text = f"{line}\nThe breakfast room is on the first floor.\n"
    assert ("hotel", "breakfast", "It is served from 7 to 10") in triples(text, "hotel.md")
    located, rejected = gate(text, RuleExtractor().extract(text, source_name="hotel.md"))
    assert [s.quote for s in extraction_report(text, located, rejected)[0]] == []
    assert triples(line, "hotel.md") == []
    # the plural of a word the document writes: "Embedders" where it says "an embedder"
    text = "Embedders: It is a small plug-in base.\nThe default is a local embedder.\n"
    assert ("note", "embedder", "It is a small plug-in base") in triples(text, "notes.md")
    located, rejected = gate(line, [])
    assert [(s.quote, s.detail) for s in extraction_report(line, located, rejected)[0]] == [(line, SPOKEN_DETAIL)]


# --- ingest, the library and the command line (a real database) -------------------------------------

@pytest.mark.slow
def test_ingest_report_carries_skipped_and_warnings(bdb: beliefdb.BeliefDB) -> None:
    text = HR_POLICY + "Notice is required sixty (90) days ahead, in writing.\n"
    report = bdb.ingest_text(text, source="hr-policy.md")
    got = {(a.subject, a.attribute, a.value) for a in report.accepted}
    assert {("employee", "paid_leave", "25 days per year"), ("hr_policy", "parental_leave", "12 weeks"),
            ("hr_policy", "remote_work", "2 days per week"), ("probation_policy", "period", "6 months")} <= got
    assert [(s.quote, s.reason) for s in report.skipped] == [
        ("We value a healthy balance between work and life.", "no_pattern"),
        ("Questions go to your manager first.", "no_pattern"),
        ("Notice is required sixty (90) days ahead, in writing.", "no_pattern")]
    (w,) = report.warnings
    assert w.numbers == [60, 90]
    assert report.hint is not None and "claims=FILE" in report.hint


@pytest.mark.slow
def test_two_documents_saying_a_fact_in_other_words_corroborate_it_and_a_third_supersedes(
        bdb: beliefdb.BeliefDB) -> None:
    """(rule k: "costs", "is located in", "lasts", "are processed within" and "The maximum ..." named
    otherwise than the noun phrases saying the same, or nothing: two documents gave two beliefs, or one)"""
    pricing = bdb.ingest_text("# Acme\n\nThe price of the Pro plan is $49 per month.\nThe office location is "
                              "Dublin.\nThe warranty duration is two years.\nThe refund processing time is 14 days."
                              "\nMax file size: 25 MB\n", source="pricing.md", authority="internal")
    first = {(a.subject, a.attribute): a.id for a in pricing.accepted}
    assert len(first) == 5, pricing.accepted
    faq = bdb.ingest_text("# Acme\n\nThe Pro plan costs $49 per month.\nOur office is located in Dublin.\n"
                          "The warranty lasts two years.\nRefunds are processed within 14 days.\n"
                          "The maximum file size is 25 MB.\n", source="faq.md", authority="user")
    assert faq.accepted == [] and faq.skipped == []
    assert sorted(c.id for c in faq.corroborated) == sorted(first.values())
    assert sorted(first) == [("acme", "max_file_size"), ("office", "location"), ("pro_plan", "price"),
                             ("refund", "processing_time"), ("warranty", "duration")]
    news = bdb.ingest_text("The Pro plan now costs $59 per month.\n", source="news.md", authority="internal")
    (price,) = news.accepted
    assert [(s.old, s.new) for s in news.superseded] == [(first[("pro_plan", "price")], price.id)]
    assert [b.value for b in bdb.beliefs(subject="pro_plan", attribute="price")] == ["$59 per month"]


@pytest.mark.slow
def test_cli_ingest_prints_the_count_and_json_lists_them_all(cli: Any, write_doc: Any) -> None:
    lines = "".join(f"Paragraph {i} talks about nothing in particular.\n" for i in range(8))
    path: Path = write_doc("notes.md", "The return window is 7 days.\n" + lines)
    out = cli("ingest", path, "--preview").output
    assert "8 sentence(s) produced no belief" in out
    assert out.count("no_pattern") == 5 and "… and 3 more (--json lists them all)" in out
    assert "--claims FILE" in out and "--extractor llm" not in out  # no endpoint configured
    data = cli.json("ingest", path)
    assert len(data["skipped"]) == 8 and data["skipped"][0]["reason"] == "no_pattern"
    assert data["skipped"][0]["start"] == len("The return window is 7 days.\n")
    assert data["warnings"] == []
    with_llm = cli("ingest", path, "--preview", env={"BELIEFDB_LLM_URL": "http://127.0.0.1:9/v1"}).output
    assert "--extractor llm" in with_llm


def test_cli_self_contradiction_warning(cli: Any, write_doc: Any) -> None:
    path = write_doc("policy.md", "Returns are accepted within sixty (90) days of delivery.\n")
    out = cli("ingest", path).output
    assert "⚠ self_contradictory" in out and "60" in out and "90" in out
    data = json.loads(cli("ingest", path, "--json", "--preview").output)
    assert data["warnings"][0]["kind"] == "self_contradictory"


def test_the_openapi_schema_names_the_skip_reasons() -> None:
    from beliefdb.models import IngestReport, Skipped
    from beliefdb.render.schema import schema_of

    assert schema_of(Skipped)["properties"]["reason"] == {"type": "string",
                                                          "enum": ["no_pattern", "gate", "duplicate", "forgotten"]}
    assert "skipped" in schema_of(IngestReport)["required"]


def test_json_shortens_a_huge_skipped_sentence_and_says_how_long_it_was(cli: Any, tmp_path: Path) -> None:
    """ingest --json quoted a skipped 3 MB line whole: a skipped sentence's quote is cut to 500 characters
    in JSON (CLI, HTTP, MCP) with its full length; its start and end still name the whole span, and the
    library's report keeps the quote whole (text[start:end] == quote)."""
    # 30,000 characters: past the stdout bound below, so a quote kept whole fails it as the 3 MB line did (the
    # cut is at 500 whatever the length)
    huge = "word " * 6_000
    doc = tmp_path / "big.md"
    doc.write_text(f"# Big\nThe window is 30 days.\n{huge}\n", encoding="utf-8")
    result = cli("ingest", doc, "--json", "--no-embed")
    assert len(result.stdout) < 20_000
    report = json.loads(result.stdout)
    (big,) = [s for s in report["skipped"] if s["quote_length"] > 500]
    assert big["truncated"] is True and big["quote_length"] == len(huge.strip())
    assert big["quote"] == huge.strip()[:500] + "…" and big["end"] - big["start"] == big["quote_length"]
    assert all(s["truncated"] is False and len(s["quote"]) == s["quote_length"]
               for s in report["skipped"] if s is not big)


@pytest.mark.slow
def test_ingest_of_a_policy_with_a_pasted_exchange_keeps_its_turns_out_of_beliefs(bdb: beliefdb.BeliefDB) -> None:
    text = ("# Returns\nReturns are accepted within 30 days of delivery.\nRestocking fee: 5 EUR\n"
            "Alice: hi, can I return opened items?\nBob: Yes, you can return them within 30 days.\n")
    report = bdb.ingest_text(text, source="returns.md")
    assert {(a.subject, a.attribute, a.value) for a in report.accepted} == {
        ("return_policy", "window", "30 days"), ("restocking_policy", "fee", "5 EUR")}
    assert [(s.quote, s.reason, s.detail) for s in report.skipped] == [
        ("Alice: hi, can I return opened items?", "no_pattern", SPOKEN_DETAIL),
        ("Bob: Yes, you can return them within 30 days.", "no_pattern", SPOKEN_DETAIL)]
    assert report.hint is not None and report.hint.startswith("its 'Name: text' lines are spoken turns")
    assert "ingest_transcripts" in report.hint and "claims=FILE" in report.hint
    assert not [b for b in bdb.beliefs(include_all=True) if b.attribute in {"alice", "bob"}]


@pytest.mark.slow
def test_cli_ingest_of_one_spoken_line_stores_no_belief(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("Alice: I moved to Berlin last year.\n", encoding="utf-8")
    report = cli.json("ingest", path, "--no-embed")
    assert report["accepted"] == []
    assert [(s["quote"], s["detail"]) for s in report["skipped"]] == [
        ("Alice: I moved to Berlin last year.", SPOKEN_DETAIL)]
    assert "--format chat" in report["hint"]
    assert cli.json("beliefs", "--all") == []


WRAPPED_DOC = ("# Handbook\nThe hotel budget is 140 EUR per night within Europe\nand 220 EUR per night elsewhere.\n"
               "Parental leave for secondary caregivers is\nfour weeks at full pay.\nThe return window is 30 days.\n"
               "The parking fee is 5 EUR\n\nand more.\n")


def test_a_sentence_wrapped_onto_the_next_line_gives_no_cut_short_belief() -> None:
    """Markdown wrapped at 80 columns split a sentence at the line break, and the rule extractor stored
    its first part as the whole fact ("hotel / budget = 140 EUR per night within Europe", where the next
    line goes on "and 220 EUR per night elsewhere"): a user trial. Either part is listed with why; a line
    that ends its sentence, or one a blank line ends, is read as before."""
    from beliefdb.text.gate import gate
    from beliefdb.text.skips import extraction_report

    candidates = RuleExtractor().extract(WRAPPED_DOC, source_name="handbook.md")
    assert [(c.attribute, c.value) for c in candidates] == [("window", "30 days"), ("fee", "5 EUR")]
    located, rejected = gate(WRAPPED_DOC, candidates)
    skipped, _ = extraction_report(WRAPPED_DOC, located, rejected)
    cut = [s.quote for s in skipped if s.detail.startswith("a sentence wrapped onto the next line")]
    assert cut == ["The hotel budget is 140 EUR per night within Europe", "and 220 EUR per night elsewhere.",
                   "Parental leave for secondary caregivers is", "four weeks at full pay."]
    # (lines that each end their sentence without a full stop are read as before: notes, a title, an aside)
    for notes in ("# Notes\nmaya's phone is 555 1234\nbob's phone is 555 9876\n",
                  "The office is in Lisbon\nthe badge code is 4417\n",
                  "The hotel budget is 140 EUR\n(see the policy)\n"):
        assert len(RuleExtractor().extract(notes, source_name="notes.md")) == 2 - notes.count("(see"), notes
