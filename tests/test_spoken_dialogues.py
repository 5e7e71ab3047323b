"""A document shaped like a dialogue: its ``Name: text`` lines are turns, whatever the case or the ending
of the names (``BOB:``, ``Irving:``) or their script (``张伟：``), while a list of ``Key: value`` facts
whose values are sentences (an FAQ, a changelog, a log of ``ERROR:`` lines) stays facts. The line-level
rules (one line alone) are tested in test_extract_report.py."""

from __future__ import annotations

import pytest

import beliefdb
from beliefdb.store.ingest import prepare
from beliefdb.text.fragments import iter_fragments
from beliefdb.text.gate import gate
from beliefdb.text.rules import RuleExtractor
from beliefdb.text.skips import extraction_report
from beliefdb.text.transcripts import SPOKEN, common_words, dialogue_speakers, spoken_turn, transcript_speakers


def facts(text: str) -> list[tuple[str, str, str]]:
    return [(c.subject, c.attribute, c.value) for c in RuleExtractor().extract(text, source_name="notes.md")]


def spoken(text: str) -> list[str]:
    """The lines the report lists as spoken turns."""
    located, rejected = gate(text, RuleExtractor().extract(text, source_name="notes.md"))
    return [s.quote for s in extraction_report(text, located, rejected)[0] if s.detail == SPOKEN]


def lines(text: str) -> list[str]:
    return [text[f.start:f.end] for f in iter_fragments(text) if f.kind == "key_value"]


def assert_turns(text: str) -> None:
    """Every ``Name: text`` line of ``text`` is a turn: no fact, listed as spoken."""
    assert facts(text) == []
    assert spoken(text) == lines(text)


# --- 1. names in capitals (a screenplay) ---------------------------------------------------------------

