"""Whether text is people speaking: the ``Name: text`` lines of transcripts and dialogues, told apart from
``Key: value`` facts (:func:`spoken_turn`, :func:`transcript_speakers`, :func:`dialogue_speakers`), and the
speaker line they share with the chat files (:mod:`beliefdb.text.chat_files`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Final

from beliefdb import errors
from beliefdb.text.fragments import is_key_value
from beliefdb.text.naming import DETERMINERS, NOT_IN_NOUN_PHRASE, POLICY_TERMS, QUALIFIERS, QUANTIFIERS

__all__ = ["SKIP_RE", "SPEAKER_LINE_RE", "SPOKEN", "common_words", "dialogue_speakers", "speaker_line", "spoken_by",
           "spoken_hint", "spoken_turn", "transcript_hint", "transcript_speakers", "turns_hint"]

# A speaker: 1-4 words of letters, digits, dots, apostrophes, hyphens, underscores (no colon or bracket).
_MARKS: Final = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"  # combining (macOS's NFD)
_SPEAKER: Final = rf"[^\W\d_][\w{_MARKS}.'’-]*(?: [\w{_MARKS}.'’-]+){{0,3}}"
SPEAKER_LINE_RE: Final = re.compile(
    rf"(?:[-*+]\s+)?(?:\[(?P<time>[^\]\n]{{1,64}})\]\s*)?"
    rf"(?:\*\*(?P<bold>{_SPEAKER})(?:[:：]\*\*|\*\*\s*[:：])|(?P<plain>{_SPEAKER})\s*[:：])"
    rf"(?:(?:\s+|(?<=：)|(?<=：\*\*))(?P<text>\S.*))?"
)
"""A transcript line (stripped; use with ``fullmatch``): optional list marker, optional ``[time]``,
the speaker (plain, or bold in either ``**Name:**`` or ``**Name**:`` form), a colon, the text (after a
full-width colon ``：``, as CJK chat writes it, with or without a space)."""

SKIP_RE: Final = re.compile(r"#{1,6}(?:\s.*)?|(?:-{3,}|\*{3,}|_{3,})")
"""A line that is no one's turn (stripped; ``fullmatch``): a markdown heading or a horizontal rule."""
_URL_SCHEMES: Final = frozenset({"http", "https", "ftp", "mailto", "file"})


def speaker_line(line: str) -> re.Match[str] | None:
    """The match of a transcript line (:data:`SPEAKER_LINE_RE`), or None (a URL's scheme is no speaker)."""
    m = SPEAKER_LINE_RE.fullmatch(line)
    if m is None or (m.group("bold") or m.group("plain")).lower() in _URL_SCHEMES:
        return None
    return m


def _said_enough(text: str) -> bool:
    """Whether a turn's text is a sentence rather than a value: three words, or four CJK characters (CJK
    writes no spaces between words)."""
    return len(text.split()) >= 3 or sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff") >= 4


