"""What a tenant stored reaches the operator's terminal harmless (docs/security.md): in text mode every
control character of stored text (escape sequences, BEL, CR, C1, DEL, and newline and tab, which would
forge a line) is a space; ``--json`` keeps the text exact, JSON-escaped."""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from conftest import Cli
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import Result

import beliefdb
from beliefdb.render import terminal

# a security trial's texts: a title that clears the screen and retitles the window, a clipboard write
# (OSC 52), a value that hides what follows, a source name whose newline forges a line of `why`, a C1 CSI
TITLE = "Pay \u001b[2J\u001b[31mnow\u001b]0;pwn\u0007"
OSC52 = "\u001b]52;c;cm0gLXJmIH4K\u0007"
VALUE = "\u001b[8m"
SOURCE = "evil\u001b[2Jname\nfake line"
C1 = "\u009b31m\u007f\r\u0085\ttabbed"
QUOTE = f"Returns are accepted {OSC52} within 7 days{C1}."
STATEMENT = f"returns within 7 days {OSC52}\nfake line"
TASK = f"answer the customer{OSC52}\nfake line"
REASON = f"it says 15 days {OSC52}\r\nfake line"
ACTION = f"refund {C1}\nfake line"


def harmless(result: Result) -> str:
    """The output, asserted to hold no control character but the line ends and no line a value forged."""
    out = result.stdout + result.stderr
    controls = {ch for ch in out if unicodedata.category(ch) == "Cc"} - {"\n"}
    assert not controls, (controls, out)
    assert not any(line.lstrip().startswith("fake line") for line in out.splitlines()), out
    return out


@pytest.fixture
def stored(bdb: beliefdb.BeliefDB, alice: beliefdb.BeliefDB) -> dict[str, str]:
    """The texts stored through the library, as any tenant could: ids of what holds them."""
    report = bdb.remember(STATEMENT, "return_policy", "window", VALUE, QUOTE, source=SOURCE, text=QUOTE + "\n",
                          authority="official")
    (belief,) = report.accepted
    decision = bdb.decide(TITLE, because=[belief.id])
    bdb.act(decision.id, ACTION)
    with bdb.record_run(task=TASK, agent="trial") as run:
        run.step("answer", {"text": OSC52 + "\nfake line"})
    owned = alice.remember("alice's window", "alice_policy", "window", "9 days", "Nine days.", source="alice-notes",
                           text="Nine days.\n", authority="official")
    (hers,) = owned.accepted
    preview = bdb.preview_correction(hers.id, STATEMENT)
    bdb.apply_correction(hers.id, STATEMENT, reviewer="trial", expect_revision=preview.revision, reason=REASON)
    return {"belief": str(belief.id), "decision": str(decision.id), "hers": str(hers.id)}


@pytest.mark.parametrize("args", [
    ["beliefs"], ["beliefs", "--all"], ["why", "{belief}"], ["why", "{decision}"], ["ask", "returns window"],
    ["decisions"], ["actions"], ["runs"], ["review", "list"], ["impact", "{belief}"],
    ["correct", "{belief}", "fixed", "--preview"],
    ["retract", "--belief", "{belief}", "--reason", "x", "--preview"],
])
def test_text_mode_shows_stored_text_harmless(cli: Cli, stored: dict[str, str], args: list[str]) -> None:
    argv = [a.format(**stored) for a in args]
    out = harmless(cli(*argv))
    assert out.strip()


def test_each_stored_text_is_shown_with_its_controls_as_spaces(cli: Cli, stored: dict[str, str]) -> None:
    why = harmless(cli("why", stored["belief"]))
    assert terminal.plain(QUOTE) in why and terminal.plain(STATEMENT) in why
    assert f"{terminal.plain(SOURCE)} v1" in why  # the name whole on its line: "fake line" forged nothing
    assert terminal.plain(TITLE) in harmless(cli("decisions"))
    assert terminal.plain(ACTION) in harmless(cli("actions"))
    assert terminal.plain(TASK) in harmless(cli("runs"))
    assert terminal.plain(VALUE) in harmless(cli("beliefs"))


def test_an_error_line_quoting_a_name_is_one_harmless_line(cli: Cli, stored: dict[str, str]) -> None:
    # (the message ends at a line break of the name: the library gives its first line)
    for name in (SOURCE + "-gone", f"gone{OSC52}\tname\u009b31m\u007f"):
        out = harmless(cli.fail("retract", "--source", name, "--reason", "x", "--preview"))
        assert len(out.strip().splitlines()) == 1 and out.startswith("error:"), out
    assert terminal.plain(f"gone{OSC52}\tname\u009b31m\u007f") in out