@pytest.mark.parametrize("text", [
    # two names, one of them speaking in the first person: the other name's sentence is a turn too
    "BOB: The deploy failed.\nALICE: I restarted it.\n",
    # once the names are speakers, every line of theirs is a turn, a short answer too
    "BOB: The deploy failed.\nALICE: I restarted it.\nBOB: Thanks.\nALICE: Sure.\n",
    "- BOB: Did the deploy fail?\n- ALICE: The logs are clean.\n",
])
def test_a_dialogue_of_names_in_capitals_is_turns(text: str) -> None:
    assert_turns(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("ERROR: The disk is full.", [("note", "error", "The disk is full")]),
    # label words are no speakers, however often they recur and whoever says "I"
    ("ERROR: The disk is full.\nWARNING: I cannot write the cache.\nERROR: The disk is still full.\n",
     [("note", "error", "The disk is full"), ("note", "warning", "I cannot write the cache"),
      ("note", "error", "The disk is still full")]),
    # a changelog's words, in capitals and recurring
    ("FIXED: The crash on start is gone.\nADDED: The export is faster.\nFIXED: The leak is gone.\n",
     [("note", "fixed", "The crash on start is gone"), ("note", "added", "The export is faster"),
      ("note", "fixed", "The leak is gone")]),
    ("Fixed: The crash on start is gone.\nAdded: The export is faster.\nFixed: The leak is gone.\n",
     [("note", "fixed", "The crash on start is gone"), ("note", "added", "The export is faster"),
      ("note", "fixed", "The leak is gone")]),
    # a status list's words, in capitals and recurring, or not
    ("DONE: The export is faster.\nWIP: The docs are half written.\nDONE: The crash is gone.\n",
     [("note", "done", "The export is faster"), ("note", "wip", "The docs are half written"),
      ("note", "done", "The crash is gone")]),
    ("Blocked: The release waits for the audit.", [("note", "blocked", "The release waits for the audit")]),
    # two acronyms, each once, no one speaking: a glossary
    ("API: The figures are in docs.\nCLI: The flags are in the help.\n",
     [("note", "api", "The figures are in docs"), ("note", "cli", "The flags are in the help")]),
    # an FAQ: label keys, sentences for values, "we" a company
    ("Shipping: We ship within 2 days.\nReturns: Returns are accepted within 30 days.\n",
     [("note", "shipping", "We ship within 2 days"), ("note", "return", "Returns are accepted within 30 days")]),
])
def test_label_lists_with_sentences_stay_facts(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert facts(text) == expected
    assert spoken(text) == []


# --- 2. names that end like nouns ("Irving", "Sterling", "Felicity") ------------------------------------

@pytest.mark.parametrize("text", [
    "Irving: The deploy failed.\nAlice: I restarted it.\n",
    "Felicity: Hi Irving, is the build green?\nIrving: The build passed an hour ago.\n",
])
def test_a_dialogue_of_names_that_end_like_nouns_is_turns(text: str) -> None:
    assert_turns(text)


@pytest.mark.parametrize(("text", "expected"), [
    # alone, a name ending like a noun cannot be told from a noun: what the document says of it
    ("Irving: The deploy failed.", [("note", "irving", "The deploy failed")]),
    # two keys, each once, no one speaking: an FAQ
    ("Parking: The garage is open all night.\nHousekeeping: Rooms are cleaned daily.\n",
     [("note", "parking", "The garage is open all night"), ("note", "housekeeping", "Rooms are cleaned daily")]),
    # someone speaking among more keys than a dialogue has: a list of facts with a spoken line in it
    ("Alice: I moved to Berlin.\nParking: The garage is open all night.\nHousekeeping: Rooms are cleaned daily.\n",
     [("note", "parking", "The garage is open all night"), ("note", "housekeeping", "Rooms are cleaned daily")]),
    # a word the document writes in lowercase is a common noun, not a speaker
    ("Sterling: The silver is polished by hand.\nAlice: I asked for sterling silver.\n",
     [("note", "sterling", "The silver is polished by hand")]),
])
def test_keys_that_end_like_nouns_stay_facts_outside_a_dialogue(text: str,
                                                                 expected: list[tuple[str, str, str]]) -> None:
    assert facts(text) == expected
    assert [line for line in lines(text) if line not in spoken(text)] == [
        line for line in lines(text) if line.split(":")[0].lower() in {e[1] for e in expected}]


def test_the_price_of_the_rule_a_topic_after_a_question_reads_as_a_reply() -> None:
    """Pinned trade-off: two keys, one of them asking, read as an exchange, so an FAQ's "Pets:" question
    makes the noun-ending "Parking:" beside it a reply, not a fact (the same shape as "Felicity: Hi Irving,
    is the build green?\\nIrving: The build passed an hour ago.")."""
    assert_turns("Pets: Can I bring my dog?\nParking: The garage is open all night.\n")


def no_dialogue(text: str) -> None:
    """The document-level rule finds no dialogue in ``text``: its lines give facts, but for those the line rule
    reads as someone speaking on their own (:func:`spoken_turn`)."""
    common = common_words(text)
    assert dialogue_speakers(lines(text), common) == frozenset()
    assert facts(text) and spoken(text) == [line for line in lines(text) if spoken_turn(line, common)]


@pytest.mark.parametrize("text", [
    # a table written out line by line: its keys recur, and no one speaks
    "Shipping by region.\nEurope: Orders ship within 2 days.\nAsia: Orders ship within 5 days.\n"
    "America: Orders ship within 3 days.\nEurope: Returns are free of charge.\nAsia: Returns cost 10 euros.\n"
    "America: Returns cost 5 dollars.\n",
    "The platform team has three people.\nMaria: Leads the design team.\nJonas: Handles the on-call rota.\n"
    "Priya: Owns the billing service.\nMaria: Works from Lisbon.\nJonas: Works from Berlin.\nPriya: Works from Pune.\n",
    "API: Tokens expire after one hour.\nCLI: The config file is read at start.\n"
    "API: Requests are limited to 100 per minute.\n",
    "北京：订单两天内发货。\n上海：订单三天内发货。\n北京：退货免费。\n",
    # the price: a dialogue in which no one speaks (no "I", greeting or question) reads as such a list
    "BOB: The deploy failed again.\nALICE: The logs are clean.\nBOB: The disk is full.\n",
    "Sterling: The deploy failed again.\nFelicity: The logs are clean.\nSterling: The disk is full.\n",
    "张伟：项目明天上线。\n李娜：测试已经通过了。\n张伟：好的，辛苦了。\n",
    # and one in which someone speaks in fewer than a quarter of its lines (one question in five): one line
    # is no evidence, as a table with a question in one row shows (section 4)
    "BOB: The deploy failed again.\nALICE: Which deploy failed?\nBOB: The billing deploy failed.\n"
    "ALICE: The logs are clean.\nBOB: The disk is full then.\n",
])
def test_keys_that_recur_with_no_one_speaking_stay_facts(text: str) -> None:
    """A name speaking again is not enough: a list of facts whose keys recur has the same shape, and losing
    its facts is worse than keeping a dialogue in which no one says "I", greets or asks as facts (review of
    the dialogue rule: the region, team and API lists above lost every fact)."""
    no_dialogue(text)


# --- 3. a CJK dialogue (名字：句子 lines by two speakers or more) -------------------------------------------

@pytest.mark.parametrize("text", [
    # one of two names speaking in the first person singular, or asking
    "张伟：我搬到上海了。\n李娜：上海的房租很贵。\n",
    "李娜：你最近忙吗？\n张伟：最近工作很忙。\n",
])
def test_a_cjk_dialogue_is_turns(text: str) -> None:
    assert_turns(text)


@pytest.mark.parametrize(("text", "expected"), [
    # a policy addressing its reader, keys each once
    ("退货：您可在7天内无理由退货。\n会员：您可享受九折优惠。\n",
     [("note", "退货", "您可在7天内无理由退货"), ("note", "会员", "您可享受九折优惠")]),
    # a shop speaking as 我们 is no one's turn (the line alone reads as spoken; the fee beside it is a fact)
    ("退货：我们支持7天无理由退货。\n运费：满99元包邮。\n", [("note", "运费", "满99元包邮")]),
    # recurring keys with values, not sentences: records
    ("颜色：红色\n尺寸：大号\n颜色：蓝色\n尺寸：小号\n",
     [("note", "颜色", "红色"), ("note", "尺寸", "大号"), ("note", "颜色", "蓝色"), ("note", "尺寸", "小号")]),
    # label words end the keys
    ("退货政策：您可在7天内退货。\n联系方式：请拨打客服电话。\n退货政策：运费由买家承担。\n",
     [("note", "退货政策", "您可在7天内退货"), ("note", "联系方式", "请拨打客服电话"),
      ("note", "退货政策", "运费由买家承担")]),
])
def test_cjk_key_value_lists_stay_facts(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert facts(text) == expected
    assert [line for line in lines(text) if line not in spoken(text)] == [
        line for line in lines(text) if line.split("：")[0] in {e[1] for e in expected}]


def test_a_cjk_transcript_is_recognised_as_a_transcript() -> None:
    """Read as a document at ingest, a CJK transcript gets the transcript hint (``--format chat``) as an
    English one does: its turns count as said though CJK writes no spaces between words."""
    text = "张伟：项目明天上线。\n李娜：测试已经通过了。\n张伟：好的，辛苦了。\n李娜：我下午再检查一遍。\n"
    assert transcript_speakers(text) == {"张伟", "李娜"}
    assert transcript_speakers("颜色：红色\n尺寸：大号\n颜色：蓝色\n尺寸：小号\n") == frozenset()


# --- 4. someone speaking in enough lines, not in one: a list of facts keeps its facts --------------------------------

CJK_SPEC = "颜色：红色款适合夏天。\n颜色：蓝色款适合冬天。\n尺寸：中号适合大多数人。\n尺寸：大号适合高个子。\n"
CJK_SHIPPING = "欧洲：订单两天内发货。\n亚洲：订单五天内发货。\n欧洲：退货免费办理。\n亚洲：退货收取五元。\n"
REGIONS = ("Europe: Orders ship within 2 days.\nAsia: Orders ship within 5 days.\nAmerica: Orders ship within 4 days.\n"
           "Europe: Returns are free of charge.\nAsia: Returns cost 5 EUR each.\n"
           "America: Can I pay in dollars? Yes, prices are shown in dollars.\n")


def assert_facts_kept(text: str) -> None:
    """Ingest (read as a document; no database needed) would store a claim of every ``Key: value`` line of
    ``text`` but those the line rule reads as someone speaking on their own (:func:`spoken_turn`: "Europe:
    Returns are free of charge.", a name and a whole sentence), and there are some."""
    common = common_words(text)
    kept = [line for line in lines(text) if not spoken_turn(line, common)]
    ready = prepare(text, "notes.md", llm_configured=False)
    assert len(kept) >= 3 and [c["quote"] for c in ready.claims] == kept, (ready.claims, ready.hint)


@pytest.mark.parametrize("text", [
    CJK_SPEC, CJK_SHIPPING,
    # the same shape in English: two keys, each twice, sentences for values, no one speaking
    "Europe: Orders ship within 2 days.\nAsia: Orders ship within 5 days.\nEurope: Returns are free of charge.\n"
    "Asia: Returns cost 5 EUR each.\n",
    # label keys are no speakers, though a line says "I"
    "Status: I moved the build to the new runner.\nOwner: Alice runs the build.\nStatus: The deploy is waiting.\n"
    "Owner: Bob runs the deploy.\n",
], ids=["cjk-spec", "cjk-shipping", "regions", "status-owner"])
def test_a_record_list_whose_keys_recur_is_no_transcript(text: str) -> None:
    """A transcript needs someone speaking (a quarter of its turns: "I", a greeting, a question; 我, 你好,
    吗) and speakers that are no label words: CJK values of four Han characters were counted as said, so
    these lists read as transcripts and ingest dropped every fact of theirs (review of e3e75eb)."""
    assert transcript_speakers(text) == frozenset()
    assert_facts_kept(text)


def test_a_transcript_where_one_speaker_speaks_is_still_one() -> None:
    text = ("Alice: I moved to Berlin last month.\nBob: The rent there is high.\nAlice: I found a flat in Kreuzberg.\n"
            "Bob: The area is nice in summer.\n")
    assert transcript_speakers(text) == {"alice", "bob"}


@pytest.mark.parametrize("text", [
    REGIONS,
    # "i.e." (the value casefolded, the word "i") and "Phase I" are no one speaking
    REGIONS.replace("Can I pay in dollars? Yes, prices are shown in dollars.",
                    "Returns are free for members, i.e. within the first year."),
    REGIONS.replace("Can I pay in dollars? Yes, prices are shown in dollars.", "Phase I trials start in May."),
    # one key's lines only, of three keys, however many of them speak
    REGIONS.replace("America: Orders ship within 4 days.", "America: Do orders ship within 4 days?"),
], ids=["a-question", "i-e", "phase-i", "one-key-twice"])
def test_one_speaking_key_does_not_make_a_fact_table_a_dialogue(text: str) -> None:
    """A dialogue needs someone speaking in a quarter of its lines, by one of two names or by two names or
    more: one line that asks ("Can I pay in dollars?") made the whole table a dialogue and every fact of it
    was lost (review of 92c466c/f551bb2)."""
    assert dialogue_speakers(lines(text), common_words(text)) == frozenset()
    assert_facts_kept(text)


def test_i_is_the_pronoun_as_a_word_of_its_own_and_no_numeral() -> None:
    """The first person singular is "I" as a word (in lower case too, see sections 5 and 6), and not a
    numeral ("Phase I") nor "i.e."."""
    assert dialogue_speakers(lines("BOB: The deploy failed.\nALICE: I restarted it.\n")) == {"bob", "alice"}
    assert dialogue_speakers(lines("BOB: The deploy failed.\nALICE: I'm on it.\n")) == {"bob", "alice"}
    for said in ("ALICE: Phase I is done.", "ALICE: The fix, i.e. the patch, is out."):
        assert dialogue_speakers(lines(f"BOB: The deploy failed.\n{said}\n")) == frozenset(), said


# --- ingest (a real database) ----------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize(("text", "hint"), [
    ("BOB: The deploy failed.\nALICE: I restarted it.\n", "its 'Name: text' lines are spoken turns"),
    ("Irving: The deploy failed.\nAlice: I restarted it.\n", "its 'Name: text' lines are spoken turns"),
    ("张伟：项目明天上线。\n李娜：测试已经通过了。\n张伟：好的，辛苦了。\n李娜：我下午再检查一遍。\n",
     "this looks like a conversation transcript"),
])
def test_ingest_of_a_dialogue_stores_no_fact_of_its_turns(bdb: beliefdb.BeliefDB, text: str, hint: str) -> None:
    report = bdb.ingest_text(text, source="chat.md")
    assert report.accepted == []
    assert [(s.quote, s.detail) for s in report.skipped] == [(line, SPOKEN) for line in lines(text)]
    assert report.hint is not None and report.hint.startswith(hint) and "ingest_transcripts" in report.hint
    assert bdb.beliefs(include_all=True) == []


