"""The pictures from the command line, against a real database holding the return-policy story:
``why``, ``impact`` and ``run`` with ``--format text|mermaid|dot`` (``--json`` as before), ``why`` and
``decisions`` on decision and action ids, the reasons ``decisions`` lists, and one-line errors."""

from __future__ import annotations

import re
from typing import Any

import psycopg
import pytest
from conftest import Cli
from pictures_story import Story, story  # noqa: F401  (the module's fixture)

from beliefdb.models.graph import IMPACT_MARKS


@pytest.fixture
def before(story: Story) -> Cli:  # noqa: F811
    return Cli({"BELIEFDB_URL": story.url, "BELIEFDB_WORKSPACE": "before", "BELIEFDB_PRINCIPAL": "demo"})


@pytest.fixture
def after(story: Story) -> Cli:  # noqa: F811
    return Cli({"BELIEFDB_URL": story.url, "BELIEFDB_WORKSPACE": "after", "BELIEFDB_PRINCIPAL": "demo"})


def short(x: object) -> str:
    return str(x)[:8]


def mermaid_marks(text: str) -> dict[str, set[str]]:
    """The node ids of a Mermaid picture (n0, n1, ...) by the class each ``class`` line gives them."""
    marks: dict[str, set[str]] = {}
    for names, mark in re.findall(r"^    class (\S+) (\w+)$", text, re.MULTILINE):
        for name in names.split(","):
            marks.setdefault(mark, set()).add(name)
    return marks


# --- impact -------------------------------------------------------------------------------------


def test_impact_text_names_statements_folds_fragments_and_lists_what_is_built_on_each(
        before: Cli, story: Story) -> None:  # noqa: F811
    result = before("impact", "return-policy.md")
    assert result.exit_code == 0, result.output
    text = result.stdout
    ids = story.before
    assert text.startswith("If this were wrong: return-policy.md\n")
    assert "would stop holding: 9 · would be flagged: 2 · would be held: 1 · survives on other support: 1" in text
    assert "fragment" not in text and "5 quote(s) of it would stop counting" in text
    assert f"belief [{short(ids['seven'])}] Returns are accepted within 7 days of delivery." in text
    assert f"decision [{short(ids['refuse'])}] Refuse the return of order 1042 (day 10)  [active]" \
           " — would be flagged, would stop holding" in text
    assert 'survives on "Customer 1043 prefers store credit."' in text
    # the derived belief is listed under "built on it" of each belief it is derived from
    seven = text[text.index(f"belief [{short(ids['seven'])}]"):]
    built = seven[seven.index("built on it:"):].splitlines()[1:3]
    assert f"belief [{short(ids['derived'])}] Returns within 7 days are refunded as store credit" in "\n".join(built)
    # no bare ids: every id printed is in brackets after a kind
    for line in text.splitlines():
        assert not re.search(r"(?<!\[)\b[0-9a-f]{8}\b(?!\])", line), line


def test_impact_mermaid_marks_exactly_the_nodes_impact_json_names(before: Cli) -> None:
    named = before.json("impact", "return-policy.md")
    picture = before("impact", "return-policy.md", "--format", "mermaid").stdout
    dot = before("impact", "return-policy.md", "--format", "dot").stdout
    assert picture.splitlines()[1] == "flowchart LR" and dot.startswith("digraph beliefdb {")
    marks = mermaid_marks(picture)
    marked = set().union(*(marks.get(m, set()) for m in IMPACT_MARKS))
    # n-ids to labels: the stops_holding set of impact --json (fragments folded into the one source),
    # the flagged and held ids, and the decision that survives
    nodes = dict(re.findall(r'^    (n\d+)\W+"(\w+): ', picture, re.MULTILINE))
    stops = named["stops_holding"]
    expected_kinds = sorted([x["kind"] for x in stops if x["kind"] != "fragment"] + ["source"]
                            + ["decision"] * len(named["still_supported"]))
    assert sorted(nodes[n] for n in marked) == expected_kinds
    assert len(marks["would_flag"]) == len(named["flagged"]) == 2
    assert len(marks["would_hold"]) == len(named["held"]) == 1
    assert len(marks["survives"]) == len(named["still_supported"]) == 1


