"""The MCP tool ``forget``: erases one source, a subject's beliefs and the turns it said, or one belief,
completely (rule 14 of docs/rules.md), confirmed as ``POST /forget`` confirms it
(:mod:`beliefdb.interfaces.http_forget`): a ``preview`` answers what would go and its ``fingerprint``, and
the apply takes that fingerprint back as ``expect`` (required), forgetting only what the preview showed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context

from beliefdb import errors, render
from beliefdb.api import BeliefDB
from beliefdb.interfaces.http_forget import NEEDS_EXPECT
from beliefdb.interfaces.mcp_types import Given

Answer = Callable[..., Any]
Tool = Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]


def register(tool: Tool, answer: Answer) -> None:
    """Add ``forget`` to the server whose ``tool`` decorator and ``answer`` these are
    (:func:`beliefdb.interfaces.mcp.build`)."""

    @tool("Forget completely, unlike `retract`, which keeps history: one `source` (its text, versions"
          " and fragments), a `subject` (every belief about it, and every conversation turn said by a speaker of"
          " that name: Maya López for maya_lopez), or one `belief`: give exactly one. Every belief left without"
          " support goes too, their quotes are masked in the stored texts, and decisions that lose their last"
          " support are flagged. Use it when a user asks to be forgotten or data must be erased. It cannot be"
          " undone: first `preview` (exactly what would go, and its `fingerprint`; nothing written), then call it"
          " with `expect` set to that fingerprint to forget only that (what would go otherwise answers"
          " stale_preview, nothing forgotten: preview again). `text_mentions` lists where the stored texts still name"
          " a forgotten subject (another speaker's turn, another document), `pending_mentions` where texts waiting to"
          " be stored do (a queued document, a proposed version); `mask_mentions` masks the name there too"
          " (give it to the preview and the apply alike).", erases=True)
    def forget(ctx: Context, source: Given | None = None, subject: Given | None = None, belief: Given | None = None,
               preview: bool = False, expect: Given | None = None, mask_mentions: bool = False) -> Any:
        def call(db: BeliefDB) -> Any:
            if not preview and expect is None:
                raise errors.InvalidInput(NEEDS_EXPECT)
            return db.forget(source=source, subject=subject, belief=belief, preview=preview, expect=expect,
                             mask_mentions=mask_mentions)

        return answer(ctx, not preview, call, render.forgotten_json)

    del forget