@pytest.mark.parametrize(("text", "speakers"), [
    ("maya: i moved to porto last week\nremy: nice, how is it\nmaya: the flat is small but ok\n"
     "remy: cool, glad to hear\n", {"maya", "remy"}),
    ("Owner: I want the patio done by June.\nContractor: We can start on Monday.\n"
     "Owner: Can you bring the tiles?\nContractor: Yes, I will bring them.\n", {"owner", "contractor"}),
], ids=["lower-case chat", "a speaker named Owner"])
def test_a_chat_in_lower_case_or_with_a_role_named_like_a_label_is_a_transcript(text: str,
                                                                                  speakers: set[str]) -> None:
    """A chat pasted in lower case ("i moved to porto") is people speaking, as it was before 7c43d2e made
    "I" count only in capitals (for "i.e." and "Phase I"); a speaker named like a label word ("Owner")
    beside one who is not ("Contractor") does not make the chat a record list (8da6be2 ruled out a whole
    transcript for one such name): both were stored as Key: value facts."""
    assert transcript_speakers(text) == speakers
    assert prepare(text, "chat.txt", llm_configured=False).claims == []


def test_i_e_in_lower_case_is_still_no_one_speaking() -> None:
    """The abbreviation, in any case, is no pronoun: a fact table that writes "i.e." stays facts."""
    text = ("Europe: Orders ship in 2 days, i.e. by Friday.\nAsia: Orders ship in 5 days, i.e. next week.\n"
            "Europe: Returns are free, I.E. no fee.\nAsia: Returns cost 5 euros.\n")
    assert transcript_speakers(text) == frozenset()


