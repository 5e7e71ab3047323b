"""The MCP server (``beliefdb mcp`` on stdio, and ``/mcp`` under ``beliefdb serve``), built on the
official ``mcp`` SDK: tools for what an agent does with memory, each a call of
:class:`beliefdb.api.BeliefDB`, each answering the JSON the CLI prints with ``--json`` (an error:
``{"error": code, "message": ...}`` with ``isError``, and ``"retry_after": seconds`` where the HTTP API
answers 503 with ``Retry-After``; that object is also the error's ``structuredContent``).

On stdio the tools act as the principal and in the workspace the command was started with; over
HTTP as those of the request's bearer token, never what a call names.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from beliefdb import api, errors, render
from beliefdb.api import BeliefDB
from beliefdb.interfaces import mcp_forget, mcp_jobs, mcp_outcomes, remote
from beliefdb.interfaces.access import Memories, answered, bearer
from beliefdb.interfaces.mcp_server import Server, failed, log, unstorable
from beliefdb.interfaces.mcp_types import KEYED, Given, Moment
from beliefdb.render import ask as render_ask
from beliefdb.vocabulary import Authority, BeliefKind, Label, Origin, ReviewItemKind, StepKind

INSTRUCTIONS = """beliefdb is memory that knows why it believes something. Every belief carries the exact quote
that supports it; decisions and actions record the beliefs they rest on; when a belief turns out wrong,
beliefdb flags what rested on it. Before answering from memory, call `ask` (current beliefs only, with
quotes and warnings). Store what you learn with `remember` (one fact and its quote), `remember_turn` (a
conversation's turn as it is said) or `ingest_text` (a whole document; `submit_job` queues one for a worker,
`jobs` follows it). Record what you decide with
`decide` (citing the beliefs) and what you do with `act`.
Before correcting or retracting, look at `impact`; `correct` takes a preview first, then the apply with
the revision the preview showed. To erase data completely (a user asks to be forgotten), `forget` it: a
`preview` first, then the apply with its `fingerprint` as `expect`.
Answers are JSON."""

Result = str | CallToolResult


# the bounds the HTTP API puts on the same numbers, so no tool sends the database what it cannot hold
# (strict: a JSON true is no number; lax, it was taken as 1)
K = Annotated[int, Field(ge=1, le=50, strict=True)]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


Page = Annotated[int, Field(ge=1, le=10_000, strict=True)]
Revision = Annotated[int, Field(ge=0, le=2**31 - 1, strict=True)]
Version = Annotated[int, Field(ge=1, le=2**31 - 1, strict=True)]
Extractor = Literal["rules", "none", "llm"]
SAID_AT = "When it was said (ISO 8601 with a zone); default now, by beliefdb's clock."


class StepInput(BaseModel):
    """One input a step needs, as POST /steps takes it."""
    model_config = ConfigDict(extra="forbid")
    edge: str = Field(description="reads, cites, initiates, derives, produces, updates or consolidates")
    node: str = Field(description="The id of what the step needs (a belief, a step, ...).")


class StepMemory(BaseModel):
    """A belief a step writes, as POST /steps takes it."""
    model_config = ConfigDict(extra="forbid")
    subject: str = Field(min_length=1)
    attribute: str = Field(min_length=1)
    value: str
    statement: str | None = None
    kind: BeliefKind = BeliefKind.fact


def _moment(value: str | None, where: str = "as_of") -> datetime | None:
    """A tool's moment: ISO 8601 with a time zone, as the HTTP API takes it (the server's local time is
    not its caller's)."""
    return api.parse_moment(value, where, zoned=True) if value is not None else None


