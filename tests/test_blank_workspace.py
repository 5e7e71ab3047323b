"""An empty or blank workspace name names no workspace: ``beliefs --workspace ""`` answered ``unknown
workspace '' (create it with: beliefdb workspace create )``, a hint that cannot work. Wherever a command
or the library looks a workspace up by name, an empty or blank one is refused as such: one line,
invalid_input, no hint, nothing written."""

from __future__ import annotations

import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors


@pytest.mark.parametrize(("name", "said"), [("", "empty"), ("   ", "blank ('   ')")])
def test_a_memory_command_refuses_an_empty_workspace_name_without_a_hint(cli: Cli, name: str, said: str) -> None:
    for args in (["beliefs"], ["why", "abcd"], ["ingest", "nothing.md"]):
        line = cli.one_line_error(*args, "--workspace", name)
        assert line == f"error: a workspace name cannot be {said}", line
        assert cli.error(*args, "-w", name, code="invalid_input")["message"] == f"a workspace name cannot be {said}"


@pytest.mark.parametrize("args", [["token", "create", "--principal", "alice", "-w", ""], ["token", "list", "-w", ""],
                                  ["agent", "list", "-w", " "], ["workspace", "delete", ""]])
def test_the_workspace_commands_refuse_it_too(cli: Cli, args: list[str]) -> None:
    err = cli.error(*args, code="invalid_input")
    assert err["message"].startswith("a workspace name cannot be "), err
    assert cli.json("token", "list") == [] and [w["name"] for w in cli.json("workspace", "list")] == ["default"]


def test_the_library_refuses_it_before_looking(db_url: str) -> None:
    for name in ("", " \t"):
        with pytest.raises(errors.InvalidInput, match=r"^a workspace name cannot be (empty|blank)"):
            beliefdb.connect(db_url, name)
    with beliefdb.connect(db_url) as db:
        assert db.workspace == "default"