def _texts(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_texts(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_texts(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize(("args", "texts"), [
    (["why", "{belief}"], {QUOTE, STATEMENT, SOURCE, VALUE}),
    (["decisions"], {TITLE, STATEMENT}),
    (["actions"], {ACTION}),
    (["runs"], {TASK}),
    (["beliefs", "--all"], {STATEMENT, VALUE}),
])
def test_json_keeps_the_exact_text_escaped(cli: Cli, stored: dict[str, str], args: list[str],
                                           texts: set[str]) -> None:
    argv = [a.format(**stored) for a in args]
    raw = cli(*argv, "--json").stdout
    # JSON escapes every control character (C1 and DEL too): no raw one reaches the terminal
    assert not {ch for ch in raw if unicodedata.category(ch) == "Cc"} - {"\n"}, raw
    assert texts <= _texts(json.loads(raw))


def test_plain_is_the_pictures_rule() -> None:
    from beliefdb.render.pictures.labels import shorten

    every = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cc")
    assert terminal.plain(every) == " " * len(every)
    assert shorten(terminal.plain(TITLE), 200) == shorten(TITLE, 200)


def test_queue_worker_forget_and_ingest_show_stored_text_harmless(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                 tmp_path: Path) -> None:
    text = f"The return window is 7 days.{OSC52}\nRefunds take 5 days.\n"
    (job,) = bdb.submit(text=text, source=SOURCE)
    assert terminal.plain(SOURCE) in harmless(cli("jobs"))
    assert f"job {job} done: {terminal.plain(SOURCE)}" in harmless(cli("worker", "--until-empty", "--no-embed"))
    assert terminal.plain(SOURCE) in harmless(cli("jobs"))
    # (the fingerprint printed is the report's, as --json gives it: not one of the text shown)
    fingerprint = cli.json("forget", "--source", SOURCE, "--preview")["fingerprint"]
    assert f"fingerprint: {fingerprint}" in harmless(cli("forget", "--source", SOURCE, "--preview"))
    named = tmp_path / f"notes{OSC52}\n{C1}.md"
    named.write_text(f"# Policy\n\nThe restocking fee is 10%.{OSC52}\n", encoding="utf-8")
    assert terminal.plain(named.name) in harmless(cli("ingest", named))
    assert cli.json("jobs")[0]["source"] == SOURCE  # what is stored, exact


def test_cleaned_copies_what_holds_controls_and_keeps_the_rest() -> None:
    from beliefdb.models import Run

    run = Run(id=UUID(int=1), task=TASK, agent="trial", created_at=datetime(2026, 1, 1, tzinfo=UTC), steps=1,
              parent_run_id=None)
    shown = terminal.cleaned({"runs": [run], "ids": (UUID(int=2),), "at": run.created_at})
    assert shown["runs"][0].task == terminal.plain(TASK) and run.task == TASK  # a copy: the original unchanged
    assert shown["ids"] == (UUID(int=2),) and shown["at"] == run.created_at
    clean = {"runs": [dataclasses.replace(run, task="ok")]}
    assert terminal.cleaned(clean) is clean  # nothing to change: the same object
    assert list(terminal.cleaned(iter([VALUE, 3]))) == [" [8m", 3]


#: what reorders or breaks a line without being a control character: the bidi embeddings, overrides and
#: isolates (U+202E shows "evil.exe" as "exe.live") and the line and paragraph separators
REORDERS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"


# (any text, with the characters that reorder a line drawn often: st.text() alone met U+2066 once in
# thousands of runs, and the property then expected it kept)
@given(st.text(st.one_of(st.characters(), st.sampled_from(REORDERS))))
def test_plain_makes_each_control_and_reordering_character_a_space_and_keeps_the_others(text: str) -> None:
    shown = terminal.plain(text)
    assert len(shown) == len(text)
    assert all(b == (" " if unicodedata.category(a) == "Cc" or a in REORDERS else a)
               for a, b in zip(text, shown, strict=True))


def test_bidi_controls_and_line_separators_are_spaces_too(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """A trial's title with U+202E reordered the words around it in the terminal (a status read backwards),
    and U+2028 broke its line: both are shown as spaces, in text output and pictures; --json stays exact."""
    from beliefdb.render.pictures.labels import shorten

    title = f"Pay supplier {REORDERS} now"
    assert terminal.plain(REORDERS) == " " * len(REORDERS) and shorten(REORDERS) == ""
    bdb.decide(title, because=[bdb.remember("The desk opens at 9.", "desk", "opens", "9", "The desk opens at 9.",
                                            source="desk.md", text="The desk opens at 9.").accepted[0].id])
    out = cli("decisions").stdout
    assert not set(REORDERS) & set(out), out
    assert title in {d["title"] for d in cli.json("decisions")}
