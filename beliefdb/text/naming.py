"""How the rule extractor names what a sentence is about: a noun phrase's subject and attribute
(``The max payload`` -> the document's subject / ``max_payload``; ``Dana's badge code`` -> ``dana`` /
``badge_code``; ``the price of the premium plan`` -> ``premium_plan`` / ``price``), a CJK phrase's
(not transliterated), and a speaker's own subject (:func:`speaker_subject`)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Final

from beliefdb.text.extractor import Candidate, any_script_name, normalise_name

__all__ = ["CJK_PRONOUNS", "DETERMINERS", "MACHINE_ROLES", "POLICY_TERMS", "QUALIFIERS", "QUANTIFIERS", "TIME_KINDS",
           "as_said", "cjk_names", "is_cjk", "kind_of", "names", "noun_words", "of_names", "section_subject",
           "short_qualifiers", "source_subject", "speaker_subject", "with_policy"]

POLICY_TERMS: Final = frozenset({
    "window", "period", "deadline", "limit", "fee", "rate", "threshold", "policy", "price", "cost",
})


# Words that qualify the attribute rather than name the subject: "Max payload" is the attribute
# max_payload (of the document's subject), not the attribute payload of a subject "max".
QUALIFIERS: Final = frozenset({
    "max", "maximum", "min", "minimum", "total", "average", "avg", "default", "standard", "base", "annual",
    "monthly", "weekly", "daily", "yearly", "hourly", "initial", "final", "net", "gross", "peak", "typical",
    "nominal", "rated", "parental", "maternity", "paternity", "paid", "unpaid", "sick", "remote", "minimal",
    "maximal",
})


# "maximum"/"minimum" are spelled "max"/"min" in an attribute ("The maximum file size" and "Max file size:" are
# one attribute, max_file_size), and a phrase that opens with one is all attribute, of the section's subject
_SHORT: Final = {"maximum": "max", "minimum": "min"}
_SHORT_RE: Final = re.compile(r"\b(?:maximum|minimum)\b", re.IGNORECASE)
_LEADING: Final = frozenset({"max", "maximum", "min", "minimum"})
# a policy term before the last one is of the attribute: "The API rate limit" is api / rate_limit, as "The
# rate limit of the API" says, not api_rate_policy / limit ("The return policy window" stays return_policy)
_COMPOUND_POLICY: Final = POLICY_TERMS - {"policy"}
# what a time is of, which stays with "time" after a subject ("The refund processing time" is refund /
# processing_time, as "The processing time of refunds" and "Refunds are processed within" say; "The processing
# time" alone stays processing / time, as "Processing takes" says; "shipping" and "delivery" name a subject,
# "The express shipping time" is express_shipping / time, as "Express shipping takes" says)
TIME_KINDS: Final = frozenset({"processing", "handling", "response", "resolution", "turnaround", "approval"})


def short_qualifiers(words: str) -> str:
    """``words`` with "maximum"/"minimum" spelled "max"/"min" (an attribute's words, see :data:`QUALIFIERS`)."""
    return _SHORT_RE.sub(lambda m: _SHORT[m[0].lower()], words)


def speaker_subject(speaker: str) -> str:
    """The subject a speaker's statements about themselves are about: their name in lowercase snake_case,
    accents folded, no word made singular ("James Doe" -> ``james_doe``); the name lowercased when it
    has no ASCII letters or digits."""
    folded = unicodedata.normalize("NFKD", speaker).encode("ascii", "ignore").decode("ascii").lower()
    return "_".join(re.findall(r"[a-z0-9]+", folded)) or "_".join(speaker.lower().split())


# A speaker named by a chat log's role ({"role": "user"}) is whoever that role was in that conversation
ROLE_SPEAKERS: Final = frozenset({"user", "human", "assistant", "ai", "bot", "model", "system"})


# ... of which these are the machine's: what it says of itself ("I am an AI assistant", "I work at OpenAI")
# is how it talks, not a fact to remember: no claim, its turn stays as text (a fragment ``ask`` finds)
MACHINE_ROLES: Final = frozenset({"assistant", "ai", "bot", "model", "system"})


def speaker_scope(speaker: str, conversation: str) -> dict[str, str]:
    """The scope of what a speaker says of themselves: ``{"conversation": ...}`` when the speaker is a role
    ("user", "assistant": a different person in each conversation, so one user's city never replaces
    another's), else none (a person named is the same person in every conversation)."""
    return {"conversation": conversation} if speaker_subject(speaker) in ROLE_SPEAKERS else {}


def as_said(candidate: Candidate, roles: Collection[str], conversation: str) -> Candidate | None:
    """``candidate`` of a conversation as memory keeps it, ``roles`` being the subjects of the role speakers
    (:data:`ROLE_SPEAKERS`) it is about when it is about them: none about a machine role's own self
    (:data:`MACHINE_ROLES`), and one about another role ("user") scoped to ``conversation``
    (:func:`speaker_scope`). Every extractor of turns keeps claims so."""
    if candidate.subject not in roles or candidate.subject not in ROLE_SPEAKERS:
        return candidate
    if candidate.subject in MACHINE_ROLES:
        return None
    return replace(candidate, scope={**candidate.scope, "conversation": conversation})


@functools.lru_cache(maxsize=64)  # (called for each unnamed fact of a document, with the one name)
def source_subject(source_name: str) -> str:
    """The subject a source's unnamed facts are about: its file name's stem as a name (``returns.md`` ->
    ``return``, ``退货.md`` -> ``退货``, ``Москва.md`` -> ``москва``), ``document`` when it has no letter or
    digit. A backslash is a Windows path's
    separator, unless it begins the escape of a byte that is not UTF-8 (``caf\\xe9.md``, beliefdb.inputs.shown)."""
    stem = PurePosixPath(re.sub(r"\\(?![xu][0-9a-fA-F]{2})", "/", source_name)).stem
    return normalise_name(stem) or any_script_name(stem) or "document"

DETERMINERS: Final = frozenset({"the", "a", "an", "our", "your", "their", "its", "my", "his", "her",
                                 "this", "that", "these", "those"})
QUANTIFIERS: Final = frozenset({"all", "any", "every", "each"})
# Words that show a phrase is a clause, not a noun phrase; such sentences give nothing.
NOT_IN_NOUN_PHRASE: Final = frozenset({
    "and", "or", "but", "if", "when", "while", "because", "so", "that", "which", "who", "whom", "whose",
    "what", "where", "why", "how", "it", "they", "we", "you", "he", "she", "i", "me", "us", "them",
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does", "did",
    "will", "would", "should", "can", "could", "may", "might", "must", "shall", "not", "no", "never",
    "for", "in", "on", "at", "with", "from", "by", "to", "into", "onto", "under", "over", "after", "before",
    "during", "since", "until", "about", "as", "than", "then", "there", "here", "now", "also", "changed",
    "accepted",
})
MAX_NOUN_PHRASE_WORDS: Final = 6

POSSESSIVE: Final = re.compile(r"['’]s?$")

def noun_words(phrase: str, *, strict: bool = True, drop: frozenset[str] = DETERMINERS) -> list[str] | None:
    """The words of a noun phrase without leading determiners and possessive endings, or None."""
    words = phrase.split()
    while words and words[0].lower() in drop:
        words = words[1:]
    words = [POSSESSIVE.sub("", w) for w in words]
    if not words or len(words) > MAX_NOUN_PHRASE_WORDS or not all(words):
        return None
    if strict and any(w.lower() in NOT_IN_NOUN_PHRASE for w in words):
        return None
    return words


def possessor(phrase: str) -> tuple[int, bool] | None:
    """Where the possessor of a noun phrase ends, counted in ``noun_words``' words (the last word before
    the final one with a possessive ending: ``Dana's badge code``, 0), and whether it is a plural's
    (``employees'``; a name's ``James's`` is not), or None."""
    words = phrase.split()
    while words and words[0].lower() in DETERMINERS:
        words = words[1:]
    marked = [i for i, w in enumerate(words[:-1]) if POSSESSIVE.search(w) and len(w) > 2]
    return (marked[-1], words[marked[-1]].endswith(("s'", "s’"))) if marked else None


def with_policy(subject: str, attribute: str) -> str:
    """``subject`` with ``_policy`` appended when ``attribute`` is a policy's term ("The return window" ->
    ``return_policy`` / ``window``, as "Returns are accepted within" names it); not for ``price``, of the thing
    priced ("The Pro plan price" -> ``pro_plan`` / ``price``, as "The price of the Pro plan" names it)."""
    if attribute in POLICY_TERMS and attribute != "price" and subject != "policy" and not subject.endswith("_policy"):
        return f"{subject}_policy"
    return subject


def kind_of(attribute: str) -> str:
    return "policy" if attribute in POLICY_TERMS else "fact"


def of_names(attribute_phrase: str, subject_phrase: str, *, strict: bool) -> tuple[str, str, str] | None:
    """``The A of B``: subject B, attribute A."""
    a = noun_words(attribute_phrase, strict=strict)
    b = noun_words(subject_phrase, strict=strict)
    if a is None or b is None:
        return None
    subject, attribute = normalise_name(" ".join(b)), normalise_name(short_qualifiers(" ".join(a)))
    if not subject or not attribute:
        return None
    return subject, attribute, kind_of(attribute)


def names(phrase: str, source_name: str, *, strict: bool = True,
          unnamed: str | None = None) -> tuple[str, str, str] | None:
    """(subject, attribute, kind) for a noun phrase, or None when it is not one; a phrase that names no
    subject ("Window") is about ``unnamed`` (the section it stands in), else the source's."""
    words = noun_words(phrase, strict=False)
    if words is None:
        return None
    lowered = [w.lower() for w in words]
    if "of" in lowered:
        i = lowered.index("of")
        return of_names(" ".join(words[:i]), " ".join(words[i + 1:]), strict=strict)
    if strict and noun_words(phrase, strict=True) is None:
        return None
    if any(is_cjk(ch) for w in words for ch in w):
        return cjk_names("".join(words), source_name, unnamed=unnamed)
    # a possessive names the subject ("Dana's badge code": dana / badge_code), what follows it the attribute,
    # a policy by its last word ("Employees' notice period"); a possessor is made singular when it is
    # a plural's ("employees'"), not a name's ("James's": james, as speaker_subject names him)
    found = possessor(phrase)
    if found is not None:
        owner, plural = found
        subject = normalise_name(" ".join(words[:owner + 1]), singular=plural)
        attribute = normalise_name(short_qualifiers(" ".join(words[owner + 1:])))
        if subject and attribute:
            return subject, attribute, kind_of(attribute.rpartition("_")[2])
    # the attribute: the last word with the qualifiers before it ("max payload"), and a rate or a fixed
    # phrase with "per" ("cost per night", "per diem"), a policy term before a policy term ("rate limit");
    # all of a phrase that opens with max/min ("maximum file size")
    split = 0 if lowered[0] in _LEADING else len(words) - 1
    policy = split > 0 and lowered[-1] in POLICY_TERMS and lowered[split - 1] in _COMPOUND_POLICY
    if policy or (split >= 2 and lowered[-1] == "time" and lowered[split - 1] in TIME_KINDS):
        split -= 1
    while split > 0 and (lowered[split - 1] in QUALIFIERS or lowered[split - 1] == "per"):
        split = max(split - (2 if lowered[split - 1] == "per" else 1), 0)
    attribute = normalise_name(short_qualifiers(" ".join(words[split:])))
    if attribute and split == 0:
        return unnamed or source_subject(source_name), attribute, kind_of(attribute)
    subject = normalise_name(" ".join(words[:split]))
    if attribute and subject:
        return with_policy(subject, attribute), attribute, kind_of(attribute)
    # named nothing in ASCII (so no name stored before changes): a phrase of another script alone
    # ("Срок гарантии") is the attribute whole, as written, with no English word order to split it by
    letters = [ch for w in words for ch in w if ch.isalpha()]
    if letters and not any(_latin(ch) for ch in letters):
        attribute = any_script_name(" ".join(words), singular=False)
        return (unnamed or source_subject(source_name), attribute, "fact") if attribute else None
    return None

_SECTION_NUMBER: Final = re.compile(r"(?:\d{1,3}[.)]?)+\s+")


def section_subject(heading: str) -> str | None:
    """The subject a markdown heading gives the lines under it that name none ("## Returns" -> ``return``,
    "## 2. Exchanges" -> ``exchange``), or None when the heading is no noun phrase ("## How do I reach
    you?"); a CJK heading is its own name."""
    title = _SECTION_NUMBER.sub("", heading.strip(), count=1).strip().strip("*_`").strip()
    if title and any(is_cjk(ch) for ch in title):
        return cjk_name(title) or None
    words = noun_words(title, strict=True) if title and title[-1] not in "?？:：" else None
    return normalise_name(" ".join(words)) or None if words is not None else None


def is_cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"


def _latin(ch: str) -> bool:
    """Whether the letter ``ch`` is of the Latin script (ASCII, accented, or one earlier releases dropped: ß, ø)."""
    return ch.isascii() or "LATIN" in unicodedata.name(ch, "")


def cjk_name(phrase: str) -> str:
    # NFKC first, so that "¹" or a full-width "Ａ" is the digit or letter it stands for; any other
    # letter or digit that is neither CJK nor ASCII would make a name that fits no name's pattern, and so
    # would the CJK block's punctuation ("。", "、", "「": a heading that ends a sentence named its section
    # "退货期限是七天。")
    folded = unicodedata.normalize("NFKC", phrase).lower()
    return "".join(ch for ch in folded if (is_cjk(ch) and ch.isalnum()) or ("a" <= ch <= "z") or ("0" <= ch <= "9"))


# Chinese pronouns and demonstratives: no thing a phrase names ("这是一个测试。", "我是学生。": no fact, as
# "This is a test." is none)
CJK_PRONOUNS: Final = frozenset({
    "我", "你", "您", "他", "她", "它", "我们", "你们", "您们", "他们", "她们", "它们", "咱", "咱们", "大家", "自己",
    "这", "那", "这个", "那个", "这些", "那些", "这里", "那里", "这儿", "那儿", "这样", "那样", "哪", "哪个", "哪些",
    "哪里", "谁", "什么", "此", "其", "别人", "人家",
})


def cjk_names(phrase: str, source_name: str, *, unnamed: str | None = None) -> tuple[str, str, str] | None:
    """CJK words are not spaced and not transliterated: the phrase itself names the attribute (of
    ``unnamed``, the section's subject, when it names none, else of the source's); a pronoun or demonstrative
    (:data:`CJK_PRONOUNS`) alone names nothing."""
    subject_part, _, attribute_part = phrase.rpartition("的")
    attribute, subject = cjk_name(attribute_part), cjk_name(subject_part)
    # (a pronoun before 的 stays the subject, as earlier releases stored it: a conversation's "我的电话是555"
    # is 我 / 电话, which a rule reading turns may map to the speaker; a document ingested again names its
    # claims as it did)
    if not attribute or attribute in CJK_PRONOUNS:
        return None
    return subject or unnamed or source_subject(source_name), attribute, "fact"
