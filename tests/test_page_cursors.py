"""A malformed page cursor (an ``after`` that is no id nor 4 or more of its first hex digits) is bad
input at every door, in the words GET /beliefs?after=zz answers (tests/test_http_cursors.py): the
library's InvalidInput, the CLI's usage error (exit 2, one line), the MCP tools' ``invalid_input``.
They said ``unknown_belief`` (beliefs), ``not_found`` (decisions, actions) and ``invalid_input``
"too short" (review items), as if something had been looked for. A well-formed cursor that names
nothing stays unknown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from conftest import Cli
from mcp.client import Client
from test_mcp import caller

import beliefdb


def said(cursor: str) -> str:
    """What every door says of the cursor ``cursor``."""
    return (f"after: {cursor!r} is not an id (a UUID or at least 4 of its first hex digits: the last id of the"
            " page before)")


LISTINGS: dict[str, Callable[[beliefdb.BeliefDB, Any], Any]] = {
    "beliefs": lambda bdb, after: bdb.beliefs(after=after),
    "decisions": lambda bdb, after: bdb.decisions(after=after),
    "actions": lambda bdb, after: bdb.actions(after=after),
    "review_items": lambda bdb, after: bdb.review_items(after=after),
}
#: each list's command line
COMMANDS = {"beliefs": ["beliefs"], "decisions": ["decisions"], "actions": ["actions"],
            "review_items": ["review", "list"]}
#: each list's MCP tool
TOOLS = {"beliefs": "beliefs", "decisions": "decisions", "actions": "actions", "review_items": "review_list"}
MALFORMED = ["zz", "nothex", "0123-zz", "012", "", "0" * 33]


@pytest.mark.parametrize("listing", LISTINGS)
@pytest.mark.parametrize("cursor", MALFORMED)
def test_the_library_refuses_a_malformed_cursor_as_bad_input(bdb: beliefdb.BeliefDB, listing: str,
                                                             cursor: str) -> None:
    with pytest.raises(beliefdb.errors.InvalidInput) as raised:
        LISTINGS[listing](bdb, cursor)
    assert raised.value.message == said(cursor)


@pytest.mark.parametrize("listing", LISTINGS)
def test_a_well_formed_cursor_that_names_nothing_is_unknown(bdb: beliefdb.BeliefDB, listing: str) -> None:
    with pytest.raises(beliefdb.errors.NotFound):
        LISTINGS[listing](bdb, "00000000-0000-0000-0000-000000000000")


@pytest.mark.parametrize("listing", LISTINGS)
def test_the_cli_refuses_a_malformed_cursor_as_a_usage_error(cli: Cli, listing: str) -> None:
    failed = cli.error(*COMMANDS[listing], "--after", "zz", code="invalid_input", expect=2)
    assert failed["message"] == said("zz").replace("after:", "--after:", 1), failed
    text = cli(*COMMANDS[listing], "--after", "nothex", expect=2)
    assert text.stdout == "" and len(text.stderr.splitlines()) == 1, text.stderr
    assert text.stderr.startswith(f"error: --{said('nothex')} (see beliefdb {' '.join(COMMANDS[listing])} --help)")


def test_the_mcp_tools_refuse_a_malformed_cursor_in_the_http_apis_words(bdb: beliefdb.BeliefDB) -> None:
    from beliefdb.interfaces.mcp import build

    async def session() -> None:
        async with Client(build(local=bdb)) as client:
            fails = caller(client, errors=True)
            for tool in TOOLS.values():
                for cursor in ("nothex", "zz"):
                    assert await fails(tool, {"after": cursor}) == {"error": "invalid_input",
                                                                    "message": said(cursor)}, tool

    anyio.run(session)
