"""A LangGraph store over beliefdb (extra ``langgraph``): ``BeliefStore(db)`` is a ``BaseStore`` whose
reads go through the truth filter and whose writes go through the evidence gate. Rules cited as
"rule N" are those of docs/rules.md.

The mapping:

* a **namespace is a subject**: its labels joined by ``.`` (``("customer", "c1042")`` is the subject
  ``customer.c1042``; LangGraph forbids ``.`` in a label, so every namespace maps to one subject and
  back), and a **key is an attribute**. ``get``, ``search`` and ``delete`` act on exactly that subject:
  never on another that the namespace would name as a person's name or in another case (``("Maya López",)``
  is not ``("maya_lopez",)``, as the library's ``answers`` and ``retract_attribute`` read it by default);
* ``put(namespace, key, {"value": ..., "quote": ..., "source": ..., "text": ...})`` remembers a belief
  (:meth:`beliefdb.BeliefDB.remember`): ``quote`` must be in ``text`` (stored as the next version of
  ``source``, with ``user`` authority unless ``authority`` says otherwise) or, without ``text``, in the
  version of ``source`` in force; else nothing is stored and it raises ``EvidenceMismatch``. Optional:
  ``statement`` (default "<key> of <subject>: <value>"), ``kind``, ``scope``, ``valid_from``,
  ``valid_to``, ``authority``, ``origin``; any other field is refused. ``value`` is a string or a
  finite number: a belief's value is text, and an item gives a number back as the number it was (so
  does any belief whose value is a number as Python writes it: ``"7"`` reads 7, ``"07"`` stays a
  string). A new text of a source replaces the old one in force (what only the old text said stops
  holding), so give each conversation turn its own source (``chat-1042/3``). The same quote of the same
  source text put again stores nothing, whatever became of its belief (rule 18: a step run again does
  not bring back a value replaced or deleted since). A later value of the key supersedes the earlier one (rule 8) unless
  their owners differ or they tie: then both are current, in conflict, until a person chooses. A
  source another principal owns is only proposed to its owner (rule 17): nothing is current until
  they approve;
* ``get`` and ``search`` return **current beliefs only** (:meth:`~beliefdb.BeliefDB.answers` and
  :meth:`~beliefdb.BeliefDB.ask`): superseded, retracted, unsupported, expired and fixture beliefs
  never come back. Each item's value is the belief with its evidence: ``statement``, ``value``,
  ``quote``, ``source``, ``version``, ``start``, ``end``, ``confidence``, ``warnings``, ``belief_id`` and
  the rest of :func:`beliefdb.adapters.fields.answer_fields`; ``created_at`` and ``updated_at`` are when
  the belief was recorded. ``get`` gives the most confident current belief of the key (several are
  current when they differ in scope or are in conflict: its warnings name the others, "also current
  for another scope: ..." or "open conflict with ..."; ``search`` lists each);
* ``search(prefix, query=...)`` asks memory (``ask``: ranked, ``score`` set) about the subjects under the
  prefix only (``ask``'s ``subjects``), so it finds them however many other beliefs match better;
  without a query it lists the current beliefs under the prefix, newest first, a page at a time
  (:meth:`~beliefdb.BeliefDB.newest`: not every belief of the workspace read). ``filter``
  matches the item values as LangGraph's stores do, comparing typed values
  (:mod:`beliefdb.adapters.filters`): a plain value is equality (``{"value": 5}``; an object matches
  the keys it names), and ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte`` compare numbers with
  numbers and strings with strings (a missing field or another type is no match; ``True`` is not 1).
  Any other operator (``$in``, ``$nin``, ``$and``...: LangGraph's stores have none of them) raises
  ``InvalidInput``;
* ``delete`` **retracts** every belief of the key (current and superseded alike, so an older value
  does not come back; reason "deleted through the LangGraph store"), in one transaction that lists them
  under the workspace's write lock (:meth:`~beliefdb.BeliefDB.retract_attribute`: all of them or, on any
  refusal or failure, none; a value another session put or retracted meanwhile is seen as it committed):
  audited, undoable with ``db.retract(belief=..., undo=True)``, and the decisions built on it are flagged as by any
  retraction. Erasure is ``db.forget`` (rule 14), never a side effect of a store call;
* ``list_namespaces`` lists the subjects of current beliefs as namespaces;
* TTLs are not supported (``valid_to`` is how a belief stops being current), and ``index`` is ignored:
  beliefdb embeds every belief itself.

``batch`` runs its operations one by one on the BeliefDB; ``abatch`` runs the same batch in one hop on
a worker thread (the :class:`~beliefdb.AsyncBeliefDB`'s when the store was given one).
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from beliefdb import errors
from beliefdb.adapters import filters
from beliefdb.adapters.fields import answer_fields
from beliefdb.api import Answer, AsyncBeliefDB, Belief, BeliefDB

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as exc:  # pragma: no cover - the extra is installed wherever the suite runs
    raise ImportError("beliefdb's LangGraph store needs langgraph: pip install 'beliefdb[langgraph]'") from exc

__all__ = ["DELETE_REASON", "BeliefStore", "namespace_of", "subject_of", "typed_value"]

DELETE_REASON = "deleted through the LangGraph store"
#: what a put's value may hold; value, quote and source are required
WRITABLE = ("value", "quote", "source", "text", "statement", "kind", "scope", "valid_from", "valid_to", "authority",
            "origin")
#: the most answers a search with a query asks memory for while it looks for enough under its prefix
MAX_ASK = 200
#: the beliefs a filtered search without a query reads at a time, newest first, until it has its items
FILTER_PAGE = 200
#: the most beliefs one call of BeliefDB.newest gives
MAX_PAGE = 100_000

#: a number as Python writes it (``str``) and JSON reads it: what a put of a number stores as the value
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def subject_of(namespace: tuple[str, ...]) -> str:
    """The subject a namespace stands for: its labels joined by ``.``."""
    if isinstance(namespace, str) or not isinstance(namespace, tuple | list):
        # (a string is a sequence of labels too: "customer" named the subject "c.u.s.t.o.m.e.r", silently)
        raise InvalidNamespaceError(f"a namespace is a tuple of labels, not {type(namespace).__name__}:"
                                    f" ({namespace!r},)")
    if not namespace:
        raise InvalidNamespaceError("a namespace names a subject: it cannot be empty")
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label:
            raise InvalidNamespaceError(f"invalid namespace label {label!r}: a non-empty string without '.'")
    return ".".join(namespace)


def namespace_of(subject: str) -> tuple[str, ...]:
    """The namespace of a subject: its parts between ``.``."""
    return tuple(subject.split("."))


def _under(namespace: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    return namespace[:len(prefix)] == prefix


def typed_value(text: str) -> str | int | float:
    """A belief's value (text) as an item's value: the number a put of a number stored (``"5"`` is 5,
    ``"2.5"`` is 2.5: what ``str`` of that number writes, so it reads back as put), else the text."""
    if not _NUMBER.fullmatch(text):
        return text
    try:
        number: int | float = float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:  # an integer of more digits than Python converts
        return text
    return number if str(number) == text else text


def _fields(answer: Answer) -> dict[str, Any]:
    fields = answer_fields(answer)
    fields["value"] = typed_value(fields["value"])
    return fields


def _item(answer: Answer) -> Item:
    belief = answer.belief
    return Item(value=_fields(answer), key=belief.attribute, namespace=namespace_of(belief.subject),
                created_at=belief.recorded_at, updated_at=belief.recorded_at)


def _search_item(answer: Answer, score: float | None) -> SearchItem:
    belief = answer.belief
    return SearchItem(namespace=namespace_of(belief.subject), key=belief.attribute, value=_fields(answer),
                      created_at=belief.recorded_at, updated_at=belief.recorded_at, score=score)


def _does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise errors.InvalidInput(f"unknown namespace match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


class BeliefStore(BaseStore):
    """A LangGraph store on beliefdb memory: namespaces are subjects, keys attributes, reads current
    beliefs only (see the module's documentation for the whole mapping).

    >>> store = BeliefStore(beliefdb.connect())                       # doctest: +SKIP
    >>> graph = builder.compile(store=store)                           # doctest: +SKIP
    """

    def __init__(self, db: BeliefDB | AsyncBeliefDB, *, min_confidence: float = 0.0) -> None:
        """``db``: the memory (an async client's calls of ``abatch`` run on its worker threads);
        ``min_confidence``: searches with a query leave out beliefs under it."""
        self._async = db if isinstance(db, AsyncBeliefDB) else None
        self.db: BeliefDB = db.sync if isinstance(db, AsyncBeliefDB) else db
        self.min_confidence = min_confidence

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each operation in order; results in the same order (None for a put)."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise errors.InvalidInput(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """The same batch, run in one hop on a worker thread."""
        todo = list(ops)
        if self._async is not None:
            return await self._async.call(self.batch, todo)
        return await asyncio.to_thread(self.batch, todo)

    # --- reads: current beliefs only ------------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        # exactly the namespace's subject: never a person's name read as theirs (LangGraph's get)
        found = self.db.answers(subject=subject_of(op.namespace), attribute=str(op.key), exact_subject=True)
        if not found:
            return None
        best = max(found, key=lambda a: (a.belief.confidence, a.belief.recorded_at))
        item = _item(best)
        for other in (a.belief for a in found if a.belief.scope != best.belief.scope):  # (a conflict: ask says)
            where = ", ".join(f"{k}={v}" for k, v in sorted(other.scope.items())) or "no scope"
            item.value["warnings"].append(f"also current for another scope: {other.value!r} ({str(other.id)[:8]})"
                                          f" where {where}: search lists each")
        return item

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        if prefix:
            subject_of(prefix)  # the same labels a namespace may have
        filters.check(op.filter)  # an unknown operator is refused even where nothing would reach it
        wanted = op.offset + op.limit
        if op.query:
            hits = self._ask(op.query, prefix, op.filter, wanted)
            return [_search_item(a, a.score) for a in hits[op.offset:wanted]]
        subjects = self.db.subjects(under=subject_of(prefix)) if prefix else None
        if subjects == []:
            return []
        if op.limit <= 0:
            return []
        found: list[Answer] = []
        if not op.filter:  # the page itself, from the offset (a limit over a page's most, in pages after it)
            for page in self._newest(subjects, op.offset, op.limit):
                found += self._answers([b.id for b in page])
            return [_search_item(a, None) for a in found[:op.limit]]
        # the filter may name evidence or warnings: the candidates' answers, newest first, a page at a time
        for page in self._newest(subjects, 0, None, size=FILTER_PAGE):
            found += [a for a in self._answers([b.id for b in page]) if filters.matches(_fields(a), op.filter)]
            if len(found) >= wanted:
                break
        return [_search_item(a, None) for a in found[op.offset:wanted]]

    def _newest(self, subjects: list[str] | None, offset: int, wanted: int | None, *,
                size: int = MAX_PAGE) -> Iterator[list[Belief]]:
        """Current beliefs newest first from ``offset``, in pages of at most ``size``, each after the last
        belief of the one before (none repeated or skipped while others write), until ``wanted`` (all: None)."""
        after = None
        while wanted is None or wanted > 0:
            take = size if wanted is None else min(size, wanted)
            page = self.db.newest(subjects=subjects, limit=take, offset=offset if after is None else 0, after=after)
            if page:
                yield page
            if len(page) < take:
                return
            after = page[-1].id
            wanted = None if wanted is None else wanted - len(page)

    def _answers(self, ids: list[Any]) -> list[Answer]:
        """These beliefs' answers in this order (one that stopped being current meanwhile is left out)."""
        if not ids:
            return []
        found = {a.belief.id: a for a in self.db.answers(ids=ids)}
        return [found[i] for i in ids if i in found]

    def _ask(self, query: str, prefix: tuple[str, ...], wanted_filter: dict[str, Any] | None,
             wanted: int) -> list[Answer]:
        """Ask memory for enough answers under ``prefix`` that pass the filter: more each time, up to MAX_ASK.
        Under a prefix, memory ranks the prefix's subjects only (``ask``'s ``subjects``): asked of the whole
        workspace, hundreds of closer beliefs elsewhere left none of them among the best."""
        subjects = None
        if prefix:
            subjects = self.db.subjects(under=subject_of(prefix))
            if not subjects:
                return []
        k = max(wanted, 1)
        while True:
            result = self.db.ask(query, k=k, min_confidence=self.min_confidence, subjects=subjects)
            if result.status == "memory_unavailable":  # never an empty list that looks like no match (rule 11)
                raise errors.DatabaseUnavailable(result.reason or "memory unavailable")
            hits = [a for a in result.beliefs
                    if _under(namespace_of(a.belief.subject), prefix) and filters.matches(_fields(a), wanted_filter)]
            if len(hits) >= wanted or len(result.beliefs) < k or k >= MAX_ASK:
                return hits
            k = min(k * 4, MAX_ASK)

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = {namespace_of(subject) for subject in self.db.subjects()}
        conditions = op.match_conditions or ()
        chosen = [ns for ns in namespaces if all(_does_match(c, ns) for c in conditions)]
        if op.max_depth is not None:
            chosen = list({ns[:op.max_depth] for ns in chosen})
        return sorted(chosen)[op.offset:op.offset + op.limit]

    # --- writes: through the evidence gate; delete retracts --------------------------------------

    def _put(self, op: PutOp) -> None:
        if op.ttl is not None:
            raise NotImplementedError("BeliefStore does not support TTLs: give the belief a valid_to instead")
        subject = subject_of(op.namespace)
        if op.namespace[0] == "langgraph":
            raise InvalidNamespaceError("the root label 'langgraph' is reserved by LangGraph")
        if op.value is None:
            self._delete(subject, str(op.key))
            return
        if not isinstance(op.value, Mapping):
            raise errors.InvalidInput(f"a BeliefStore value is a dict of {', '.join(WRITABLE)}, not"
                                      f" {type(op.value).__name__}: {{'value': ..., 'quote': ..., 'source': ...}}")
        self._remember(subject, str(op.key), op.value)

    def _remember(self, subject: str, attribute: str, fields: Mapping[str, Any]) -> None:
        unknown = sorted(set(fields) - set(WRITABLE))
        if unknown:
            raise errors.InvalidInput(f"a BeliefStore value takes {', '.join(WRITABLE)}; not {', '.join(unknown)}")
        missing = [name for name in ("value", "quote", "source") if fields.get(name) in (None, "")]
        if missing:
            raise errors.InvalidInput(f"a belief needs its evidence (rule 1): {', '.join(missing)} missing")
        raw = fields["value"]
        if isinstance(raw, bool) or not isinstance(raw, str | int | float) or (
                isinstance(raw, float) and not math.isfinite(raw)):
            kind = raw if isinstance(raw, float) else type(raw).__name__
            raise errors.InvalidInput(f"a belief's value is a string or a finite number, not {kind}")
        value = str(raw)
        statement = fields.get("statement") or f"{attribute.replace('_', ' ')} of {subject}: {value}"
        report = self.db.remember(statement, subject, attribute, value, fields["quote"], source=fields["source"],
                                  text=fields.get("text"), kind=fields.get("kind") or "fact",
                                  scope=fields.get("scope"), valid_from=fields.get("valid_from"),
                                  valid_to=fields.get("valid_to"), authority=fields.get("authority"),
                                  origin=fields.get("origin"))
        if report.rejected:
            raise errors.EvidenceMismatch(f"the evidence gate refused {statement!r} (rule 1): "
                                          + "; ".join(r.reason for r in report.rejected))

    def _delete(self, subject: str, attribute: str) -> None:
        # in one transaction that lists the values under the workspace's write lock (one another session
        # put or retracted meanwhile is seen as it committed), history first: one the caller may not retract
        # (another principal's belief: NotOwner), or any failure on the way, leaves every value as it was
        self.db.retract_attribute(subject, attribute, reason=DELETE_REASON, exact_subject=True)