@pytest.mark.parametrize("line", [
    "Berlin: shipping costs 5 euros, i.e. cheap.",
    "Berlin: shipping costs 5 euros, I.E. cheap.",
    "Round: Round I starts on Monday.",
])
def test_the_line_rule_reads_i_e_and_a_numeral_as_no_one_speaking(line: str) -> None:
    """The line rule (:func:`spoken_turn`) reads "I" as the dialogue rule does: not in "i.e." nor after a
    numbered noun; it read the value casefolded, so "i.e." was someone speaking and the fact was skipped."""
    assert not spoken_turn(line)
    assert [c["quote"] for c in prepare(f"{line}\n", "notes.md", llm_configured=False).claims] == [line]


def test_the_line_rule_still_hears_i_in_lower_case() -> None:
    assert spoken_turn("Maya: i moved to porto.")
    assert spoken_turn("Maya: Phase I is done and I am glad.")


# --- 5. a lowercase "i" that is no one speaking: an enumeration, a word it is glued into ---------------------------

ROMAN_LIST = ("Europe: Orders ship within 2 days.\nAsia: Orders ship within 5 days.\n"
              "America: Orders ship within 4 days.\n"
              "Europe: Returns need (i) a receipt and (ii) the original box.\n"
              "Asia: Refunds need (i) a receipt and (ii) a bank account.\n"
              "America: Returns cost 5 USD each.\n")
