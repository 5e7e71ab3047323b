"""The offline rule extractor: candidate beliefs from a document by sentence rules.

It works per fragment (:func:`beliefdb.text.fragments.iter_fragments`): the quote is the whole
fragment, ``start``/``end`` are its offsets, so ``text[start:end] == quote`` always.

A YAML front matter block and fenced code blocks (:func:`~beliefdb.text.fragments.verbatim_spans`) give
nothing; a markdown table's rows give a belief per cell (:mod:`beliefdb.text.tables`). Rules, in order, the
first match wins per sentence (a trailing ``.``/``!`` is ignored; questions give
nothing):

a. ``X changed from A to B.``                        -> X's subject/attribute, value B
b. ``X is now B.`` / ``X are now B.``                  -> X's subject/attribute, value B
c. ``<Things> are (now) accepted within <duration>( of <event>).``
                                                      -> ``<things>_policy`` / ``window`` = duration
d. ``The A of B is V.``                               -> subject B, attribute A
e. ``The <noun phrase> is V.``                        -> subject = all words but the last, attribute = the
   last word (``_policy`` appended to the subject when the attribute is a policy term); a one-word noun
   phrase takes its subject from the markdown heading it stands under (:func:`section_subject`), else
   from the source name
f. ``Key: value`` lines (also ``键：值``)             -> like e for the key; not a spoken turn (a
   name, then a greeting, a question, a first/second-person or whole sentence: "Alice: I moved to
   Berlin.", "Bob: The deploy failed.", "张伟：我搬到上海了。"; or a line of a speaker of a document
   shaped like a dialogue: "BOB: The deploy failed.\nALICE: I restarted it.")
g. ``X are entitled to <N unit> of <Y>( per <period>).`` -> subject X, attribute Y, value ``N unit per period``
h. ``X is allowed <number ...>.``                     -> like e for X, value from the number on
i. ``X is <number ...>.`` (no ``the``)                -> like e for X
j. CJK ``X是Y`` / ``X为Y``                              -> attribute X (``A的B``: subject A, attribute B)
k. (read after a) a fact's verb, named as the noun phrase that says the same (:mod:`beliefdb.text.verbs`):
   ``X costs <money>`` -> X / ``price``; ``X takes <duration>`` -> X / ``time`` (``Refund processing
   takes``: ``refund`` / ``processing_time``); ``X lasts <duration>`` -> ``duration``; ``X is located/
   based/headquartered in <Place>`` -> ``location``; ``X was founded/established in <year or date>`` ->
   ``founded``; ``X are processed/shipped/... within <duration>`` -> ``processing_time``/``shipping_time``
   /...; ``X is available <days or hours>`` -> ``availability``; ``X is open <days or hours>`` ->
   ``opening_hour``; no value that looks like one, nothing

A money value after rules a, b, e and i (``$49``, ``19 euros a month``) names a plan's price as ``costs`` does
(:func:`beliefdb.text.amounts.priced`): ``The Pro plan is (now) $49 per month.``, ``Pro plan is $49.``, ``The Pro
plan price is $49.``, ``The Pro plan price changed from $49 to $59.`` -> ``pro_plan`` / ``price`` (a phrase
ending in plan, tier, seat, subscription, ... or ``price``; ``The late fee is $5`` stays ``late_policy`` / ``fee``,
``price`` takes no ``_policy``). A trailing ``on <Capitalised plan>( plan|tier|edition)`` or ``for <words>
plans|customers|users|accounts`` after a quantity is the scope (:func:`beliefdb.text.amounts.scoped`: ``The API
rate limit is 100 requests per minute on Pro.`` -> ``{"plan": "Pro"}``, value ``100 requests per minute``), not
the value, as a table's row scopes its cells; rules c and j take none.
A Q&A's answer line, ``A: <sentence>`` / ``Answer: <sentence>`` of a document with ``Q:``/``Question:`` lines,
is read as the sentence after its key (its quote the whole line), before rule f.

A noun phrase's attribute is its last word with the qualifiers before it (``max payload`` ->
``max_payload``; all of a phrase opening with max/min: ``The maximum file size`` -> ``max_file_size``,
"maximum"/"minimum" spelled "max"/"min"), a policy term before a policy term (``API rate limit`` -> ``api``
/ ``rate_limit``), the kind of a time after a subject (``refund processing time`` -> ``refund`` /
``processing_time``), and a rate with the word before ``per`` (``cost per night``, ``per diem``); after a
possessive, the words that follow it (``Dana's badge code`` -> ``dana`` / ``badge_code``); CJK
names are the phrase itself, its punctuation and spaces dropped.

so "Returns are accepted within 7 days of delivery." and "The return window is 7 days." both say
``return_policy`` / ``window`` = ``7 days``, and "The Pro plan costs $49 per month." and "The price of the
Pro plan is $49 per month." ``pro_plan`` / ``price`` = ``$49 per month``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from beliefdb.text.amounts import TERMINAL as _TERMINAL
from beliefdb.text.amounts import clean_value as _clean_value
from beliefdb.text.amounts import priced, scoped
from beliefdb.text.clauses import also_said
from beliefdb.text.extractor import Candidate, Extractor, normalise_name, on_turn
from beliefdb.text.fragments import Fragment, is_key_value, iter_fragments, verbatim_spans, wrapped
from beliefdb.text.kin import family, kin_label, referent
from beliefdb.text.mentions import bare_switch, named_age, plain_value, pronoun_age, relations, replacement
from beliefdb.text.naming import (
    DETERMINERS,
    POLICY_TERMS,
    QUALIFIERS,
    QUANTIFIERS,
    as_said,
    cjk_names,
    is_cjk,
    names,
    noun_words,
    of_names,
    section_subject,
    source_subject,
    speaker_subject,
    with_policy,
)
from beliefdb.text.numbers import NUMBER_WORD
from beliefdb.text.places import heading_level, label_subject, line_place
from beliefdb.text.self_statements import first_person, self_statement
from beliefdb.text.tables import row_candidates, table_rows
from beliefdb.text.transcripts import common_words, dialogue_speakers, spoken_by, spoken_turn
from beliefdb.text.turns import TurnSpan
from beliefdb.text.verbs import verb_fact

__all__ = ["POLICY_TERMS", "QUALIFIERS", "RuleExtractor", "speaker_subject"]

# --- the rule extractor ------------------------------------------------------------------------------

_MAX_RULE_CHARS: Final = 1000  # longer fragments (a Key: value line too) are not single statements; skipping keeps
# rules linear

_WORD: Final = r"[\w'’*`-]+"  # "*" and "`": markdown emphasis and code around words
_NP: Final = rf"{_WORD}(?:\s+{_WORD}){{0,9}}?"
_IS: Final = r"\s+(?:is|are)\s+"
_FLAGS: Final = re.IGNORECASE
_RULE_CHANGED: Final = re.compile(
    rf"(?P<x>{_NP})\s+(?:(?:has|have|was|were)\s+)?changed\s+from\s+(?P<old>.+?)\s+to\s+(?P<value>.+)",
    _FLAGS)
# "X are now accepted within N days" is left to rule c.
_RULE_NOW: Final = re.compile(rf"(?P<x>{_NP}){_IS}now\s+(?!accepted\s+within\s)(?P<value>.+)", _FLAGS)
_RULE_ACCEPTED: Final = re.compile(
    rf"(?P<x>{_NP}){_IS}(?:now\s+)?accepted\s+within\s+(?P<value>.+?)"
    r"(?:\s+(?:of|after|from|following)\s+(?P<event>.+))?", _FLAGS)
_RULE_OF: Final = re.compile(
    rf"the\s+(?P<attribute>{_NP})\s+of\s+(?P<subject>{_NP}){_IS}(?P<value>.+)", _FLAGS)
_RULE_THE: Final = re.compile(rf"the\s+(?P<x>{_NP}){_IS}(?P<value>.+)", _FLAGS)

_ANSWER_KEYS: Final = frozenset({"a", "answer"})  # a Q&A's answer line, read as the sentence after its key
_QUESTION_END: Final = re.compile(r"[?？][\"'”’)\]」』）】》]*$")


def _rule_x(m: re.Match[str], source_name: str, unnamed: str | None) -> tuple[str, str, str] | None:
    return names(m["x"], source_name, unnamed=unnamed)


def _rule_accepted(m: re.Match[str], source_name: str, unnamed: str | None) -> tuple[str, str, str] | None:
    things = noun_words(m["x"], drop=DETERMINERS | QUANTIFIERS)
    subject = normalise_name(" ".join(things)) if things is not None else ""
    return (with_policy(subject, "policy"), "window", "policy") if subject else None


def _rule_of(m: re.Match[str], source_name: str, unnamed: str | None) -> tuple[str, str, str] | None:
    return of_names(m["attribute"], m["subject"], strict=True)


_NUMBER: Final = rf"(?:\d[\d.,]*|{NUMBER_WORD})"
_RULE_ENTITLED: Final = re.compile(
    rf"(?P<x>{_NP}){_IS}entitled\s+to\s+(?P<value>{_NUMBER}\s+{_WORD})\s+of\s+(?P<what>{_NP})"
    r"(?P<rest>\s+(?:per|a|an|each|every)\s+.+)?", _FLAGS)
_RULE_ALLOWED: Final = re.compile(
    rf"(?P<x>{_NP}){_IS}(?:allowed|permitted)\s+(?:for\s+)?(?P<value>(?:up\s+to\s+)?{_NUMBER}\b.*)", _FLAGS)
# "X is <number> ..." (or an amount, "$49"): a number after "is" makes it a statement of quantity (without one,
# "X is Y" may be any clause: "Shipping is free for orders over 50 EUR").
_RULE_QUANTITY: Final = re.compile(rf"(?P<x>{_NP}){_IS}(?P<value>(?:[$€£¥₹]\s?)?{_NUMBER}\b.*)", _FLAGS)
# CJK "X是Y" / "X为Y" ("X的A是Y": subject X, attribute A); the verbs that end in 为 are not it.
_RULE_CJK_IS: Final = re.compile(r"(?P<x>[^\W_]{1,16}?)(?<![不非认因作成以称])(?:是|为)(?P<value>\S.*)")


def _rule_entitled(m: re.Match[str], source_name: str, unnamed: str | None) -> tuple[str, str, str] | None:
    who, what = noun_words(m["x"], drop=DETERMINERS | QUANTIFIERS), noun_words(m["what"])
    if who is None or what is None:
        return None
    subject, attribute = normalise_name(" ".join(who)), normalise_name(" ".join(what))
    return (subject, attribute, "policy") if subject and attribute else None


def _rule_cjk(m: re.Match[str], source_name: str, unnamed: str | None) -> tuple[str, str, str] | None:
    return cjk_names(m["x"], source_name, unnamed=unnamed) if any(is_cjk(ch) for ch in m["x"]) else None


# Rules a (then k, beliefdb.text.verbs), b-e, then g (entitled to), h (allowed), i (X is <number>), j (CJK X是Y),
# in order; each gives (subject, attribute, kind) from its match, the value is the "value" group (and "rest").
_SENTENCE_RULES: Final = (
    (_RULE_CHANGED, _rule_x),
    (_RULE_NOW, _rule_x),
    (_RULE_ACCEPTED, _rule_accepted),
    (_RULE_OF, _rule_of),
    (_RULE_THE, _rule_x),
    (_RULE_ENTITLED, _rule_entitled),
    (_RULE_ALLOWED, _rule_x),
    (_RULE_QUANTITY, _rule_x),
    (_RULE_CJK_IS, _rule_cjk),
)


# the rules whose noun phrase a money value names as a price (a, b, e, i), and those whose value takes no
# trailing scope (c: an event follows its duration; j)
_PRICED: Final = (_RULE_CHANGED, _RULE_NOW, _RULE_THE, _RULE_QUANTITY)
_UNSCOPED: Final = (_RULE_ACCEPTED, _RULE_CJK_IS)
_Found = tuple[str, str, str, str, dict[str, str]]


def _sentence_rules(body: str, source_name: str, unnamed: str | None = None) -> _Found | None:
    """(subject, attribute, value, kind, scope) by rules a-e and g-k, or None (``unnamed``: the subject of a
    phrase that names none, its section's; the scope: a trailing "on Pro", :func:`~beliefdb.text.amounts.scoped`)."""
    for at, (pattern, names_of) in enumerate(_SENTENCE_RULES):
        if at == 1:  # rule k, after a: "X is now located in Y" is no rule b's "X" = "located in Y"
            shaped, said = verb_fact(body, source_name, unnamed)
            value = _clean_value(said[2], sentence=True) if said is not None else None
            if said is not None and value is not None:
                return said[0], said[1], value, said[3], {}
            if shaped:
                return None
        m = pattern.fullmatch(body)
        if m is None:
            continue
        raw = m["value"] + (m["rest"] or "") if "rest" in pattern.groupindex else m["value"]
        value, scope = _clean_value(raw, sentence=True), dict[str, str]()
        if value is not None and pattern not in _UNSCOPED:
            value, scope = scoped(value)
        names = (priced(m["x"], value) if value is not None and pattern in _PRICED else None) \
            or names_of(m, source_name, unnamed)
        if names is not None and value is not None:
            return names[0], names[1], value, names[2], scope
    return None


def _key_value_rule(quote: str, source_name: str, common: frozenset[str],
                    speakers: frozenset[str], unnamed: str | None = None) -> tuple[str, str, str, str] | None:
    """(subject, attribute, value, kind) for a ``Key: value`` line (rule f), or None; None for someone
    speaking ("Alice: I moved to Berlin.", :func:`~beliefdb.text.transcripts.spoken_turn`; ``common``: the
    document's lowercase words), or one of the ``speakers`` of a document shaped like a dialogue
    (:func:`~beliefdb.text.transcripts.dialogue_speakers`: "BOB: The deploy failed.\nALICE: I restarted it.")."""
    m = is_key_value(quote)
    if m is None or spoken_turn(quote, common) or spoken_by(quote, speakers):
        return None
    named, value = names(m["key"], source_name, strict=False, unnamed=unnamed), _clean_value(m["value"], sentence=False)
    if named is None or value is None:
        return None
    return named[0], named[1], value, named[2]


class RuleExtractor(Extractor):
    """Deterministic, offline extraction by the sentence rules a-k (see the module docstring)."""

    name = "rules"

    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        fragments = list(iter_fragments(text))
        keyed = [text[f.start:f.end] for f in fragments if f.kind == "key_value"]
        common = common_words(text) if keyed else frozenset()
        speakers = dialogue_speakers(keyed, common)
        qa = any((m := is_key_value(k)) is not None and m["key"].lower() in ("q", "question") for k in keyed)
        out: list[Candidate] = []
        sections: list[tuple[int, str | None]] = []  # the headings open at a fragment: (level, subject)
        labels: list[tuple[int, bool, str]] = []  # the open list labels: (indent, a list item, subject)
        rows = table_rows(text)
        verbatim = verbatim_spans(text)  # front matter and code blocks: no statements, no headings
        cut = wrapped(text, fragments)  # (a sentence wrapped onto the next line: each part alone is cut short)
        at = 0
        for i, f in enumerate(fragments):
            while at < len(verbatim) and verbatim[at][1] <= f.start:
                at += 1
            if at < len(verbatim) and verbatim[at][0] <= f.start:
                continue
            if f.kind == "heading":
                level = heading_level(text, f.start)
                while sections and sections[-1][0] >= level:
                    sections.pop()
                labels.clear()
            elif (where := line_place(text, f.start)) is not None:
                indent, listed = where
                while labels and (not listed or (labels[-1][1] and labels[-1][0] >= indent)):
                    labels.pop()
                if f.kind in ("list_item", "sentence") and (label := label_subject(text[f.start:f.end])):
                    labels.append((indent, listed, label))  # "- Express shipping:": of the items under it
                    continue
            # (a heading that states a fact, "## The window is 30 days", is about the headings above it)
            unnamed = labels[-1][2] if labels else next((subject for _, subject in reversed(sections) if subject), None)
            if f.kind == "heading":
                sections.append((level, section_subject(text[f.start:f.end])))
            if i in cut:
                continue
            # (a row whose cells hold sentences is split into them, and read as they are)
            if (row := rows.get(f.start)) is not None and f.end == row.end:
                out.extend(row_candidates(text, f.start, row, unnamed or source_subject(source_name)))
                continue
            if (c := self._candidate(text, f, source_name, common, speakers, unnamed, qa)) is not None:
                out.append(c)
        return out

    def extract_turns(self, text: str, turns: Sequence[TurnSpan], *, source_name: str,
                      read: Sequence[TurnSpan] | None = None) -> list[Candidate]:
        """Per sentence of each turn: what the speaker says of themselves (:mod:`beliefdb.text.self_statements`,
        the speaker the subject; a second clause after "and" too), else the sentence rules above for a
        sentence not in the first person. A ``Key: value`` line inside a turn gives nothing (a misread
        speaker line is not a fact). Of one turn's claims on one subject and attribute the last is kept;
        each quotes the whole turn. With ``read``, only those turns' claims: every turn is read all the
        same, so an appended turn means what it means after the turns before it (the names of kin, the
        attribute a replaced value had, the favourite named before)."""
        wanted = None if read is None else {(t.start, t.end) for t in read}
        out: list[Candidate] = []
        said: dict[tuple[str, str], str] = {}  # (subject, value) -> the attribute an earlier turn gave it
        favorites: dict[str, str] = {}  # subject -> the favourite it named last ("my go-to drink is ...")
        # a name -> (subject, relation): "my daughter Mila", said anywhere in the conversation
        kin = family((speaker_subject(t.speaker), text[t.start:t.end][f.start:f.end])
                     for t in turns for f in iter_fragments(text[t.start:t.end]))
        unnamed = source_subject(source_name)
        ages: dict[str, set[str]] = defaultdict(set)  # subject -> the relations given an age so far
        for turn in turns:
            body = text[turn.start:turn.end]
            kept: dict[tuple[str, str], Candidate] = {}
            for f in iter_fragments(body):
                sentence = body[f.start:f.end]
                short = len(sentence) <= _MAX_RULE_CHARS
                subject = speaker_subject(turn.speaker)
                swap = replacement(sentence) if short else None
                found = self_statement(sentence) if short else None
                # "I moved from X to Y": where the speaker lives (whatever else X was: "I'm from X"), and X,
                # never given as where the speaker lives, where the speaker lived until then (unless_given: nor
                # in another source of the workspace, which the database knows of)
                moved = swap is not None and found is not None and found[0] == "lives_in"
                left = swap[0] if swap is not None and moved and turn.time is not None \
                    and said.get((subject, swap[0].casefold())) != "lives_in" else None
                if swap is not None and not moved and (subject, swap[0].casefold()) in said:
                    # Y in place of X: the attribute X had, so the change supersedes
                    found = said[(subject, swap[0].casefold())], swap[1]
                habit = found is not None and (found[0] == "favorite" or (found[0] == "uses" and bare_switch(sentence)))
                if found is not None and habit and subject in favorites:
                    found = favorites[subject], found[1]  # "these days my go-to is X": the favourite named before
                if found is not None and found[0].startswith("favorite"):
                    favorites[subject] = found[0]
                aged = named_age(sentence) if short and found is None else None
                if aged is not None and aged[0] in kin:  # "Theo is 7" of "my daughter Theo": her age
                    subject, relation = kin[aged[0]]
                    found = f"{relation}_age", aged[1]
                whose = pronoun_age(sentence) if short and found is None else None
                if whose is not None and (she := referent(ages[subject], whose[0])) is not None:
                    found = f"{she}_age", whose[1]  # "she's 6" after "my daughter is 5": her age
                for name, relation in relations(sentence):
                    kin.setdefault(name, (subject, relation))
                # a second clause ("I live in Munich and work as a nurse"): the speaker's too
                more = also_said(sentence) if short else None
                ages[subject].update(f[0].removesuffix("_age") for f in (found, more)
                                     if f is not None and f[0].endswith("_age") and f[0] != "age")
                if more is not None and (found is None or more[0] != found[0]):
                    self._keep(kept, said, text, turn, Candidate(
                        statement=f"{turn.speaker}: {sentence}", subject=speaker_subject(turn.speaker),
                        attribute=more[0], value=more[1], quote=sentence))
                if found is not None:
                    about = kin_label(kin, subject, found[0], sentence)  # "my daughter is 7": which one
                    c: Candidate | None = Candidate(
                        statement=f"{turn.speaker}" + (f", of {about}" if about else "") + f": {sentence}",
                        subject=subject, attribute=found[0], value=found[1], quote=sentence)
                elif f.kind == "key_value" or first_person(sentence):
                    continue
                elif aged is not None:
                    c = Candidate(statement=f"{turn.speaker}: {sentence}", subject=aged[0], attribute="age",
                                  value=aged[1], quote=sentence)
                else:
                    c = self._candidate(body, f, source_name)
                    # in a conversation a claim names its subject, and "is parked outside" is no value
                    if c is not None and (c.subject == unnamed or not plain_value(c.value)):
                        c = None
                if c is not None:
                    self._keep(kept, said, text, turn, c)
                if left is not None and turn.time is not None:  # (valid until the turn: expired, never a rival)
                    kept[(subject, "lives_in\0before")] = replace(on_turn(Candidate(
                        statement=f"{turn.speaker}: {sentence}", subject=subject, attribute="lives_in", value=left,
                        quote=sentence), text, turn), valid_from=None, valid_to=turn.time.isoformat(),
                        unless_given=True)
            # a role's own claims: the user's scoped to this conversation, none of the assistant's of itself
            roles = {speaker_subject(turn.speaker)}
            kept = {k: said_so for k, c in kept.items() if (said_so := as_said(c, roles, source_name)) is not None}
            if wanted is None or (turn.start, turn.end) in wanted:
                out.extend(kept.values())
        return out

    @staticmethod
    def _keep(kept: dict[tuple[str, str], Candidate], said: dict[tuple[str, str], str], text: str, turn: TurnSpan,
              c: Candidate) -> None:
        """Keep ``c`` as the turn's last claim on its subject and attribute, and remember the attribute its
        value was given (a later "switched from X to Y" gives Y that attribute)."""
        kept.pop((c.subject, c.attribute), None)
        kept[(c.subject, c.attribute)] = on_turn(c, text, turn)
        said[(c.subject, c.value.casefold())] = c.attribute

    @staticmethod
    def _candidate(text: str, fragment: Fragment, source_name: str, common: frozenset[str] = frozenset(),
                   speakers: frozenset[str] = frozenset(), unnamed: str | None = None, qa: bool = False
                   ) -> Candidate | None:
        quote = text[fragment.start:fragment.end]
        if _QUESTION_END.search(quote):
            return None
        found = None
        if len(quote) <= _MAX_RULE_CHARS:
            found = _sentence_rules(quote.rstrip(_TERMINAL), source_name, unnamed)
        # (a document of Q: and A: lines; not a dialogue of A and B: "A: The server is down.\nB: I restarted it.")
        answer = is_key_value(quote) if found is None and fragment.kind == "key_value" and qa else None
        if answer is not None and answer["key"].lower() in _ANSWER_KEYS and len(quote) <= _MAX_RULE_CHARS:
            found = _sentence_rules(answer["value"].rstrip(_TERMINAL), source_name, unnamed)  # "A: Backups are ..."
        if found is None and fragment.kind == "key_value" and len(quote) <= _MAX_RULE_CHARS:
            keyed = _key_value_rule(quote, source_name, common, speakers, unnamed)
            found = (*keyed, {}) if keyed is not None else None
        if found is None:
            return None
        subject, attribute, value, kind, scope = found
        return Candidate(statement=quote, subject=subject, attribute=attribute, value=value, quote=quote,
                         kind=kind, scope=scope, start=fragment.start, end=fragment.end)
