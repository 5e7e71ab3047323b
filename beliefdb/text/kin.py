"""Who a speaker's family members are, across a whole conversation: "my daughter Mila" names her
wherever it is said, and a speaker who gives the age of one person by name only ("Noah is 4, so ...")
and of one relation without a name ("my daughter is 5 now") speaks of one child (issue 20: two
attributes for one age, so the change never superseded).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Final

from beliefdb.text.mentions import named_age, relations
from beliefdb.text.self_statements import self_statement

__all__ = ["family", "kin_label", "referent"]

Kin = dict[str, tuple[str, str]]  # a name -> (the speaker's subject, the relation)


def family(sentences: Iterable[tuple[str, str]]) -> Kin:
    """The family members named in ``(subject, sentence)`` pairs (each a speaker's subject and one
    sentence of theirs): every "my <relation> <Name>", and a name linked to a relation when the speaker
    gives ages to that one name and that one relation only, never naming the relation's member."""
    kin: Kin = {}
    named: dict[str, set[str]] = defaultdict(set)  # subject -> names given an age, no relation said
    unnamed: dict[str, set[str]] = defaultdict(set)  # subject -> relations given an age, no name said
    for subject, sentence in sentences:
        said = relations(sentence)
        for name, relation in said:
            kin.setdefault(name, (subject, relation))
        found = self_statement(sentence)
        if found is not None and found[0].endswith("_age") and not said:
            unnamed[subject].add(found[0].removesuffix("_age"))
        aged = named_age(sentence) if found is None else None
        if aged is not None:
            named[subject].add(aged[0])
    for subject, names in named.items():
        loose = {n for n in names if n not in kin}
        rels = unnamed.get(subject, set())
        if len(loose) == 1 and len(rels) == 1:
            (relation,) = rels
            if not any(k == (subject, relation) for k in kin.values()):
                kin[loose.pop()] = (subject, relation)
    return kin


def kin_label(kin: Kin, subject: str, attribute: str, sentence: str) -> str | None:
    """"daughter Mila" when ``attribute`` is a relation's (``daughter_age``) whose one named member the
    sentence does not name itself, so the belief's statement says whom it is about."""
    names = [n for n, (s, r) in kin.items() if s == subject and attribute.startswith(f"{r}_")]
    if len(names) != 1 or re.search(rf"\b{re.escape(names[0])}\b", sentence, re.IGNORECASE):
        return None
    return f"{kin[names[0]][1]} {names[0].title()}"


# whom "she" and "he" can be; a relation in neither set (kid, partner, dog, ...) can be either
_SHE: Final = frozenset({"daughter", "girl", "sister", "mom", "mum", "mother", "wife", "grandma", "grandmother",
                         "niece", "aunt", "girlfriend"})
_HE: Final = frozenset({"son", "boy", "brother", "dad", "father", "husband", "grandpa", "grandfather", "nephew",
                        "uncle", "boyfriend"})


def referent(aged: Iterable[str], pronoun: str) -> str | None:
    """The relation "she" or "he" (``pronoun``) is when it can be one only of the relations the speaker
    gave an age before (``aged``), else None (nobody, or more than one)."""
    other = _HE if pronoun == "she" else _SHE
    can_be = {r for r in aged if r not in other}
    return can_be.pop() if len(can_be) == 1 else None