I18N = ("Europe: Orders ship within 2 days.\nAsia: Orders ship within 5 days.\n"
        "Europe: Our i18n team works from Lisbon.\nAsia: Our i18n team works from Tokyo.\n")


@pytest.mark.parametrize("text", [
    ROMAN_LIST,
    I18N,
    ROMAN_LIST.replace("(i)", "i)").replace("(ii)", "ii)"),
    ROMAN_LIST.replace("(i)", "(I)").replace("(ii)", "(II)"),
    ROMAN_LIST.replace("(i)", "i.").replace("(ii)", "ii."),
], ids=["roman-numerals", "i18n", "i-paren", "capital-roman", "i-dot"])
def test_a_fact_table_with_a_lowercase_i_stays_facts(text: str) -> None:
    """9ef1db1 made a lowercase "i" the pronoun: a table whose rows enumerate conditions, "(i) ... (ii)", or
    name an "i18n" team (the word split as "i" + "n") became a dialogue, or a transcript, and ingest kept
    none of its facts (4 before; review of 9ef1db1)."""
    assert dialogue_speakers(lines(text), common_words(text)) == frozenset()
    assert transcript_speakers(text) == frozenset()
    quotes = [c["quote"] for c in prepare(text, "notes.md", llm_configured=False).claims]
    assert "Europe: Orders ship within 2 days." in quotes and "Asia: Orders ship within 5 days." in quotes, quotes


