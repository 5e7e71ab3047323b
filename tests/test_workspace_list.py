"""Listing workspaces when there are many (one per user): a glob narrows the list, a limit caps it, and
the CLI says when it left some out."""

from __future__ import annotations

import pytest
from conftest import Cli

import beliefdb
from beliefdb import api, errors

NAMES = ("user-1", "user-2", "user-10", "user_x", "userAx", "other")


@pytest.fixture
def many(cli: Cli) -> Cli:
    for name in NAMES:
        cli("workspace", "create", name)
    return cli


def test_a_glob_narrows_the_list_and_underscore_is_no_wildcard(many: Cli) -> None:
    assert [w["name"] for w in many.json("workspace", "list", "user-*")] == ["user-1", "user-10", "user-2"]
    assert [w["name"] for w in many.json("workspace", "list", "user-?")] == ["user-1", "user-2"]
    assert [w["name"] for w in many.json("workspace", "list", "user_*")] == ["user_x"]
    assert {w["name"] for w in many.json("workspace", "list", "*x")} == {"user_x", "userAx"}
    result = many("workspace", "list", "nobody-*")
    assert result.stdout == "" and result.stderr.strip() == "no workspace matches", result.output


def test_a_limit_caps_the_list_and_says_more_match(many: Cli) -> None:
    result = many("workspace", "list", "user*", "--limit", "2")
    assert [line.split("\t")[0] for line in result.stdout.splitlines()] == ["user-1", "user-10"]
    assert "only the first 2" in result.stderr, result.output
    exact = many("workspace", "list", "user-?", "--limit", "2")
    assert len(exact.stdout.splitlines()) == 2 and exact.stderr == "", exact.output
    assert [w["name"] for w in many.json("workspace", "list", "--limit", "1")] == ["default"]
    refused = many("workspace", "list", "--limit", "-1", expect=None)
    assert refused.exit_code != 0 and "--limit" in refused.output


def test_the_library_takes_the_same_glob_and_limit(many: Cli, db_url: str) -> None:
    assert [w.name for w in api.list_workspaces(url=db_url, match="user-1*")] == ["user-1", "user-10"]
    with beliefdb.connect(db_url) as bdb:
        assert [w.name for w in bdb.workspaces(match="*", limit=3)] == ["default", "other", "user-1"]
        assert len(bdb.workspaces()) == len(NAMES) + 1
        with pytest.raises(errors.InvalidInput, match="limit"):
            bdb.workspaces(limit=-1)