def test_impact_json_is_as_before(before: Cli, story: Story) -> None:  # noqa: F811
    named = before.json("impact", str(story.before["seven"]))
    assert set(named) == {"stops_holding", "stops_current", "becomes_current", "flagged", "held", "still_supported"}
    assert str(story.before["refuse"]) in named["flagged"]


def test_impact_of_a_version_says_that_version_is_retracted_and_which_comes_back(
        cli: Cli, write_doc: Any, db_url: str) -> None:
    """A version of a source asked about by its id: the text names that version, says how many of its quotes
    stop counting and that the version before comes back into force with how many (what retract's preview
    says), and does not mark the source as stopping to hold; a label that only repeats the number is said
    once. (It said "policy.md ... would stop holding", every quote of both versions stopping, "v2 v2".)"""
    path = write_doc("policy.md", "Returns: 7 days\nShipping: free over 50 EUR\nSupport hours: 9 to 17\n")
    cli("ingest", path, "--authority", "official", "--version-label", "v3.2")
    path.write_text("Returns: 15 days\nShipping: free over 40 EUR\nSupport hours: 9 to 17\n", encoding="utf-8")
    cli("ingest", path, "--version-label", "v2")
    with psycopg.connect(db_url) as conn:
        row = conn.execute("select v.id, v.source_id from beliefdb.source_version v where v.version = 2").fetchone()
    assert row is not None
    version, source = row
    named = cli.json("impact", str(version))
    stops = [x for x in named["stops_holding"] if x["kind"] == "fragment"]
    back = [x for x in named["becomes_current"] if x["kind"] == "fragment"]
    assert len(stops) == len(back) == 3
    previewed = cli.json("retract", "--source", "policy.md", "--version", "2", "--preview")
    assert {x["id"] for x in stops} <= set(previewed["stopped_holding"])
    assert {x["id"] for x in back} <= set(previewed["became_current"])
    text = cli("impact", str(version)).stdout
    assert text.startswith("If this were wrong: policy.md version 2\n"), text
    assert text.splitlines()[1] == ("  would stop holding: 2 · would be flagged: 0 · would be held: 0"
                                    " · would be current again: 2"), text
    assert f"\n  source [{short(source)}] policy.md  [in use]\n      official, document, v2\n" in text, text
    assert ("      version 2 would be retracted: 3 quote(s) of it would stop counting;"
            " version 1 (v3.2) would be back in force: 3 quote(s) of it would count again\n") in text, text
    assert "6 quote(s)" not in text and "v2 v2" not in text
    # the whole source: every quote in force stops counting, nothing comes back
    whole = cli("impact", "policy.md").stdout
    assert f"  source [{short(source)}] policy.md  [in use] — would stop holding\n      official, document, v2\n" \
           "      3 quote(s) of it would stop counting\n" in whole, whole


# --- why ----------------------------------------------------------------------------------------


def test_why_a_decision_shows_its_reasons_live_and_lost_its_actions_and_outcome(after: Cli, story: Story) -> None:  # noqa: F811
    ids = story.after
    text = after("why", short(ids["credit"])).stdout
    assert text.startswith("Why we decided: Refund order 1043 as store credit\n")
    assert "outcome: succeeded" in text
    reasons = text[text.index("reasons:"):].splitlines()[1:3]
    assert reasons == [f"        belief [{short(ids['preference'])}] Customer 1043 prefers store credit.",
                       f"        belief [{short(ids['refund'])}] The refund method is store credit.  (lost: no"
                       " longer current)"]
    refusal = after("why", str(ids["refuse"])).stdout
    assert f"action [{short(ids['email'])}] Email the customer a refusal  (held, no longer counts)" in refusal
    assert "unknown belief" not in refusal


def test_why_an_action_shows_its_decision_and_reasons(after: Cli, story: Story) -> None:  # noqa: F811
    ids = story.after
    text = after("why", short(ids["email"])).stdout
    assert text.startswith("Why we act: Email the customer a refusal\n")
    assert f"decision [{short(ids['refuse'])}] Refuse the return of order 1042 (day 10)  [needs_review]" in text
    assert "Returns are accepted within 7 days of delivery.  (lost: no longer current)" in text
    drawn = after.json("why", short(ids["email"]))
    assert drawn["focus"] == [str(ids["email"])] and {n["kind"] for n in drawn["nodes"]} >= {"action", "decision"}