def build(*, local: BeliefDB | Callable[[], BeliefDB] | None = None, memories: Memories | None = None
          ) -> MCPServer:
    """The MCP server: over ``local`` (stdio: one principal and workspace; or what opens it, called by each
    tool call: :class:`~beliefdb.interfaces.mcp_stdio.Later`), or over ``memories`` (HTTP: the principal and
    workspace of each request's bearer token)."""
    server = Server("beliefdb", instructions=INSTRUCTIONS, version=api.version(), log_level="WARNING")

    @contextmanager
    def memory(ctx: Context, *, write: bool) -> Iterator[BeliefDB]:
        """The memory the call acts on, held to the call's end."""
        request = ctx.request_context.request
        if memories is None or request is None:
            if local is None:
                raise errors.Unauthenticated("no memory is configured for this transport")
            yield local if isinstance(local, BeliefDB) else local()
            return
        who = memories.identify(bearer(request.headers.get("authorization")))
        if write:
            memories.require_writer(who)
        with memories.lease(who) as db:
            yield db

    def answer(ctx: Context, write: bool, call: Callable[[BeliefDB], Any], shape: Callable[[Any], Any] = render.jsonable
               ) -> Result:
        try:  # (in the tools' words: a hint names a tool, not a library method or a CLI flag)
            with errors.wording("mcp"), memory(ctx, write=write) as db:
                return render.to_json(shape(call(db)))
        except errors.BeliefDBError as exc:
            return failed(exc)
        except Exception:  # a bug: logged here, answered in the same JSON shape without its details
            log.exception("an MCP tool failed")
            return failed(errors.BeliefDBError("unexpected error in beliefdb (see the server's log)"))

    def tool(description: str, *, reads: bool = False, erases: bool = False
             ) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
        """Add a tool, hinting to a client whether it only ``reads`` (an ask, a dry run) or ``erases`` what was
        stored or takes it back (forget, retract, correct, cancel_jobs); any other only adds what was learned
        or decided (a newer text supersedes, as learning does, and keeps the older as history)."""
        hints = ToolAnnotations(read_only_hint=reads, destructive_hint=None if reads else erases)

        def register(fn: Callable[..., Result]) -> Callable[..., Result]:
            @functools.wraps(fn)  # the SDK reads the tool's parameters through the wrapper
            def checked(ctx: Context, **arguments: Any) -> Result:
                return unstorable(arguments) or fn(ctx, **arguments)

            server.takes[fn.__name__] = {parameter.name: parameter.default is inspect.Parameter.empty
                                         for parameter in inspect.signature(fn).parameters.values()
                                         if parameter.name != "ctx"}
            declared = typing.get_type_hints(fn, include_extras=True)
            server.types[fn.__name__] = {argument: declared.get(argument) for argument in server.takes[fn.__name__]}
            return server.tool(description=description, annotations=hints, structured_output=False)(checked)

        return register

    @tool("Remember one fact you learned, with the exact quote that states it. Use it when a user or a tool says"
          " something worth keeping (a preference, an order number, a policy). `text` is the message or page it"
          " came from: it becomes the next version of `source`, replacing its earlier text, and beliefs quoted"
          " only from that earlier text lose their support (listed in `unsupported`). So give each message a"
          " source of its own, or use `remember_turn` for a conversation's turns; without `text`, the quote is"
          " looked up in the source's current text. The quote must be in it character for character, or it is"
          " rejected and nothing is stored. `valid_from`/`valid_to` (ISO 8601 with a zone): when the fact holds"
          " in the world (it expires at `valid_to`). Answers the ingest report: accepted, rejected (with the"
          " reason), superseded, unsupported, flagged.")
    def remember(ctx: Context, statement: Given, subject: Given, attribute: Given, value: str, quote: Given,
                 source: Given, text: str | None = None, kind: BeliefKind = BeliefKind.fact,
                 scope: dict[str, str] | None = None,
                 valid_from: str | None = None, valid_to: str | None = None, authority: Authority | None = None,
                 origin: Origin | None = None) -> Result:
        def call(db: BeliefDB) -> Any:
            since, until = _moment(valid_from, "valid_from"), _moment(valid_to, "valid_to")
            return db.remember(statement, subject, attribute, value, quote, source=source, text=text, kind=kind,
                               scope=scope, valid_from=since.isoformat() if since else None,
                               valid_to=until.isoformat() if until else None, authority=authority, origin=origin)

        return answer(ctx, True, call)

    @tool("Store a whole document (policy, page, transcript) as the next version of `source` and extract the"
          " beliefs it states. Use it for text you want memory to keep up to date: a changed text supersedes"
          " what the old version said, and flags the decisions that rested only on that. `preview`: only what it"
          " would change.")
    def ingest_text(ctx: Context, source: Given, text: Given, authority: Authority | None = None,
                    label: Label | None = None, version_label: str | None = None, preview: bool = False,
                    origin: Origin | None = None, extractor: Extractor = "rules") -> Result:
        # an llm preview spends the endpoint's budget: a change for a read-only token, as over HTTP
        return answer(ctx, not preview or extractor == "llm", lambda db: db.ingest_text(
            text, source=source, authority=authority, label=label, origin=origin, version_label=version_label,
            extractor=extractor, preview=preview))

    @tool("Remember one turn of a conversation as it is said: `text` by `speaker` (at `time`, ISO 8601 with a zone;"
          " default now), appended to the conversation named `conversation` (created by its first turn). The turn is"
          " kept as said (a question or a greeting too) and the beliefs it states about its speaker or the world are"
          " extracted, each citing this exact turn; a later turn that changes a value replaces the earlier one. Give"
          " the person's name as `speaker` (Maya López): a role like \"user\" is someone else in each conversation,"
          " so what one session's user said never meets another's. Use it for every user message worth remembering;"
          " answers the ingest report. A turn without `time` is said now: the same turn sent again is another turn."
          + KEYED)
    def remember_turn(ctx: Context, conversation: str, speaker: Given, text: Given,
                      time: Annotated[Moment | None, Field(description=SAID_AT)] = None,
                      extractor: Extractor = "rules", idempotency_key: str | None = None) -> Result:
        return answer(ctx, True, lambda db: db.remember_turn(
            conversation, speaker, text, time=_moment(time, "time"), extractor=extractor,
            idempotency_key=idempotency_key))

    @tool("Answer a question from memory before you rely on what you remember: only beliefs that are true now (or as"
          " of `as_of`, ISO 8601 with a zone: 2026-03-01T09:00:00Z), each with its quote, source, confidence and"
          " warnings (replaced, in conflict, low confidence). status is ok or no_match (memory has nothing); memory"
          " that cannot be asked is the error database_unavailable (or workspace_busy: another writer holds it),"
          " with retry_after (not the same as no history)."
          " `context` is a prompt-ready summary. When too few beliefs match, `fragments` holds matching text no"
          " belief was extracted from (kind `fragment`: unextracted text, not beliefs, not citable). With `run`"
          " (from record_step) the beliefs shown are recorded as read by that run, so it may cite them. A quote or"
          " fragment over 2,000 characters comes cut to the part that matters (\"cut\": true; `why` gives it"
          " whole). `subjects`: only beliefs about these subjects (each exactly as given: maya_lopez).", reads=True)
    def ask(ctx: Context, question: Given, k: K = 5, as_of: str | None = None, scope: dict[str, str] | None = None,
            min_confidence: Confidence = 0.0, include_fixtures: bool = False, run: str | None = None,
            subjects: list[Given] | None = None) -> Result:
        return answer(ctx, run is not None, lambda db: db.ask(question, k=k, as_of=_moment(as_of), scope=scope,
                                                              min_confidence=min_confidence,
                                                              include_fixtures=include_fixtures, run=run,
                                                              subjects=subjects),
                      lambda asked: render_ask.for_model(render_ask.ask_json(answered(asked))))

    @tool("Why a belief is held: its evidence (quotes with source, version and offsets), confidence factors, what it"
          " replaced or was replaced by, what is built on it (`as_of`: as it stood then, with its status then). Use it"
          " before you act on a belief you doubt, or to cite it (with `run`: recorded as read by that run).",
          reads=True)
    def why(ctx: Context, belief: str, as_of: str | None = None, run: str | None = None,
            include_fixtures: bool = False) -> Result:
        return answer(ctx, run is not None, lambda db: db.why(belief, as_of=_moment(as_of), run=run,
                                                              include_fixtures=include_fixtures), render.why_json)

    @tool("List beliefs: the current ones (optionally of one subject or attribute), every one with its status"
          " (`include_all`), or those believed at `as_of` (ISO 8601 with a zone), ordered by subject, attribute and"
          " recording: at most `limit` (default 100), after the belief `after` (the last id of the page before). Use"
          " it to browse; to answer a question use `ask`.", reads=True)
    def beliefs(ctx: Context, subject: str | None = None, attribute: str | None = None, include_all: bool = False,
                as_of: str | None = None, limit: Page = 100,
                after: str | None = None, include_fixtures: bool = False) -> Result:
        return answer(ctx, False, lambda db: db.beliefs(subject=subject, attribute=attribute, include_all=include_all,
                                                        as_of=_moment(as_of), include_fixtures=include_fixtures,
                                                        limit=limit, after=after))

    @tool("Record a decision and the beliefs it rests on: each id in `because` alone justifies it; each group in"
          " `all_of` justifies it jointly. Do it whenever you decide something from memory: if those beliefs"
          " turn out wrong, beliefdb flags the decision (needs_review) and holds its actions. With no reason at"
          " all it is recorded as needs_review and nothing may act on it. With `run`, it may cite only beliefs"
          " that run's ask/why returned and that are still current: anything else is refused (`refused`)."
          + KEYED)
    def decide(ctx: Context, title: Given, because: list[str] | None = None, all_of: list[list[str]] | None = None,
               run: str | None = None, idempotency_key: str | None = None) -> Result:
        if run is not None:
            return answer(ctx, True, lambda db: db.decide_in_run(run, title, because=because or [],
                                                                 all_of=all_of or [], idempotency_key=idempotency_key))
        return answer(ctx, True, lambda db: db.decide(title, because=because or [], all_of=all_of or [],
                                                      idempotency_key=idempotency_key))

    @tool("Record an action that carries out a decision (by id or prefix). It is scheduled, or held while the"
          " decision needs review; check its status (`actions`) before you carry it out." + KEYED)
    def act(ctx: Context, decision: Given, description: Given, idempotency_key: str | None = None) -> Result:
        return answer(ctx, True, lambda db: db.act(decision, description, idempotency_key=idempotency_key))

    @tool("Decisions, oldest first, each with its status (active, needs_review, approved, rejected), whether it"
          " still holds and the beliefs of each reason: `of` one decision (or an action's), at most `limit`"
          " after the decision `after` (the last id of the page before). Use it to see whether what you decided"
          " still stands.", reads=True)
    def decisions(ctx: Context, status: Literal["active", "needs_review", "approved", "rejected"] | None = None,
                  of: str | None = None, limit: Page = 100, after: str | None = None) -> Result:
        return answer(ctx, False, lambda db: db.decisions(status, of, limit=limit, after=after))

    @tool("Actions, oldest first, each with its decision and status (scheduled, held, done, failed, rolled_back,"
          " cancelled): at most `limit` after the action `after`. Check that an action is still scheduled, not"
          " held, before you carry it out.", reads=True)
    def actions(ctx: Context, status: Literal["scheduled", "held", "done", "failed", "rolled_back", "cancelled"]
                | None = None, limit: Page = 100, after: str | None = None) -> Result:
        return answer(ctx, False, lambda db: db.actions(status, limit=limit, after=after))

    @tool("Dry run before you correct or retract: if these beliefs, fragments, decisions or sources stopped"
          " holding, what would stop holding, stop being current (and still hold), be current again, which"
          " decisions would be flagged, which actions held, and which decisions survive on other support."
          " Changes nothing.", reads=True)
    def impact(ctx: Context, refs: Annotated[list[str], Field(min_length=1)]) -> Result:
        return answer(ctx, False, lambda db: db.impact(*refs), lambda rows: render.jsonable(render.impact_json(rows)))

    @tool("Correct a wrong belief with what a reviewer says instead. First call it without `expected_revision`:"
          " the preview says what would be flagged and held and gives the belief's `revision`. Then call it with"
          " `statement` (and `value`) and `expected_revision` set to that revision to apply it; a changed belief"
          " answers stale_correction_preview (preview again), one superseded meanwhile not_correctable (naming the"
          " belief that replaced it: correct that one), and the same correction again answers"
          " already_applied; an `idempotency_key` names one correction (another with the same key answers"
          " idempotency_key_reused). The reviewer on record is who you act as. Another principal's belief: the"
          " correction is proposed to its owner.", erases=True)
    def correct(ctx: Context, belief: Given, statement: str | None = None, value: str | None = None,
                expected_revision: Revision | None = None, reason: str | None = None,
                idempotency_key: str | None = None) -> Result:
        if expected_revision is None:
            return answer(ctx, False, lambda db: db.preview_correction(belief, statement, value))
        if not statement:
            return failed(errors.InvalidInput("applying a correction needs the corrected statement"))
        return answer(ctx, True, lambda db: db.apply_correction(
            belief, statement, reviewer=db.database.principal or "reviewer",
            expect_revision=expected_revision, value=value, reason=reason, idempotency_key=idempotency_key))

    @tool("Retract what turned out untrustworthy: a belief, a fragment, or a whole source (or one `version` of"
          " it), with the `reason`. What rested only on it stops holding, decisions lose their last support and"
          " are flagged; what has independent support stays. `undo` restores. First `preview`: what it would do,"
          " and its `fingerprint`; then apply with `expect` set to that fingerprint to change only that (what it"
          " would change otherwise answers stale_preview, nothing written: preview again).", erases=True)
    def retract(ctx: Context, belief: str | None = None, fragment: str | None = None, source: str | None = None,
                version: Version | None = None, reason: str = "", undo: bool = False, preview: bool = False,
                expect: Given | None = None) -> Result:
        if preview:
            if expect is not None:
                with errors.wording("mcp"):  # (the tool's arguments, as answer words what it raises)
                    return failed(errors.InvalidInput(f"{errors.argument('expect')} goes with the apply, not"
                                                      f" with {errors.argument('preview')} (a preview changes"
                                                      " nothing)"))
            return answer(ctx, False, lambda db: db.preview_retract(belief=belief, fragment=fragment, source=source,
                                                                    version=version, undo=undo),
                          render.retraction_json)
        return answer(ctx, True, lambda db: db.retract(belief=belief, fragment=fragment, source=source,
                                                       version=version, reason=reason, undo=undo, expect=expect),
                      render.retraction_json)

    @tool("The open review items: decisions flagged because they lost their last support, held actions, ties"
          " between beliefs, and corrections, versions or retractions proposed to an owner; oldest first, at most"
          " `limit` (default 100) after the item `after` (the last id of the page before), only those of `kind`"
          " when given. Each names who may resolve it (`owners`). Check it before you carry out actions.",
          reads=True)
    def review_list(ctx: Context, limit: Page = 100, after: str | None = None,
                    kind: Annotated[list[ReviewItemKind], Field(min_length=1)] | None = None) -> Result:
        def call(db: BeliefDB) -> Any:
            items = db.review_items(limit=limit, after=after, kind=[k.value for k in kind] if kind else None)
            # (served by beliefdb serve, as GET /review-items; beliefdb mcp is the operator's own, on its machine)
            return remote.review_items(items) if errors.for_remote() else items

        return answer(ctx, False, call)

    @tool("Approve or reject a review item (id or prefix): approving keeps a flagged decision and releases its"
          " actions (or settles a tie for `winner`, or applies a proposal); rejecting cancels them. The answer says"
          " what it applied (a tie's winner and loser, with the decisions flagged and actions held by the loss) and"
          " the other review items it closed (`closed`, each with its `note`); an item resolved already answers"
          " already_resolved.")
    def review_resolve(ctx: Context, item: str, verdict: Literal["approved", "rejected"], note: str | None = None,
                       winner: str | None = None) -> Result:
        return answer(ctx, True, lambda db: db.resolve_review(item, verdict, note=note, winner=winner))

    @tool("Record one step of your run as a trace: kind is user_input, memory_read, claim, plan, tool_call,"
          " observation, answer or memory_write; `inputs` are [{edge, node}] it needs (edge: reads, cites,"
          " initiates, ...), `supports` independent reasons, `memory` {subject, attribute, value} a belief the"
          " step writes. Without `run` it starts a new run for `task`; pass the answer's run to append. A faulty"
          " memory can later be repaired without replaying everything.")
    def record_step(ctx: Context, kind: StepKind, payload: dict[str, Any] | None = None, run: str | None = None,
                    task: str = "", inputs: list[StepInput] | None = None, supports: list[str] | None = None,
                    memory: StepMemory | None = None) -> Result:
        pairs = [(i.edge, i.node) for i in inputs or []]
        wrote = memory.model_dump(exclude_none=True) if memory else None
        return answer(ctx, True, lambda db: db.record_step(kind, payload, run=run, task=task, inputs=pairs,
                                                           supports=supports or [], memory=wrote))

    del remember, remember_turn, ingest_text, ask, why, beliefs, decide, act, decisions, actions, impact, correct
    del retract, review_list, review_resolve, record_step
    mcp_forget.register(tool, answer)
    mcp_outcomes.register(tool, answer)
    mcp_jobs.register(tool, answer)
    return server

