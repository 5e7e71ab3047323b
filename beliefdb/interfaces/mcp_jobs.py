"""The queue's MCP tools, as the HTTP API's ``/jobs`` resources offer it (:mod:`beliefdb.interfaces.http_jobs`):
``submit_job`` queues a text or a conversation's turns for ``beliefdb worker`` and answers its job id at
once, ``jobs`` lists the workspace's jobs, ``retry_jobs`` queues failed ones again and ``cancel_jobs``
deletes queued or failed ones with their text. Each is a call of :class:`beliefdb.api.BeliefDB`; only text
and turns are queued, never a path (it would name a file of the server's machine)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from beliefdb import errors
from beliefdb.api import BeliefDB
from beliefdb.interfaces.http_conversations import MAX_TURNS, TurnBody
from beliefdb.interfaces.http_jobs import INT8, MAX_RETRY, for_remote
from beliefdb.interfaces.mcp_types import Given
from beliefdb.vocabulary import Authority, Label

#: the bounds the HTTP API puts on the same numbers
JobId = Annotated[int, Field(ge=1, le=INT8, strict=True)]
JobIds = Annotated[list[JobId], Field(max_length=MAX_RETRY)]
Turns = Annotated[list[TurnBody], Field(min_length=1, max_length=MAX_TURNS)]
Attempts = Annotated[int, Field(ge=1, le=100, strict=True)]
Limit = Annotated[int, Field(ge=1, le=10_000, strict=True)]
Source = Given

Answer = Callable[..., Any]
Tool = Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]


def register(tool: Tool, answer: Answer) -> None:
    """Add the queue's tools to the server whose ``tool`` decorator and ``answer`` (a call of the memory,
    its error as a tool error) these are (:func:`beliefdb.interfaces.mcp.build`)."""

    @tool("Queue a document (`text`) or a conversation's `turns` ([{speaker, text, time}], time ISO 8601 with a"
          " zone) as the next version of `source`, for a worker to ingest later, and answer its job id at once"
          " ({\"jobs\": [id]}). Use it for a long document or a whole conversation you need not wait for (`ingest_text`"
          " and `remember_turn` store at once); follow it with `jobs`. A job is tried up to `max_attempts` times. A"
          " text that would change nothing (the one its source holds in force, or the newest job of its source"
          " carries) is not queued: `jobs` is empty and `unchanged` says why.")
    def submit_job(ctx: Context, source: Source, text: Source | None = None, turns: Turns | None = None,
                   authority: Authority | None = None, label: Label | None = None, version_label: str | None = None,
                   extractor: Literal["rules", "none", "llm"] = "rules", max_attempts: Attempts = 5) -> Any:
        def call(db: BeliefDB) -> Any:
            # (the HTTP API's words for neither and both: its body checks them before the library)
            if text is not None and turns is not None:
                raise errors.InvalidInput("give text or turns, not both")
            if text is None and turns is None:
                raise errors.InvalidInput("text or turns is required (one of them)")
            said = [t.turn() for t in turns] if turns is not None else None
            queued = db.submit(text=text, turns=said, source=source, authority=authority, label=label,
                               version_label=version_label, extractor=extractor, max_attempts=max_attempts)
            return {"jobs": list(queued),
                    "unchanged": [{"source": u.source, "reason": u.reason} for u in queued.unchanged]}

        return answer(ctx, True, call)

    @tool("The workspace's queued jobs, newest first: each with its status (queued, running, done, failed),"
          " source, attempts, last error and, once done, a summary of its ingest; only `status` when given, at most"
          " `limit` (default 100), older than the job `before` (the last id of the page before). Use it to follow"
          " what `submit_job` queued and to find failed jobs to"
          " `retry_jobs` or `cancel_jobs`.", reads=True)
    def jobs(ctx: Context, status: Literal["queued", "running", "done", "failed"] | None = None,
             limit: Limit = 100, before: JobId | None = None) -> Any:
        def call(db: BeliefDB) -> Any:
            rows = db.jobs(status=status, limit=limit, before=before)
            # (served by beliefdb serve, as GET /jobs; beliefdb mcp is the operator's own, on its machine)
            return for_remote(rows) if errors.for_remote() else rows

        return answer(ctx, False, call)

    @tool("Queue failed jobs again, each with its attempts afresh, once what made them fail is fixed: the `ids`"
          " given, or every failed job of yours (`all_failed`). All or none: an id that is not a failed job of"
          " yours is refused and nothing is queued; a job whose source was forgotten has no text left. Answers"
          " the ids queued again ({\"jobs\": [...]}).")
    def retry_jobs(ctx: Context, ids: JobIds | None = None, all_failed: bool = False) -> Any:
        return answer(ctx, True, lambda db: {"jobs": db.retry(*(ids or []), all_failed=all_failed)})

    @tool("Cancel queued or failed jobs: each is deleted with the text it carries. Use it to take back a document"
          " queued by mistake: one never stored is in no source, so `forget` cannot reach it. The `ids` given, or"
          " every queued or failed job of yours of a `source` name. All or none: a running, done or unknown job is"
          " refused and nothing is cancelled. Answers the ids cancelled ({\"jobs\": [...]}).", erases=True)
    def cancel_jobs(ctx: Context, ids: JobIds | None = None, source: Source | None = None) -> Any:
        return answer(ctx, True, lambda db: {"jobs": db.cancel(*(ids or []), source=source)})

    del submit_job, jobs, retry_jobs, cancel_jobs