def test_why_a_belief_keeps_its_text_and_lists_derived_beliefs(before: Cli, story: Story) -> None:  # noqa: F811
    ids = story.before
    text = before("why", short(ids["seven"])).stdout
    assert text.startswith(f"belief {ids['seven']}\n")
    built = text[text.index("built on it:"):]
    assert f'belief {short(ids["derived"])} "Returns within 7 days are refunded as store credit" [current]' \
           " derived from it" in built
    found = before.json("why", str(ids["seven"]))
    assert [d["belief_id"] for d in found["derived"]] == [str(ids["derived"])]
    assert found["evidence"][0]["quote"] == "Returns are accepted within 7 days of delivery."


def test_why_draws_a_lost_reason_dashed(after: Cli, story: Story) -> None:  # noqa: F811
    ids = story.after
    picture = after("why", str(ids["refuse"]), "--format", "mermaid").stdout
    assert re.search(r'^    n\d+ -\.->\|"is a reason for"\| n\d+$', picture, re.MULTILINE), picture
    assert "flagged" in mermaid_marks(picture)
    dot = after("why", str(ids["seven"]), "--format", "dot").stdout
    assert 'label="belief: Returns are accepted within 7 days of delivery.\\nsuperseded' in dot


# --- decisions and runs -------------------------------------------------------------------------


def test_decisions_list_their_reasons(after: Cli, story: Story) -> None:  # noqa: F811
    ids = story.after
    text = after("decisions").stdout
    credit = text[text.index(f"{short(ids['credit'])}  [active]"):].splitlines()[:3]
    assert credit[1:] == [f'          because: {short(ids["preference"])} "Customer 1043 prefers store credit."',
                          f'          lost reason: {short(ids["refund"])} "The refund method is store credit."'
                          " [superseded]"]
    rows = {d["id"]: d for d in after.json("decisions")}
    reasons = rows[str(ids["credit"])]["reasons"]
    assert [(r["live"], [b["id"] for b in r["beliefs"]]) for r in reasons] == [
        (True, [str(ids["preference"])]), (False, [str(ids["refund"])])]


def test_decisions_of_a_decision_or_an_action_id(after: Cli, story: Story) -> None:  # noqa: F811
    ids = story.after
    (one,) = after.json("decisions", short(ids["email"]))
    assert one["id"] == str(ids["refuse"])
    (same,) = after.json("decisions", str(ids["refuse"]))
    assert same == one
    assert after.json("decisions", str(ids["refuse"]), "--status", "active") == []


def test_run_draws_its_steps(after: Cli, story: Story) -> None:  # noqa: F811
    ids = story.after
    picture = after("run", short(ids["run"]), "--format", "mermaid").stdout
    assert '([\"run: order 1050' in picture
    assert picture.count('|"ran: #') == 3
    assert re.search(r'\|"was read by"\|', picture)
    steps = after.json("run", short(ids["run"]))
    assert len(steps["steps"]) == 3
    assert "memory_read" in after("run", short(ids["run"])).stdout


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ("why", "0000dead"), ("why", "not-an-id"), ("impact", "no-such-source.md"), ("run", "0000dead"),
    ("decisions", "0000dead"),
])
def test_bad_ids_are_one_line_errors(after: Cli, args: tuple[str, ...]) -> None:
    line = after.one_line_error(*args)
    assert "unknown" in line or "no node" in line or "is not an id" in line, line
    # an id that names nothing is not found; what is no id at all is bad input
    wanted = ("invalid_input",) if args[1] == "not-an-id" else ("not_found", "unknown_belief")
    assert after.error(*args)["error"] in wanted


def test_json_and_format_together_are_refused(after: Cli, story: Story) -> None:  # noqa: F811
    err = after.error("why", str(story.after["refuse"]), "--format", "dot", expect=2)
    assert err["message"] == "choose one of --json or --format"
    assert after.fail("impact", "return-policy.md", "--format", "png").exit_code == 2


def test_help_names_the_formats(after: Cli) -> None:
    for command in ("why", "impact", "run"):
        assert "mermaid" in after(command, "--help").stdout
    assert "decision" in after("why", "--help").stdout
