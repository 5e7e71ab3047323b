"""The README's promise on usage errors, for every check a command makes itself: options that do not go
together and values out of range are usage errors as typer's own are (``beliefs --limit 0``): one line,
``invalid_input`` with --json, exit 2, and nothing run (no database is needed to be told)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

#: a command line with a usage error that a command (not typer) finds, and words its message has
CASES = {
    "retract-nothing": (["retract", "--reason", "x"], "exactly one of --belief, --fragment or --source"),
    "retract-two": (["retract", "--source", "a.md", "--belief", "X", "--reason", "x"],
                    "exactly one of --belief, --fragment or --source"),
    "retract-version-without-source": (["retract", "--belief", "X", "--version", "2", "--reason", "x"],
                                       "--version goes with --source"),
    # a retraction without its reason, or with a blank one, was refused only once the database was reached: exit 1
    "retract-without-reason": (["retract", "--belief", "X"], "a retraction needs --reason"),
    "retract-blank-reason": (["retract", "--source", "a.md", "--reason", "  "], "a retraction needs --reason"),
    # --all with --as-of, and --from naming no belief, the same
    "beliefs-all-as-of": (["beliefs", "--all", "--as-of", "2030-01-01T00:00:00Z"],
                          "--all and --as-of do not go together"),
    "derive-from-nothing": (["derive", "s", "--subject", "a", "--attribute", "b", "--value", "c", "--from", " , "],
                            "a derived belief needs --from beliefs"),
    "correct-blank-reviewer": (["correct", "X", "new", "--apply", "--expect-revision", "1", "--reviewer", " "],
                               "--apply needs --reviewer"),
    "forget-nothing": (["forget", "--preview"], "exactly one of --source, --subject or --belief"),
    "forget-two": (["forget", "--source", "a.md", "--belief", "X", "--preview"],
                   "exactly one of --source, --subject or --belief"),
    "forget-mask-without-subject": (["forget", "--source", "a.md", "--mask-mentions", "--preview"],
                                    "--mask-mentions goes with --subject"),
    "bulk-batch-0": (["ingest", "doc.md", "--bulk", "--batch", "0"], "--batch"),
    "bulk-batch-env-0": (["ingest", "doc.md", "--bulk"], "BELIEFDB_BULK_BATCH (--batch)"),
    "max-bytes-0": (["ingest", "doc.md", "--max-bytes", "0"], "--max-bytes"),
    "source-of-two-files": (["ingest", "a.md", "b.md", "--source", "x"], "--source names one source"),
    "claims-of-two-files": (["ingest", "a.md", "b.md", "--claims", "c.jsonl"], "--claims belongs to one document"),
    "bulk-preview": (["ingest", "a.md", "--bulk", "--preview"], "--preview belongs to one document"),
    "bulk-source": (["ingest", "a.md", "--bulk", "--source", "x"], "--source belongs to one document"),
    "batch-without-bulk": (["ingest", "a.md", "--batch", "50"], "--batch sizes the transactions of --bulk"),
    "batch-with-queue": (["ingest", "a.md", "--queue", "--batch", "50"], "--batch sizes the transactions of --bulk"),
    "claims-with-chat": (["ingest", "chat.jsonl", "--format", "chat", "--claims", "claims.jsonl"],
                         "--claims belongs to a document: not with --format chat"),
    "bins-0": (["calibrate", "--labels", "labels.csv", "--bins", "0"], "--bins"),
    "bins-too-many": (["calibrate", "--labels", "labels.csv", "--bins", "1001"], "--bins"),
    "port-too-high": (["serve", "--port", "99999"], "--port"),
    "port-negative": (["serve", "--port", "-1"], "--port"),
    "log-level": (["serve", "--log-level", "bogus"], "--log-level"),
    "ask-empty": (["ask", ""], "QUESTION"),
    "ask-blank": (["ask", "   "], "QUESTION"),
    "ask-k-too-many": (["ask", "hello", "--k", "100001"], "--k"),
    "ask-too-long": (["ask", "é" * 2001], "QUESTION is 2,001 characters long; ask takes at most 2,000"),
    "beliefs-limit-too-many": (["beliefs", "--limit", "100001"], "--limit"),
    "jobs-limit-too-many": (["jobs", "--limit", "100001"], "--limit"),
    "decisions-limit-too-many": (["decisions", "--limit", "100001"], "--limit"),
    "decisions-status": (["decisions", "--status", "bogus"],
                         "--status: 'bogus' is not one of 'active', 'needs_review', 'approved', 'rejected'"),
    "actions-status": (["actions", "--status", "bogus"], "--status: 'bogus' is not one of 'scheduled', 'held',"),
    "jobs-status": (["jobs", "--status", "bogus"], "--status: 'bogus' is not one of 'queued', 'running',"),
    "embed-batch-0": (["embed", "--batch", "0"], "--batch"),
    "reembed-batch-0": (["reembed", "--batch", "0"], "--batch"),
    "shard-count-0": (["scale", "citus", "--shard-count", "0"], "--shard-count"),
}

ENV = {"bulk-batch-env-0": {"BELIEFDB_BULK_BATCH": "0"}}
#: a database no command could reach: a usage error is told before any is asked for
UNREACHABLE = "postgresql://nobody@127.0.0.1:9/none?connect_timeout=1"


@pytest.mark.parametrize("name", list(CASES))
def test_a_check_of_the_command_line_is_a_usage_error(name: str, cli_without_db: Cli) -> None:
    argv, said = CASES[name]
    env = {"BELIEFDB_URL": UNREACHABLE, **ENV.get(name, {})}
    text = cli_without_db(*argv, env=env, expect=2)
    assert text.stdout == ""
    lines = text.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], text.stderr
    if argv[0] != "serve":  # (serve takes no --json)
        err = cli_without_db.error(*argv, env=env, code="invalid_input", expect=2)
        assert said in err["message"]


def test_the_bulk_batch_size_from_the_environment_does_not_refuse_a_plain_ingest(cli: Cli, tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("Refund window: 30 days.\n", encoding="utf-8")
    assert cli.json("ingest", doc, "--no-embed", env={"BELIEFDB_BULK_BATCH": "50"})["accepted"]
