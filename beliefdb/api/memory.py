"""The BeliefDB object an agent (and the CLI, and the servers) uses, bound to one workspace; ``connect()`` opens it.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from uuid import UUID

from beliefdb.api import bulk, conversations, jobs, pictures, texts
from beliefdb.api.arguments import check_given, check_opening, check_text_arguments
from beliefdb.api.decisions import Decisions
from beliefdb.api.review import Review
from beliefdb.api.traces import Traces
from beliefdb.db.bootstrap import resolve_url
from beliefdb.db.connector import Database
from beliefdb.embedders import Embedder, get_embedder, openmp_defaults
from beliefdb.inputs import (
    check_callback,
    check_scope,
    check_workspace_name,
    given_home,
    given_path,
    ids_of,
    moment_text,
)
from beliefdb.models import (
    Answer,
    AskResult,
    AuditResult,
    Belief,
    Calibration,
    Changes,
    ConfidenceReport,
    CorrectionPreview,
    CorrectionResult,
    EmbedReport,
    Expired,
    Forgotten,
    ImpactRow,
    IngestFailure,
    IngestReport,
    Why,
    Workspace,
    WorkspaceDeleted,
)
from beliefdb.store import (
    audit,
    beliefs,
    calibrate,
    citations,
    corrections,
    ingest,
    lifecycle,
    remember,
    retraction,
    retrieve,
    workspaces,
)
from beliefdb.store import vectors as embeddings
from beliefdb.store.calibrate import DEFAULT_BINS
from beliefdb.text.extractor import Candidate

__all__ = ["BeliefDB", "Progress", "connect"]

#: called with (done, total) after each batch of a long job
Progress = Callable[[int, int], None]


class BeliefDB(bulk.Bulk, Decisions, Review, Traces, pictures.Pictures, texts.Texts, jobs.Jobs,
               conversations.Conversations):
    """Memory bound to one workspace. Every method is one transaction (batch jobs: one per batch); the
    pictures (``why_graph``, ``impact_graph``, ...) come from :class:`~beliefdb.api.pictures.Pictures`, the
    source texts (``source_excerpts``) from :class:`~beliefdb.api.texts.Texts`.
    >>> with BeliefDB(workspace="default") as db:   # doctest: +SKIP  (or db = connect(...); db.close())
    ...     db.ingest("return-policy.md", authority="official")
    """

    def __init__(self, url: str | Database | None = None, workspace: str | None = None, *,
                 principal: str | None = None, home: str | Path | None = None, max_size: int = 4) -> None:
        """Open memory as :func:`connect` does (``url``, else the embedded server under ``home``, else
        ``BELIEFDB_URL``, else the embedded server of ``BELIEFDB_HOME``); given a ``Database`` already open,
        wrap that one."""
        # (before the pool's threads, or a bulk ingest's embedding thread, may read the environment; it reads
        # BELIEFDB_EMBEDDER, and refuses an unknown one: embedders.configured_name)
        openmp_defaults(unless_configured_otherwise=True)
        if not isinstance(url, Database):
            check_opening(url=url, workspace=workspace, principal=principal, home=home, max_size=max_size)
        if not isinstance(url, Database) and workspace is not None:
            check_workspace_name(workspace)  # (before any connection: an empty name names no workspace)
        self.database = url if isinstance(url, Database) else Database(
            resolve_url(url, home=given_home(home)), workspace, principal=principal,
            max_size=max_size)

    @property
    def workspace(self) -> str:
        """The name of the workspace this memory is bound to."""
        return self.database.workspace_name

    # --- memory ---------------------------------------------------------------------------------

    def ingest(self, *paths: str | Path, source: str | None = None, authority: str | None = None,
               label: str | None = None, version_label: str | None = None, claims: str | Path | None = None,
               extractor: str = "rules", embed: bool = True, preview: bool = False,
               progress: Callable[[Path], None] | None = None, max_bytes: int | None = None
               ) -> list[IngestReport | IngestFailure]:
        """Ingest .txt/.md files or directories of them (a source per file, named by its path below the directory),
        one transaction each, a bad file not stopping the others; ``embed=False``: for :meth:`embed`; ``preview``:
        what each would change, nothing written; ``progress``: each path once done; over ``max_bytes``: refused."""
        check_callback(progress, "progress")
        options = ingest.SourceOptions(name=source, authority=authority, provenance=label,
                                       version_label=version_label)
        files = [given_path(p, "paths") for p in paths]
        claims_file = given_path(claims, "claims") if claims is not None else None
        return ingest.ingest_paths(self.database, files, options, claims=claims_file, extractor=extractor,
                                   embed=embed, preview=preview, progress=progress, max_bytes=max_bytes)

    def ingest_text(self, text: str, *, source: str, authority: str | None = None, label: str | None = None,
                    origin: str | None = None, version_label: str | None = None,
                    extractor: str = "rules", embed: bool = True, preview: bool = False) -> IngestReport:
        """Store ``text`` as the next version of ``source`` and extract beliefs from it (``preview``: exactly
        what that would change, nothing written; ``embed=False``: for :meth:`embed`). Another principal's
        source: proposed to its owner. A leading byte order mark (U+FEFF) is not stored: offsets count
        from after it, as for a file."""
        options = ingest.SourceOptions(name=source, authority=authority, provenance=label, origin=origin,
                                       version_label=version_label)
        return ingest.ingest_text(self.database, text, options, extractor=extractor, embed=embed, preview=preview)

    def remember(self, statement: str, subject: str, attribute: str, value: str, quote: str, *, source: str,
                 text: str | None = None, kind: str = "fact", scope: Mapping[str, str] | None = None,
                 valid_from: datetime | str | None = None, valid_to: datetime | str | None = None,
                 authority: str | None = None, origin: str | None = None) -> IngestReport:
        """Remember one belief, through the same evidence gate as ingest.

        With ``text``, the text becomes the next version of ``source`` (a new source: a conversation with
        ``user`` authority unless given; an existing one keeps its own) and the quote must be in it;
        without, the quote must be in the version of ``source`` in force. A new version replaces the old
        one in force: give each conversation turn its own source (e.g. ``chat-1042/3``) unless ``text``
        holds the whole conversation so far (or append turns: :meth:`remember_turn`). A quote the gate
        rejects stores nothing, not even ``text`` (the report's ``rejected`` says why). ``valid_from`` /
        ``valid_to``: when what it says starts and stops being true (a ``datetime``, or ISO 8601 text;
        without a time zone, local time).
        """
        candidate = Candidate(statement=statement, subject=subject, attribute=attribute, value=value,
                              quote=quote, kind=kind, scope=check_scope(scope),
                              valid_from=moment_text(valid_from, "valid_from"),
                              valid_to=moment_text(valid_to, "valid_to"))
        if text is not None:
            # a new source is a conversation unless the caller says otherwise (an existing one keeps its own),
            # and the database gives a new conversation user authority (beliefdb._new_source_authority)
            options = ingest.SourceOptions(name=source, authority=authority, origin=origin)
            return remember.remember_with_text(self.database, text, options, candidate,
                                               new_source=ingest.SourceOptions(origin="conversation"))
        return remember.remember_in_source(self.database, source, candidate)

    def beliefs(self, *, subject: str | None = None, attribute: str | None = None, include_all: bool = False,
                as_of: datetime | None = None, include_fixtures: bool = False, limit: int | None = None,
                after: str | UUID | None = None) -> list[Belief]:
        """Current beliefs (or all with their status, or those believed at ``as_of``), production only unless
        ``include_fixtures``; by subject, attribute and recording, ``limit`` of them after the belief ``after``.
        ``subject`` may be a person's name ("Maya López") when no belief has the name itself as its subject
        (given empty or blank it names none: InvalidInput)."""
        check_given(subject=subject, attribute=attribute)
        return beliefs.list_beliefs(self.database, subject=subject, attribute=attribute, include_all=include_all,
                                    as_of=as_of, include_fixtures=include_fixtures, limit=limit, after=after)

    def newest(self, *, subjects: Sequence[str] | None = None, limit: int = 20, offset: int = 0,
               after: str | UUID | None = None, include_fixtures: bool = False) -> list[Belief]:
        """Current beliefs, newest first (by recording; those recorded together by id), production only unless
        ``include_fixtures``; of ``subjects`` when given (each exactly as given, e.g. from :meth:`subjects`);
        ``limit`` (1 to 100,000) after the belief ``after`` (the last of the page before: no belief repeated
        or skipped while others are written) or from ``offset``. The page is read in order, not every belief
        of the workspace sorted (of ``subjects``: their beliefs)."""
        return beliefs.newest(self.database, subjects=subjects, limit=limit, offset=offset, after=after,
                              include_fixtures=include_fixtures)

    def subjects(self, *, under: str | None = None, include_fixtures: bool = False) -> list[str]:
        """The subjects current beliefs are about, sorted, production only unless ``include_fixtures``;
        ``under``: only that subject and those below it (``under.`` then anything, compared as text)."""
        return beliefs.subjects(self.database, under=under, include_fixtures=include_fixtures)

    def why(self, belief: str | UUID, *, as_of: datetime | None = None, include_fixtures: bool = False,
            run: str | UUID | None = None) -> Why:
        """A belief with its evidence, confidence factors, supersession history and what was built on it;
        ``run``: record that this run read it (see :meth:`decide_in_run`)."""
        found = beliefs.why(self.database, belief, as_of=as_of, include_fixtures=include_fixtures)
        if run is not None:
            citations.record_reads(self.database, run, [found.belief.id], {"why": str(belief)}, as_of)
        return found

    def ask(self, question: str, *, k: int = 5, as_of: datetime | None = None,
            scope: Mapping[str, str] | None = None, min_confidence: float = 0.0, include_fixtures: bool = False,
            embedder: str | Embedder | None = None, run: str | UUID | None = None,
            subjects: Sequence[str] | None = None) -> AskResult:
        """Answer from memory: current beliefs only, each with quote, source, confidence and warnings.
        ``status`` is ok, no_match or memory_unavailable (never an empty list that looks like no history; a
        workspace deleted since this memory was opened raises UnknownWorkspace);
        ``run``: record which beliefs this run was shown (see :meth:`decide_in_run`). A question is at most
        2,000 characters (``retrieve.MAX_QUESTION``: the embedder reads at most its window of it). ``subjects``:
        only beliefs about these subjects (each exactly as given), the best of them however many others match
        better, and no unextracted text (it is about no subject). ``embedder``: the question's, by name
        (default: the configured one) or an :class:`~beliefdb.embedders.Embedder` of your own."""
        answer = retrieve.ask(self.database, question, k=k, as_of=as_of, scope=check_scope(scope),
                              min_confidence=min_confidence, include_fixtures=include_fixtures, embedder=embedder,
                              subjects=subjects)
        if run is not None and answer.status != "memory_unavailable":
            citations.record_reads(self.database, run, [a.belief.id for a in answer.beliefs], {"question": question},
                                   as_of)
        return answer

    def answers(self, *, subject: str | None = None, attribute: str | None = None, ids: Sequence[UUID] | None = None,
                as_of: datetime | None = None, include_fixtures: bool = False,
                exact_subject: bool = False) -> list[Answer]:
        """Current beliefs as :meth:`beliefs` lists them (of these ``ids`` only, when given), each as :meth:`ask`
        presents it: with its evidence and warnings. Reads by key, where ``ask`` searches (the adapters' get).
        ``subject`` may be a person's name, as for :meth:`beliefs`; ``exact_subject``: that subject only."""
        return retrieve.answers(self.database, subject=subject, attribute=attribute,
                                ids=None if ids is None else ids_of(ids, "ids"), as_of=as_of,
                                include_fixtures=include_fixtures, exact_subject=exact_subject)

    def embed(self, *, embedder: str | None = None, batch: int = 64, progress: Progress | None = None) -> EmbedReport:
        """Embed beliefs that have no vector yet (after ingest with embed=False, or a failed embedder),
        ``batch`` beliefs per transaction, with ``embedder`` (default: the configured one)."""
        check_callback(progress, "progress")
        return embeddings.backfill(self.database, get_embedder(embedder), batch=batch, progress=progress)

    def reembed(self, *, embedder: str | None = None, batch: int = 64,
                progress: Progress | None = None) -> EmbedReport:
        """Switch the workspace to ``embedder``'s model: embed every belief with it, then switch at once
        (resumable; searches use the old model until the switch)."""
        check_callback(progress, "progress")
        return embeddings.reembed(self.database, get_embedder(embedder), batch=batch, progress=progress)

    def forget(self, *, source: str | None = None, subject: str | None = None, belief: str | UUID | None = None,
               preview: bool = False, expect: str | None = None, mask_mentions: bool = False) -> Forgotten:
        """Forget one source, a subject's beliefs and the conversation turns it said (a speaker whose name
        is the subject: "Maya López" for ``maya_lopez``), or one belief completely (rule 14), and every
        belief left without support or whose every quote lay in what is forgotten; ``preview``: exactly
        what that would take away, nothing written.
        ``subject`` may be a person's name ("Maya López") when no belief has the name itself as its
        subject: it names their subject (``maya_lopez``). ``expect``: only what a preview showed (its
        :meth:`Forgotten.fingerprint`), else :class:`~beliefdb.errors.StalePreview` and nothing forgotten.
        The report's ``text_mentions`` list where the stored source texts still name the subject (another
        speaker's turn, another document), left as their words, and ``pending_mentions`` where the texts
        waiting to be stored name it (a queued document, a proposed version or correction); ``mask_mentions``:
        mask the name there too (offsets stay valid; a proposed correction's typed words apart), in the same
        change, so that neither a worker nor an approval brings it back."""
        check_given(source=source, subject=subject)
        return lifecycle.forget(self.database, source=source, subject=subject, belief=belief, preview=preview,
                                expect=expect, mask_mentions=mask_mentions)

    # --- truth ----------------------------------------------------------------------------------

    def impact(self, *refs: str | UUID, source: str | None = None, version: int | None = None) -> list[ImpactRow]:
        """Dry run: what would stop holding, be flagged, be held, or survive if these stopped holding; with
        ``source`` (a source's name) that source too, or with ``version`` only that version of it, by number,
        as :meth:`retract` names them."""
        return retraction.impact(self.database, refs, source=source, version=version)

    def preview_correction(self, belief: str | UUID, statement: str | None = None,
                           value: str | None = None) -> CorrectionPreview:
        """Exactly what correcting ``belief`` would change, with the revision to apply at."""
        return corrections.preview(self.database, belief, statement, value)

    def apply_correction(self, belief: str | UUID, statement: str, *, reviewer: str, expect_revision: int,
                         value: str | None = None, reason: str | None = None,
                         idempotency_key: str | None = None) -> CorrectionResult:
        """Apply a correction atomically; see corrections.apply for stale and already_applied."""
        return corrections.apply(self.database, belief, statement, reviewer=reviewer,
                                 expect_revision=expect_revision, value=value, reason=reason,
                                 idempotency_key=idempotency_key)

    def retract(self, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
                source: str | None = None, version: int | None = None, reason: str = "",
                undo: bool = False, expect: str | None = None) -> Changes:
        """Retract (or restore with ``undo``) a belief, fragment, source or source version; ``expect``:
        only the change a preview showed (its :meth:`Changes.fingerprint`), checked and applied in one
        transaction under the workspace's write lock, else :class:`~beliefdb.errors.StalePreview` and
        nothing written."""
        check_given(source=source)
        return retraction.retract(self.database, belief=belief, fragment=fragment, source=source, version=version,
                                  reason=reason, undo=undo, expect=expect)

    def retract_beliefs(self, beliefs: Sequence[str | UUID], *, reason: str,
                        skip_retracted: bool = False) -> list[Changes]:
        """Retract several beliefs in one transaction, in the order given (history first, so no older value
        is current in between): every one of them, or, when one is refused (another principal's: not_owner;
        unknown or already retracted) or anything fails, none. Their change reports, in the same order.
        With ``skip_retracted``, one already retracted (or gone) by the time the transaction reaches it,
        as the database finds it then, is skipped instead (no report): another session retracted it since
        the caller listed it."""
        return retraction.retract_beliefs(self.database, beliefs, reason=reason, skip_retracted=skip_retracted)

    def retract_attribute(self, subject: str, attribute: str, *, reason: str,
                          exact_subject: bool = False) -> list[Changes]:
        """Retract every value of ``subject``'s ``attribute`` not retracted yet, in one transaction that lists
        them under the workspace's write lock (a value written meanwhile is among them): history first, all
        of them or (one refused, another principal's: not_owner) none. Their change reports. ``subject`` is
        resolved as :meth:`answers` and :meth:`beliefs` resolve it: a person's name ("Maya López") names
        their subject (``maya_lopez``) when no belief has the name itself as its subject; with
        ``exact_subject``, only the subject as given."""
        return retraction.retract_attribute(self.database, subject, attribute, reason=reason,
                                            exact_subject=exact_subject)

    def preview_retract(self, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
                        source: str | None = None, version: int | None = None, undo: bool = False) -> Changes:
        """Exactly what ``retract`` with the same arguments would change; nothing written."""
        check_given(source=source)
        return retraction.preview(self.database, belief=belief, fragment=fragment, source=source, version=version,
                                  undo=undo)

    def expire(self) -> Expired:
        """Process beliefs whose valid time has ended (rule 16; every method does this first): they stop
        being current, and what rested on them is re-evaluated."""
        return lifecycle.expire(self.database)

    def decay(self, *, now: datetime | None = None, preview: bool = False) -> ConfidenceReport:
        """Apply confidence half-lives as of ``now`` (default: the clock), derived beliefs following
        (rule 9); ``preview``: the same report, nothing written. Written as of another moment only by a
        login granted ``beliefdb_clock`` (:class:`~beliefdb.errors.ClockNotAllowed`)."""
        return lifecycle.decay(self.database, now, preview=preview)

    def recompute(self, *, preview: bool = False) -> ConfidenceReport:
        """Recompute every confidence after a DBA changed the confidence policy or half-lives;
        ``preview``: the same report, nothing written."""
        return lifecycle.recompute(self.database, preview=preview)

    def calibrate(self, labels: str | Path, *, bins: int = DEFAULT_BINS, plot: str | Path | None = None) -> Calibration:
        """How well stored confidences match a reviewer's labelled sample (a ``belief_id,correct`` CSV):
        the reliability table over ``bins`` confidence bins and its ECE; ``plot``: also save the
        reliability diagram there as PNG (needs the ``plot`` extra, checked before anything is read)."""
        sample, diagram = given_path(labels, "labels"), given_path(plot, "plot") if plot is not None else None
        if diagram is not None:
            calibrate.require_plot()
        result = calibrate.calibrate(self.database, sample, bins)
        if diagram is not None:
            calibrate.plot(result, diagram)
        return result

    # --- audit ---------------------------------------------------------------------------------

    def audit_verify(self) -> AuditResult:
        """Verify the workspace's SHA-256 audit chain; ``first_broken`` names the first bad link."""
        return audit.verify(self.database)

    # --- workspaces -----------------------------------------------------------------------------

    def create_workspace(self, name: str) -> Workspace:
        """Create another workspace (its id is generated by the server); this object stays bound to its own."""
        return workspaces.create_workspace(self.database.url, name, self.database.principal)

    def workspaces(self, *, match: str | None = None, limit: int | None = None) -> list[Workspace]:
        """The workspaces this login may see, by name: those whose name ``match`` (a glob, ``user-*``;
        None: all), at most ``limit`` (None: all)."""
        return workspaces.list_workspaces(self.database.url, match, limit)

    def delete_workspace(self, name: str, *, force: bool = False) -> WorkspaceDeleted:
        """Delete a workspace in one transaction: refused while it holds data unless ``force`` (then
        everything in it goes, its audit chain too). Needs the schema owner's database user."""
        return workspaces.delete_workspace(self.database.url, name, force=force)

    def close(self) -> None:
        """Close the connection pool (also done by leaving a ``with`` block)."""
        self.database.close()

    def __enter__(self) -> BeliefDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# text or an id of the wrong type (ask(5)): InvalidInput naming the argument, not an AttributeError deep inside
check_text_arguments(BeliefDB)


def connect(url: str | None = None, workspace: str | None = None, *, principal: str | None = None,
            home: str | Path | None = None, max_size: int = 4) -> BeliefDB:
    """Open beliefdb: ``url``, else the embedded server under ``home`` (given, it wins over ``BELIEFDB_URL``;
    ``url`` and ``home`` together are refused), else ``BELIEFDB_URL``, else the embedded server of
    ``BELIEFDB_HOME``; threads sharing it run up to ``max_size`` calls at once (one pooled connection each)."""
    return BeliefDB(url, workspace, principal=principal, home=home, max_size=max_size)
