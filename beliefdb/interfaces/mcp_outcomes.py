"""The MCP tool ``record_outcome``: what actually happened after a decision or action (rule 17 of
docs/rules.md), as ``POST /outcomes`` and ``beliefdb outcome`` record it; an action's status follows its
outcome."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context

from beliefdb.interfaces.mcp_types import KEYED, Given
from beliefdb.vocabulary import Outcome

Answer = Callable[..., Any]
Tool = Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]


def register(tool: Tool, answer: Answer) -> None:
    """Add ``record_outcome`` to the server whose ``tool`` decorator and ``answer`` these are
    (:func:`beliefdb.interfaces.mcp.build`)."""

    @tool("Record what actually happened after a decision or action you carried out (`node`: its id or prefix):"
          " succeeded, failed, rolled_back or disputed, with a `note`. An action's status follows it (succeeded:"
          " done). Use it once you know how an action went, so `why` shows the outcome; an action held or"
          " cancelled, or a rejected decision, was not to be carried out: its success or failure is refused."
          + KEYED)
    def record_outcome(ctx: Context, node: Given, outcome: Outcome, note: str | None = None,
                       idempotency_key: str | None = None) -> Any:
        return answer(ctx, True, lambda db: db.record_outcome(node, outcome.value, note=note,
                                                              idempotency_key=idempotency_key))

    del record_outcome