def transcript_speakers(text: str) -> frozenset[str]:
    """The speakers (lowercased) when most lines of ``text`` are ``Name: sentence`` turns (a few names,
    one of them speaking more than once; not every name a label or attribute word, "Status", 退货政策) where
    someone speaks often enough (:func:`_heard_enough`), so reading it as ``Key: value`` facts would be a
    mistake; else the empty set. A list whose keys recur and whose values are sentences no one speaks
    ("颜色：红色款适合夏天。", "Europe: Orders ship within 2 days.") is facts."""
    lines = [x.strip() for x in text.splitlines() if x.strip() and not SKIP_RE.fullmatch(x.strip())]
    if len(lines) < 4:
        return frozenset()
    turns: list[tuple[str, bool]] = []
    labels: set[str] = set()
    for line in lines:
        m = speaker_line(line)
        said = (m.group("text") or "") if m is not None else ""
        if m is not None and _said_enough(said):
            who = m.group("bold") or m.group("plain")
            speaks = _speech(said, _said_words(said)) or _CJK_SPEECH_RE.search(said) is not None
            turns.append((who.lower(), speaks))
            if _a_label_key(who):
                labels.add(who.lower())
    speakers = Counter(who for who, _ in turns)
    # (keys that are all labels are a record's fields, whoever speaks in them: "Status: I moved the
    # build ...\nOwner: Alice runs it."; one role named like a label beside another is someone: "Owner")
    if (len(turns) * 10 >= len(lines) * 6 and len(speakers) <= max(2, len(turns) // 3)
            and max(speakers.values()) >= 2 and not speakers.keys() <= labels and _heard_enough(turns)):
        return frozenset(speakers)
    return frozenset()


def _heard_enough(turns: list[tuple[str, bool]]) -> bool:
    """Whether someone speaks (:func:`_speech`: "I", a greeting, a question; 我, 你好, 吗) in enough of a
    document's turns, (speaker, speaking) pairs, for it to be people speaking: a quarter of them or more,
    by one of two names or by two names or more. One line is not enough: a table of facts may ask a
    question in one row ("America: Can I pay in dollars?"), however often that row's key recurs."""
    heard = {who for who, speaks in turns if speaks}
    names = {who for who, _ in turns}
    return sum(speaks for _, speaks in turns) * 4 >= len(turns) > 0 and len(heard) >= min(2, max(1, len(names) - 1))


def spoken_by(line: str, speakers: frozenset[str]) -> bool:
    """Whether ``line`` is a turn of one of ``speakers`` (see :func:`transcript_speakers`)."""
    m = speaker_line(line.strip()) if speakers else None  # (none: most documents, not read at all)
    return m is not None and (m.group("bold") or m.group("plain")).lower() in speakers


# The words a document labels a line with ("Note: you must sign in first", "Shipping: we ship in 2 days"):
# a key that is one of them or its plural ("Notes") names no speaker; nor does one of _LABELS, which adds the
# words the extractor names attributes or phrases with (not their plurals: "Ines" is no plural of "in").
_LABEL_NOUNS: Final = frozenset({
    "about", "access", "account", "action", "address", "advice", "agenda", "alert", "announcement", "answer",
    "approver", "assignee", "attention", "audience", "author", "availability", "background", "benefit", "billing",
    "bug", "cancellation", "category", "cause", "caution", "caveat", "change", "changelog", "claim",
    "clarification", "comment", "con", "conclusion", "condition", "contact", "context", "correction", "credit",
    "danger", "date", "decision", "definition", "delivery", "department", "deprecated", "description", "detail",
    "directions", "disclaimer", "edit", "eligibility", "email", "error", "example", "exception", "exchange",
    "external", "fact", "faq", "feature", "feedback", "fix", "fyi", "goal", "guarantee", "guidance", "highlight",
    "hint", "hours", "idea", "impact", "important", "info", "information", "input", "instruction", "internal",
    "issue", "label", "language", "lesson", "location", "meaning", "message", "method", "mission", "motto", "name",
    "nb", "news", "next", "note", "notice", "objective", "observation", "outcome", "output", "overview", "owner",
    "payment", "phone", "pricing", "priority", "privacy", "pro", "problem", "procedure", "process", "promise",
    "prompt", "ps", "purpose", "question", "quote", "rationale", "reason", "recommendation", "reference", "refund",
    "remark", "reminder", "reply", "request", "requirement", "resolution", "response", "result", "return", "review",
    "reviewer", "risk", "role", "rule", "schedule", "scope", "security", "see", "severity", "shipping", "slogan",
    "solution", "source", "split", "status", "step", "subject", "summary", "symptom", "tagline", "takeaway", "task",
    "team", "terms", "tip", "title", "tldr", "todo", "topic", "translation", "type", "update", "usage", "verdict",
    "version", "vision", "warning", "warranty", "workaround",
}) | POLICY_TERMS | frozenset({
    "added", "changed", "fixed", "removed",  # a changelog's ("FIXED: The crash on start is gone.")
    "blocked", "blocker", "doing", "done", "pending", "planned", "wip",  # a status list's ("DONE: ...")
})
_LABELS: Final = _LABEL_NOUNS | QUALIFIERS | NOT_IN_NOUN_PHRASE | DETERMINERS | QUANTIFIERS
# Attributes a document gives things ("Color: you choose", "Size: M"); no one is named so
_ATTRIBUTES: Final = frozenset({
    "amount", "arrival", "assembly", "battery", "brand", "budget", "capacity", "checkin", "checkout", "city",
    "color", "colour", "country", "currency", "departure", "deposit", "depth", "design", "destination",
    "diet", "discount", "display", "distance", "dress", "duration", "fabric", "finish", "fit", "flavor",
    "flavour", "font", "format", "gender", "grade", "height", "layout", "length", "level", "license", "licence",
    "material", "memory", "menu", "model", "pickup", "plan", "platform", "quantity", "quota", "rating",
    "region", "room", "route", "screen", "seat", "setup", "size", "speed", "storage", "style", "tax",
    "temperature", "theme", "tier", "time", "timezone", "venue", "volume", "weight", "width", "wifi", "zone",
})
_NAME_RE: Final = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")  # one word of letters: Ann, Jean-Luc, O'Neil
_GREETING_RE: Final = re.compile(
    r"(?:hi|hello|hey|hiya|howdy|good\s+(?:morning|afternoon|evening|night)|thanks|thank\s+you|thx|bye|goodbye)"
    r"\b", re.IGNORECASE)
_SPEAKING: Final = frozenset({"i", "we", "you"})  # the first or second person as a clause's subject
_SECOND_PERSON: Final = frozenset({"you", "your", "yours", "yourself", "yourselves"})
_PERSONAL: Final = frozenset({"me", "my", "mine", "myself", "us", "our", "ours", "ourselves", "your", "yours",
                              "yourself", "yourselves"})
_VALUE_WORD_RE: Final = re.compile(r"[^\W\d_]+")
_HAN_NAME_RE: Final = re.compile(r"[\u4e00-\u9fff]{2,4}")  # 张伟, 欧阳娜娜
# Words a CJK key ends with when it labels a line (退货政策, 联系方式), not a name
_CJK_LABEL_ENDINGS: Final = (
    "政策", "规则", "规定", "说明", "注意", "备注", "提示", "地址", "时间", "日期", "电话", "邮箱", "网址", "价格",
    "费用", "方式", "方法", "要求", "条件", "问题", "答案", "回答", "状态", "类型", "名称", "原因", "结果", "建议",
    "总结", "目标", "标题", "描述", "步骤", "流程", "范围", "期限", "须知", "事项", "服务", "信息", "通知", "更新")
# The first person (我, 我们; not a company's 我司, 我方) or a greeting: someone speaking. The second person
# alone is not: a policy addresses its reader ("退货：您可在7天内无理由退货。")
_CJK_SPEAKING_RE: Final = re.compile(
    r"我(?![司方行店厂校院])|(?:你好|您好|谢谢|多谢|再见|早上好|晚上好|晚安|嗨|哈喽|拜拜)")
# A sentence's finite verb (contractions as _VALUE_WORD_RE splits them: "isn't" -> "isn")
_FINITE: Final = frozenset({
    "am", "is", "are", "was", "were", "has", "have", "had", "will", "would", "can", "could", "did", "does", "do",
    "should", "shall", "may", "might", "must", "isn", "aren", "wasn", "weren", "hasn", "haven", "hadn", "won",
    "wouldn", "couldn", "didn", "doesn", "don", "shouldn", "mustn"})
_CLAUSE_START: Final = frozenset({"the", "a", "an", "this", "that", "these", "those", "it", "he", "she", "they",
                                  "there", "his", "her", "their", "its", "everyone", "someone", "nobody"})
# Endings of common nouns no one is named by ("Parking", "Installation", "Shipment"), on keys of 6+ letters
_NOUN_ENDINGS: Final = ("ing", "tion", "sion", "ment", "ness", "ship", "ism", "ics", "ure", "age", "ity")

SPOKEN: Final = "a spoken turn ('Name: text'), not a 'Key: value' fact"
"""The detail of a skipped line that :func:`spoken_turn` (or a transcript's speakers) found spoken."""


def common_words(text: str) -> frozenset[str]:
    """The words ``text`` writes in lowercase somewhere: a ``Key`` among them is a common noun the document
    uses ("the breakfast room"), not someone's name (for :func:`spoken_turn`)."""
    return frozenset(w for w in _VALUE_WORD_RE.findall(text) if w.islower())


def spoken_turn(line: str, common: frozenset[str] = frozenset()) -> bool:
    """Whether a ``Key: value`` line (stripped, list marker removed) is someone speaking, not a fact:
    the key a person's name (one capitalised word that is no label or attribute word of a document:
    not "Note", "Price", "Owner", "Status") and the value a greeting ("hi", "thanks"), a question, or
    a sentence in the first or second person ("I moved to Berlin", "we close at 6", "see you there";
    a possessive alone, "my team", only in a sentence of three words or more; "I" as :func:`_said_words`
    reads it: not "i.e.", "Phase I", "(i)", "i18n"). A whole sentence ("The
    office is in Berlin.": a finite verb, or four words or more from a clause's start to a stop) is
    spoken too, after a key not in capitals ("ERROR", "API" are labels). After a key that looks like a
    common noun (a word ``common``, the document's lowercase words from :func:`common_words`, holds; or
    one ending like "Parking" or "Shipment") neither a whole sentence nor one in the second person
    alone ("Packaging: you can ask for a gift box.", by its ending only: a name the document also writes
    in lowercase, "Mark", still speaks to someone) is: that is what the document says of it. A CJK key of
    2-4 Han characters that ends with no label word (退货政策, 联系方式) is a name when the value is in the
    first person (我, 我们; not a company's 我司), a greeting (你好, 谢谢) or a question (？, 吗):
    "张伟：我搬到上海了。"; the second person alone is a policy addressing its reader ("退货：您可在7天内
    无理由退货。")."""
    m = is_key_value(line)
    if m is not None and _HAN_NAME_RE.fullmatch(key := m["key"]):
        value = m["value"].strip()
        return not key.endswith(_CJK_LABEL_ENDINGS) and (
            _CJK_SPEAKING_RE.search(value) is not None
            or value.rstrip("\"'”’)]」』）").endswith(("?", "？", "吗", "呢")))  # a question
    if m is None or not _NAME_RE.fullmatch(key := m["key"]) or not key[0].isupper():
        return False
    folded = key.casefold().replace("’", "'")
    if _a_label(folded):
        return False
    value = m["value"].strip()
    if _GREETING_RE.match(value) or value.rstrip("\"'”’)]").endswith(("?", "？")):
        return True
    words = _said_words(value)
    personal = [w for w in words if w in _SPEAKING or w in _PERSONAL]
    # (addressed to someone after a key that ends like a noun, "Packaging: you can ask for a gift box.", is
    # what the document says of it; a name the document also writes in lowercase, "Mark", "Grace", still
    # speaks to someone)
    if ((len(words) >= 2 and not _SPEAKING.isdisjoint(words)) or (len(words) >= 3 and personal)) and not (
            _a_noun(folded, frozenset()) and _SECOND_PERSON.issuperset(personal)):
        return True
    noun = _a_noun(folded, common)
    return _a_sentence(value, words) and not noun and not key.isupper()  # "ERROR:", "API:" label, not name


def _a_sentence(value: str, words: list[str]) -> bool:
    """Whether a value is a whole sentence, not a value ("Berlin", "Head of Sales, Berlin office.")."""
    stop = value.rstrip("\"'”’)]").endswith((".", "!"))
    return (len(words) >= 3 and not _FINITE.isdisjoint(words)) or (
        stop and len(words) >= 4 and words[0] in _CLAUSE_START)


def _a_label(folded: str) -> bool:
    """Whether a key (casefolded) is a label or attribute word, or the plural of one that is a noun ("Notes",
    "Sizes"; not "Ines", "Wes" of "in", "we")."""
    return folded in _LABELS or _a_label_noun(folded)


def _a_label_noun(folded: str) -> bool:
    """Whether a key (casefolded) is a label noun or an attribute word, or its plural ("Status", "Sizes";
    not a function word: "Me:" and "A:" may name a transcript's speakers)."""
    return any(word in _LABEL_NOUNS or word in _ATTRIBUTES
               for word in (folded, folded.removesuffix("s"), folded.removesuffix("es")))


def _a_label_key(key: str) -> bool:
    """Whether a transcript line's speaker is a label rather than someone: one word that is a label noun or
    an attribute word ("Status", "Owner"), or a CJK key ending with a label word (退货政策)."""
    if _HAN_NAME_RE.fullmatch(key):
        return key.endswith(_CJK_LABEL_ENDINGS)
    return _NAME_RE.fullmatch(key) is not None and _a_label_noun(key.casefold().replace("’", "'"))


def _a_noun(folded: str, common: frozenset[str]) -> bool:
    """Whether a key (casefolded) looks like a common noun rather than a name (a plural too: "Failures")."""
    return any(word in common or (len(word) >= 6 and word.endswith(_NOUN_ENDINGS))
               for word in {folded, folded.removesuffix("s"), folded.removesuffix("es")})


_SINGULAR: Final = frozenset({"me", "my", "mine", "myself"})  # the first person singular besides "I": one speaking
# Nouns a Roman numeral follows ("Phase I", "Type I", "World War I"): that "I" is no one speaking
_NUMBERED: Final = frozenset({"act", "appendix", "article", "book", "category", "chapter", "class", "grade",
                              "level", "part", "phase", "round", "scene", "section", "series", "stage", "step",
                              "tier", "title", "type", "volume", "war"})


def _speaker_key(key: str, common: frozenset[str]) -> str | None:
    """The key (lowercased) when it may name a speaker of a dialogue: one word of two letters or more,
    capitalised or in capitals ("Bob", "BOB"), that is no label or attribute word ("Note", "ERROR",
    "FIXED") and no word the document writes in lowercase, whatever its ending ("Irving"); else None."""
    if not _NAME_RE.fullmatch(key) or len(key) < 2 or not key[0].isupper():
        return None
    folded = key.casefold().replace("’", "'")
    if _a_label(folded) or not common.isdisjoint({folded, folded.removesuffix("s"), folded.removesuffix("es")}):
        return None
    return key.lower()  # (whatever its ending: "Irving", "Felicity" speak in a dialogue)


def _turn_like(value: str, words: list[str]) -> bool:
    """Whether a value reads as something said: a greeting, a question, a sentence in the first or second
    person, a whole sentence, or three words or more to a stop ("The deploy failed.")."""
    stop = value.rstrip("\"'”’)]").endswith((".", "!", "?", "？"))
    return (_GREETING_RE.match(value) is not None or (stop and len(words) >= 3) or _a_sentence(value, words)
            or (len(words) >= 2 and not (_SPEAKING | _PERSONAL).isdisjoint(words)))


# "i.e." in any case, which is no "I"
_THAT_IS_RE: Final = re.compile(r"\b[iI]\.\s?[eE]\b\.?")
# An enumeration's marker: "(i)", "[b]", "ii)", "a)" (a letter or a Roman numeral), which is no word said
_MARKER_RE: Final = re.compile(r"(?<!\w)(?P<open>[(\[])?(?:[ivx]{1,4}|[^\W\d_])[)\]](?!\w)", re.IGNORECASE)
_DOTTED_RE: Final = re.compile(r"(?<!\w)[ivx]{1,4}\.(?!\w)", re.IGNORECASE)  # "i. ... ii." (with "ii.")
_GLUE: Final = frozenset("_-/+&@")  # what makes "I" part of a word: "I/O", "I-95", "i_max"
# Words that name a key or a letter "i" after them ("Press i", "the letter i") or before it ("the i key")
_KEYED: Final = frozenset({"press", "presses", "pressed", "pressing", "hit", "hits", "tap", "taps", "tapped", "type",
                           "types", "typed", "typing", "key", "letter", "button", "hotkey", "shortcut", "ctrl", "alt",
                           "cmd"})
_KEY_NOUNS: Final = frozenset({"key", "keys", "button", "buttons"})
# What follows a key named after one of _KEYED ("Press i for the menu", "hit i to open", "press i."): a verb
# after it makes the "i" a pronoun of a clause ("found the button i needed")
_AFTER_KEY: Final = _KEY_NOUNS | frozenset({"for", "to", "again", "and", "or", "then", "twice", "once", "on", "in"})


def _speech(value: str, words: list[str]) -> bool:
    """Whether a value (``words``: its words as :func:`_said_words` reads them) is someone speaking, whoever
    the key: a greeting, a question, the first person singular ("I restarted it.", "I'm on it", "i moved",
    "my laptop"; not a company's "we")."""
    if _GREETING_RE.match(value) is not None or value.rstrip("\"'”’)]").endswith(("?", "？")):
        return True
    return not _SINGULAR.isdisjoint(words) or "i" in words


def _unmarked(value: str) -> str:
    """A value without its enumeration markers ("(i) a receipt and (ii) the box", "a) ... b) ...", "i. ...
    ii. ..."); "i)" closing a bracket opened before it is no marker: "(so did i)"."""
    def blank(m: re.Match[str]) -> str:
        opened = m["open"] is None and value.count("(", 0, m.start()) > value.count(")", 0, m.start())
        return m[0] if opened else " "
    value = _MARKER_RE.sub(blank, value)
    return _DOTTED_RE.sub(" ", value) if re.search(r"(?<!\w)ii\.", value, re.IGNORECASE) else value


def _said_words(value: str) -> list[str]:
    """A value's words casefolded ("I'm" -> "i", "m"), but an enumeration's markers (:func:`_unmarked`), and
    with "i" only for the pronoun, in capitals or not (a chat typed "Yeah i moved", "maya: i moved"): a word
    of its own, glued to no digit or letter ("i18n", "i3", "I/O", "I-95"), not "i.e." (in any case) nor a
    numeral after a noun ("Phase I"), nor in lower case a key or letter named ("Press i", "the letter i",
    "the i key")."""
    text = _unmarked(_THAT_IS_RE.sub(" ", value))
    found = list(_VALUE_WORD_RE.finditer(text))
    words: list[str] = []
    for n, m in enumerate(found):
        if (word := m[0].casefold()) != "i":  # (what follows decides only whether an "i" is the pronoun)
            words.append(word)
            continue
        previous = words[-1] if words else ""
        before, after = text[m.start() - 1: m.start()], text[m.end(): m.end() + 2]
        glued = before.isdigit() or before in _GLUE or after[:1].isdigit() or after[:1] in _GLUE or (
            after[:1] == "." and after[1:].isalnum())
        following = found[n + 1][0].casefold() if n + 1 < len(found) else None
        keyed = m[0] == "i" and ((previous in _KEYED and (following is None or following in _AFTER_KEY))
                                 or following in _KEY_NOUNS)
        if not (previous in _NUMBERED or glued or keyed):
            words.append(word)
    return words


# Someone speaking in CJK, whoever the key: 我 alone (not 我们, a shop's "we", nor 我司), a greeting, a question
_CJK_SPEECH_RE: Final = re.compile(
    r"我(?![们司方行店厂校院])|(?:你好|您好|谢谢|多谢|再见|早上好|晚上好|晚安|嗨|哈喽|拜拜)|[?？吗呢][\"'”’)\]」』）]*$")
_CJK_STOP: Final = ("。", "！", "？", "!", "?", "…", "~", "～", "吗", "呢", "吧", "啊", "了")


def _a_turn(key: str, value: str, common: frozenset[str]) -> tuple[str, bool] | None:
    """(speaker, whether someone is speaking) when a ``Key: value`` line may be a turn of a dialogue: a key
    that may name someone and a value that reads as said; else None. A CJK key of 2-4 Han characters ending
    with no label word (张伟, not 退货政策), its value a sentence to its stop (。, ！, ？) or speaking."""
    if _HAN_NAME_RE.fullmatch(key):
        if key.endswith(_CJK_LABEL_ENDINGS):
            return None
        speech = _CJK_SPEECH_RE.search(value) is not None
        return (key, speech) if speech or value.rstrip("\"'”’)]」』）").endswith(_CJK_STOP) else None
    who = _speaker_key(key, common)
    words = _said_words(value)
    return (who, _speech(value, words)) if who is not None and _turn_like(value, words) else None


def dialogue_speakers(lines: Iterable[str], common: frozenset[str] = frozenset()) -> frozenset[str]:
    """The speakers (lowercased keys) when a document's ``Key: value`` lines (``lines``, stripped, list
    markers removed; ``common``: the document's lowercase words, :func:`common_words`) have the shape of a
    dialogue, else the empty set. Its lines are those whose key may name someone (:func:`_speaker_key`:
    "BOB" in capitals too; 张伟) and whose value reads as said (:func:`_a_turn`); a dialogue is two names or
    more, a few of them for its lines (at most one for every two lines, or two), where someone speaks (a
    greeting, a question, "I ...") often enough (:func:`_heard_enough`: a quarter of its lines, by one of
    two names or two names or more). A list of facts is none: its keys are label words ("Shipping: We ship
    within 2 days."), or words the document also writes in lowercase, and no one speaks in it, or too
    seldom, whether its keys recur or not ("Europe: Orders ship within 2 days.\nAsia: ...\nEurope: Returns
    are free.\nAmerica: Can I pay in dollars?")."""
    turns = [turn for line in lines if (m := is_key_value(line)) is not None
             and (turn := _a_turn(m["key"], m["value"].strip(), common)) is not None]
    counts = Counter(who for who, _ in turns)
    # (someone must speak, in enough lines: a list whose keys recur, "Europe: Orders ship within 2 days." then
    # "Europe: Returns are free of charge.", is a table written out line by line, and its sentences are facts,
    # though one row asks "Can I pay in dollars?")
    if 2 <= len(counts) <= max(2, len(turns) // 2) and _heard_enough(turns):
        return frozenset(counts)
    return frozenset()


def spoken_hint() -> str:
    """What to do with a document whose ``Name: text`` lines are someone speaking."""
    how = errors.spelled("ingest_transcripts", "--format chat", http="POST /conversations (its turns)",
                         mcp="`remember_turn`, a turn at a time")
    return ("its 'Name: text' lines are spoken turns, not 'Key: value' facts: for what speakers say of themselves"
            f" ingest the conversation with {how}")


def transcript_hint() -> str:
    """What to do with a document that is a conversation transcript."""
    how = errors.spelled("ingest_transcripts", "--format chat", http="POST /conversations (its turns)",
                         mcp="`remember_turn`, a turn at a time")
    return ("this looks like a conversation transcript ('Name: text' lines), whose turns are not 'Key: value'"
            f" facts: ingest it with {how} (each turn a fragment"
            " with its speaker and time, what speakers say of themselves extracted)")


def turns_hint(*, extractor: str, llm_configured: bool) -> str:
    """What to do about turns that gave no belief (they are kept as fragments all the same)."""
    if extractor == "llm":
        return "the skipped turns are kept as fragments of the conversation (evidence without a belief)"
    llm = errors.argument("extractor", "llm")
    how = (f"use {llm} (an endpoint is configured)" if llm_configured else
           f"use {llm} with an OpenAI-compatible endpoint (BELIEFDB_LLM_URL)")
    return f"the skipped turns are kept as fragments of the conversation; for beliefs from them {how}"
