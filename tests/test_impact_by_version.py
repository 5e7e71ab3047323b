"""``impact`` names a source version as ``retract`` does: ``--source NAME --version N`` (the library's
``impact(source=..., version=...)``, ``beliefdb.resolve_source``), or by a unique prefix of its id, as
other commands take a node's. Before, only a version's whole id named it, and a trial had to find it
with psql; ``retract --preview --source X --version N`` worked."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors


def _two_versions(bdb: beliefdb.BeliefDB, conn: psycopg.Connection[Any]) -> str:
    """policy.md at version 1 (7 days) and 2 (14 days): version 2's id."""
    bdb.ingest_text("Returns are accepted within 7 days of delivery.\n", source="policy.md", authority="official",
                    embed=False)
    bdb.ingest_text("Returns are accepted within 14 days of delivery.\n", source="policy.md", authority="official",
                    embed=False)
    row = conn.execute("select v.id::text from beliefdb.source_version v join beliefdb.source s on s.id = v.source_id"
                       " where s.name = 'policy.md' and v.version = 2").fetchone()
    conn.rollback()
    assert row is not None
    return str(row[0])


def _rows(rows: list[Any]) -> list[tuple[str, str, str]]:
    return sorted((str(r.node), r.kind, r.effect) for r in rows)


def test_the_library_names_a_version_by_its_source_and_number(bdb: beliefdb.BeliefDB,
                                                               postgresql: psycopg.Connection[Any]) -> None:
    version = _two_versions(bdb, postgresql)
    by_id = _rows(bdb.impact(version))
    assert any(effect == "becomes_current" for _, _, effect in by_id)  # (version 1 back in force)
    assert _rows(bdb.impact(source="policy.md", version=2)) == by_id
    assert _rows(bdb.impact(source="policy.md")) == _rows(bdb.impact("policy.md"))
    assert _rows(bdb.impact(version[:8])) == by_id  # a unique prefix of the version's id
    graph = bdb.impact_graph(source="policy.md", version=2)
    assert graph.title == "If this were wrong: policy.md version 2"
    with pytest.raises(errors.NotFound, match=r"unknown version 3 of source 'policy\.md': it has versions 1 to 2"):
        bdb.impact(source="policy.md", version=3)
    with pytest.raises(errors.NotFound, match=r"unknown source 'nowhere\.md'"):
        bdb.impact(source="nowhere.md", version=1)
    with pytest.raises(errors.InvalidInput, match="version= goes with source="):
        bdb.impact(version=2)
    with pytest.raises(errors.InvalidInput, match="name at least one"):
        bdb.impact()


def test_the_cli_names_a_version_by_its_source_and_number(cli: Cli, bdb: beliefdb.BeliefDB,
                                                           postgresql: psycopg.Connection[Any]) -> None:
    version = _two_versions(bdb, postgresql)
    text = cli("impact", "--source", "policy.md", "--version", "2").stdout
    assert text.startswith("If this were wrong: policy.md version 2\n")
    assert "version 1 would be back in force" in text
    assert cli.json("impact", "--source", "policy.md", "--version", "2") == cli.json("impact", version)
    assert cli("impact", version[:8]).stdout == text
    assert cli.error("impact", "--source", "policy.md", "--version", "3", code="not_found")["message"] == (
        "unknown version 3 of source 'policy.md': it has versions 1 to 2")
    assert "--version goes with --source" in cli("impact", "--version", "2", expect=2).stderr
    assert "--source NAME" in cli("impact", expect=2).stderr


def test_a_source_is_named_in_the_bound_workspace_only(cli: Cli, bdb: beliefdb.BeliefDB,
                                                       postgresql: psycopg.Connection[Any]) -> None:
    """beliefdb.resolve_source runs with the owner's rights (retract's internals): another workspace's
    source of the same name is not found."""
    _two_versions(bdb, postgresql)
    cli("workspace", "create", "other")
    assert cli.error("impact", "--source", "policy.md", "--version", "1", "--workspace", "other",
                     code="not_found")["message"] == "unknown source 'policy.md'"