@pytest.mark.parametrize("line", [
    "Berlin: returns need (i) a receipt and (ii) the box",
    "Berlin: returns need i) a receipt and ii) the box",
    "Berlin: returns need (I) a receipt and (II) the box",
    "Berlin: i18n support in 12 languages",
    "Berlin: access via the i3 gate, floor 2",
    "Berlin: Press i for the menu",
    "Berlin: a) free returns b) free pickup.",
])
def test_the_line_rule_hears_no_enumeration_nor_a_glued_i(line: str) -> None:
    """An enumeration ("(i)", "ii)", "a)": "a" was the article that starts a whole sentence), an "i" glued
    to digits or letters ("i18n", "i3"), and a key named "i" ("Press i", section 6)
    are no one speaking: the line is a fact."""
    assert not spoken_turn(line)
    assert [c["quote"] for c in prepare(f"{line}\n", "notes.md", llm_configured=False).claims] == [line]


@pytest.mark.parametrize("line", [
    "Maya: ok so i moved to Porto",
    "Maya: i'm on it",
    "Maya: yes (so i heard)",
    "Maya: the flat, i think",
    "Maya: same here (so did i)",
])
def test_the_line_rule_still_hears_a_lowercase_i_in_a_lowercase_value(line: str) -> None:
    """In a value written in lower case, "i" as a word is the pronoun (so it is in one written with capitals,
    section 6): at a bracket's close too when the bracket opened before it, "(so did i)"."""
    assert spoken_turn(line)


# --- 6. a chat typed with a capital first letter and a lowercase "i" ----------------------------------------------

@pytest.mark.parametrize("line", [
    "Maya: Yeah i moved to Porto last week.",
    "Maya: WOW i love it",
    "Maya: Got it. i'll check",
    "Maya: Sure, i can do Friday",
])
def test_a_capitalised_chat_line_with_a_lowercase_i_is_spoken(line: str) -> None:
    """74d1232 heard a lowercase "i" only in a value whose first letter is lowercase: a phone capitalises the
    first letter and leaves "i" as typed, so "Yeah i moved to Porto last week." was stored as a fact
    (review-57). "i" as a word of its own is the pronoun whatever the first letter."""
    assert spoken_turn(line)


def test_ingest_makes_no_fact_of_a_capitalised_chat_line() -> None:
    text = "# Team notes\n\nThe office is in Berlin.\nMaya: Yeah i moved to Porto last week.\n"
    assert ("note", "maya", "Yeah i moved to Porto last week") not in facts(text), facts(text)
    assert "Maya: Yeah i moved to Porto last week." in spoken(text)


def test_a_chat_typed_with_capitals_and_a_lowercase_i_is_no_list_of_facts() -> None:
    """A two-person chat so typed gave 2 facts (note.maya, note.tom) at 74d1232, none before."""
    assert_turns("Maya: Yeah i moved to Porto.\nTom: Nice, i love Porto.\n")


@pytest.mark.parametrize("line", [
    "Berlin: Press i for the menu",
    "Berlin: Hit i to open the map",
    "Berlin: Tap i for the details.",
    "Berlin: Type i to start writing.",
    "Berlin: press i for the menu",
    "Berlin: Key i for the inventory",
    "Berlin: Letter i for insert mode",
    "Berlin: Button i for help",
    "Berlin: Use the i button for help.",
    "Berlin: use the i key for help",
    "Berlin: Press Ctrl i for italics",
])
def test_a_key_or_letter_named_i_is_no_one_speaking(line: str) -> None:
    """A key or a letter named after press/hit/tap/type/key/letter ("Press i", "the letter i"), or before
    "key"/"button" ("the i button"), is no pronoun, in a value written in lower case too: the line is a fact."""
    assert not spoken_turn(line)
    assert [c["quote"] for c in prepare(f"{line}\n", "notes.md", llm_configured=False).claims] == [line]


@pytest.mark.parametrize("line", ["Maya: found the button i needed", "Maya: got the letter i wanted",
                                  "Maya: that shortcut i use daily"])
def test_a_pronoun_after_a_word_that_names_keys_is_still_someone_speaking(line: str) -> None:
    """A key is named "i" after press, hit, letter... only when no verb follows it ("Press i for the menu"):
    "the button i needed" is a relative clause, someone speaking (review of the key rule)."""
    assert spoken_turn(line)
    assert prepare(f"{line}\n", "notes.md", llm_configured=False).claims == []
