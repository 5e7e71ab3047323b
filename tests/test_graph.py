"""The pictures of the library (beliefdb.graph through BeliefDB): why a belief, decision or action is
held, what a change would do, a run's trace, the product view's workspace, against a real database
holding the return-policy story; and the renderers' escaping of hostile labels."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pictures_story import Story, story  # noqa: F401  (the module's fixture)

import beliefdb
from beliefdb import errors
from beliefdb.graph import to_dot, to_mermaid, to_text
from beliefdb.models import Graph, GraphEdge, GraphNode, IngestReport
from beliefdb.models.graph import IMPACT_MARKS
from beliefdb.render.pictures.labels import caption, shorten
from beliefdb.render.pictures.mermaid import escape


@pytest.fixture
def before(story: Story) -> Iterator[beliefdb.BeliefDB]:  # noqa: F811
    with story.connect("before") as db:
        yield db


@pytest.fixture
def after(story: Story) -> Iterator[beliefdb.BeliefDB]:  # noqa: F811
    with story.connect("after") as db:
        yield db


def node(graph: Graph, node_id: UUID) -> GraphNode:
    (found,) = [n for n in graph.nodes if n.id == node_id]
    return found


def edge(graph: Graph, source: UUID, target: UUID) -> GraphEdge:
    (found,) = [e for e in graph.edges if e.source == source and e.target == target]
    return found


def marked(graph: Graph) -> set[UUID]:
    return {n.id for n in graph.nodes if set(n.marks) & set(IMPACT_MARKS)}


def source_id(db: beliefdb.BeliefDB, name: str) -> UUID:
    with psycopg.connect(db.database.url) as conn:
        row = conn.execute("select s.id from beliefdb.source s join beliefdb.workspace w on w.id = s.workspace_id"
                           " where s.name = %s and w.name = %s", (name, db.workspace)).fetchone()
    assert row is not None
    return UUID(str(row[0]))


# --- impact -------------------------------------------------------------------------------------


def test_impact_graph_marks_exactly_the_nodes_impact_names(before: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    rows = before.impact("return-policy.md")
    graph = before.impact_graph("return-policy.md")
    policy = source_id(before, "return-policy.md")
    # every non-fragment row's node is marked; the fragments are folded into their source
    named = {r.node for r in rows if r.kind != "fragment"} | {policy}
    assert sum(r.kind == "fragment" for r in rows) == 5
    assert marked(graph) == named
    assert not {n.kind for n in graph.nodes} & {"fragment"}
    effects = {"stops_holding": "stops_holding", "flag": "would_flag", "hold": "would_hold", "survives": "survives"}
    for r in rows:
        if r.kind != "fragment":
            assert effects[r.effect] in node(graph, r.node).marks, r
    ids = story.before
    assert "would_flag" in node(graph, ids["refuse"]).marks and "would_flag" in node(graph, ids["leaflet"]).marks
    assert "would_hold" in node(graph, ids["email"]).marks
    assert graph.focus == (policy,)


def test_impact_graph_says_what_a_decision_survives_on(before: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.before
    graph = before.impact_graph("return-policy.md")
    credit = node(graph, ids["credit"])
    assert "survives" in credit.marks
    assert credit.note == 'survives on "Customer 1043 prefers store credit."'
    # the belief it survives on is drawn, unmarked, with its reason edge into the decision
    assert not set(node(graph, ids["preference"]).marks) & set(IMPACT_MARKS)
    assert edge(graph, ids["preference"], ids["credit"]).relation == "is a reason for"
    # the derived belief is built on what would stop holding: it is marked and its premises drawn
    assert "stops_holding" in node(graph, ids["derived"]).marks
    assert edge(graph, ids["seven"], ids["derived"]).relation == "is a premise of"
    assert edge(graph, policy := source_id(before, "return-policy.md"), ids["seven"]).label == \
        "Returns are accepted within 7 days of delivery."
    assert policy in graph.focus


def test_impact_graph_of_a_belief_and_of_a_fragment(before: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.before
    graph = before.impact_graph(str(ids["seven"])[:8])
    assert graph.focus == (ids["seven"],)
    assert marked(graph) == {r.node for r in before.impact(ids["seven"])}
    fragment = before.why(ids["fee"]).evidence[0].fragment_id
    by_fragment = before.impact_graph(fragment)
    assert by_fragment.focus == (source_id(before, "return-policy.md"),)
    assert ids["fee"] in marked(by_fragment)


def test_impact_graph_of_unknown_names_is_refused(before: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.NotFound):
        before.impact_graph("no-such-source.md")
    with pytest.raises(errors.InvalidInput):
        before.impact_graph()


# --- why ----------------------------------------------------------------------------------------


def test_why_graph_of_a_decision_draws_its_lost_reason_dashed(after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    graph = after.why_graph(ids["refuse"])
    assert graph.focus == (ids["refuse"],)
    assert node(graph, ids["refuse"]).status == "needs_review" and "flagged" in node(graph, ids["refuse"]).marks
    lost = edge(graph, ids["seven"], ids["refuse"])
    assert (lost.relation, lost.live) == ("is a reason for", False)
    assert "held" in node(graph, ids["email"]).marks
    assert edge(graph, ids["refuse"], ids["email"]).relation == "is carried out by"
    # what replaced the lost reason is drawn too
    assert edge(graph, ids["seven"], ids["fifteen"]).relation == "was replaced by"
    mermaid = to_mermaid(graph)
    n = {x.id: f"n{i}" for i, x in enumerate(graph.nodes)}
    assert f'{n[ids["seven"]]} -.->|"is a reason for"| {n[ids["refuse"]]}' in mermaid
    assert re.search(rf'{n[ids["refuse"]]} -.->\|"is carried out by"\| {n[ids["email"]]}', mermaid)
    dot = to_dot(graph)
    assert f'{n[ids["seven"]]} -> {n[ids["refuse"]]} [label="is a reason for", style=dashed];' in dot


def test_why_graph_of_a_decision_keeps_live_and_lost_reasons_and_the_outcome(
        after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    graph = after.why_graph(str(ids["credit"])[:8])
    assert not edge(graph, ids["refund"], ids["credit"]).live  # corrected: lost
    assert edge(graph, ids["preference"], ids["credit"]).live
    assert node(graph, ids["credit"]).detail.startswith("outcome: succeeded")
    assert "corrected" in node(graph, ids["refund"]).marks
    text = to_text(graph)
    assert "Refund order 1043 as store credit" in text and "outcome: succeeded" in text
    assert f"belief [{str(ids['refund'])[:8]}] The refund method is store credit.  (lost: no longer current)" in text


def test_why_graph_of_an_action_shows_its_decision_and_reasons(after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    graph = after.why_graph(ids["email"])
    assert graph.focus == (ids["email"],)
    assert {ids["email"], ids["refuse"], ids["seven"]} <= {n.id for n in graph.nodes}
    assert graph.title == "Why we act: Email the customer a refusal"


def test_why_graph_of_a_belief_draws_sources_history_and_what_is_built_on_it(
        before: beliefdb.BeliefDB, after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.before
    graph = before.why_graph(ids["seven"])
    policy = source_id(before, "return-policy.md")
    evidence = edge(graph, policy, ids["seven"])
    assert (evidence.relation, evidence.label, evidence.live) == (
        "is evidence for", "Returns are accepted within 7 days of delivery.", True)
    # built on it: the decision, its action, and the derived belief
    assert edge(graph, ids["seven"], ids["refuse"]).relation == "is a reason for"
    assert edge(graph, ids["refuse"], ids["email"]).relation == "is carried out by"
    assert edge(graph, ids["seven"], ids["derived"]).relation == "is a premise of"
    assert {n.kind for n in graph.nodes} == {"source", "belief", "decision", "action"}
    # after v3.3: replaced, its evidence no longer in force
    later = after.why_graph(story.after["seven"])
    seven = node(later, story.after["seven"])
    assert (seven.status, seven.note) == ("superseded", "replaced by: Returns are accepted within 15 days of delivery.")
    assert not edge(later, source_id(after, "return-policy.md"), story.after["seven"]).live


def test_why_as_text_says_once_what_replaced_or_corrected_a_belief(
        after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    """The text picture names a replaced or corrected belief's successor once, under its heading, and
    each node's status once (it printed "[superseded] — superseded" and "[held] — held", then
    "replaced by: S" and a section "replaced by:" naming S again)."""
    def heads(text: str) -> dict[str, str]:  # each node's first line, by its short id
        return {m.group(1): line for line in text.splitlines() if (m := re.match(r"  \w+ \[(\w{8})\]", line))}

    text = to_text(after.why_graph(story.after["seven"]))
    assert heads(text)[str(story.after["seven"])[:8]].endswith("[superseded]")
    assert heads(text)[str(story.after["email"])[:8]].endswith("[held]")
    assert text.count("replaced by") == 1
    text = to_text(after.why_graph(story.after["replacement"]))
    assert "corrected" in heads(text)[str(story.after["refund"])[:8]]
    assert text.count("corrected by") == 1

def test_why_graph_of_a_corrected_belief_draws_the_correction(after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    graph = after.why_graph(ids["replacement"])
    correction = node(graph, ids["correction"])
    assert (correction.kind, correction.label) == ("correction", "by rita: policy FAQ was wrong")
    assert edge(graph, ids["refund"], ids["correction"]).relation == "was corrected by"
    assert edge(graph, ids["correction"], ids["replacement"]).label == "Refunds go to the original payment method."
    assert "corrected" in node(graph, ids["refund"]).marks
    # the reviewer's source is the correction: no source node named correction:...
    assert not [n for n in graph.nodes if n.kind == "source"]


def test_why_graph_as_of_shows_what_was_believed_then(after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    with pytest.raises(errors.NotFound):
        after.why_graph(ids["seven"], as_of=datetime(2000, 1, 1, tzinfo=UTC))
    now = after.why_graph(ids["fifteen"], as_of=datetime.now(UTC) + timedelta(seconds=1))
    assert node(now, ids["fifteen"]).status == "current"


def test_why_graph_of_unknown_ids_is_a_clear_error(after: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.NotFound, match="unknown belief or decision or action"):
        after.why_graph(uuid4())
    with pytest.raises(errors.NotFound):
        after.why_graph("0000dead")
    with pytest.raises(errors.InvalidInput, match="zzzz is not an id"):  # (no id at all: bad input)
        after.why_graph("zzzz")


# --- a run --------------------------------------------------------------------------------------


def test_run_graph_draws_steps_what_they_read_and_wrote(after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    graph = after.run_graph(str(ids["run"])[:8])
    assert graph.focus == (ids["run"],)
    steps = [n for n in graph.nodes if n.kind == "step"]
    assert [s.label for s in steps] == ["0. user_input", "1. memory_read", "2. memory_write"]
    assert all(edge(graph, ids["run"], s.id).relation == "ran" for s in steps)
    read = edge(graph, ids["fifteen"], steps[1].id)
    assert read.relation == "was read by"
    assert edge(graph, steps[2].id, ids["memory"]).relation == "wrote"
    with pytest.raises(errors.NotFound):
        after.run_graph(uuid4())


def test_run_graph_marks_what_a_repair_made_of_the_steps(bdb: beliefdb.BeliefDB) -> None:
    with bdb.record_run(task="remember the tier", agent="travel") as first:
        write = first.step("memory_write", {"key": "tier"})
        bad = first.memory(write, "user:42", "loyalty_tier", "Gold")
    with bdb.record_run(task="upsell", agent="travel") as second:
        read = second.step("memory_read", {"key": "tier"}, inputs=[("reads", bad)])
        claim = second.step("claim", {"tier": "Gold"}, inputs=[("cites", read)])
        second.step("answer", {"lounge": True}, inputs=[("cites", claim)])
    assert not [n for n in bdb.run_graph(second.id).nodes if set(n.marks) & {"replay", "invalidated"}]
    bdb.repair_apply([bad])
    graph = bdb.run_graph(second.id)
    stored = {s.id: s.status for s in bdb.steps(second.id)}
    assert set(stored.values()) == {"replay_pending"}
    for step in (n for n in graph.nodes if n.kind == "step"):
        assert (step.status, "replay" in step.marks) == (stored[step.id], True)
    assert not edge(graph, bad, read).live and not edge(graph, read, claim).live
    assert node(graph, bad).status == "retracted" and "retracted" in node(graph, bad).marks
    assert "to replay" in to_text(graph)


# --- the product view ---------------------------------------------------------------------------


def test_workspace_graph_shows_sources_beliefs_decisions_actions(after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    graph = after.workspace_graph()
    kinds = {n.kind for n in graph.nodes}
    assert {"source", "belief", "decision", "action", "correction"} <= kinds
    assert not graph.truncated
    assert "flagged" in node(graph, ids["refuse"]).marks and "held" in node(graph, ids["email"]).marks
    assert "corrected" in node(graph, ids["refund"]).marks
    assert node(graph, ids["seven"]).note == "replaced by: Returns are accepted within 15 days of delivery."
    assert edge(graph, ids["seven"], ids["fifteen"]).relation == "was replaced by"
    assert edge(graph, ids["correction"], ids["replacement"]).relation == "is evidence for"
    # the reviewer's own source is drawn as the correction, never as a source called correction:...
    assert not [n for n in graph.nodes if n.kind == "source" and n.label.startswith("correction:")]
    # only the bound workspace: the same story told in another one is not drawn (row-level security)
    assert {n.id for n in graph.nodes if n.kind == "belief"} == {b.id for b in after.beliefs(include_all=True)}
    assert not {n.id for n in graph.nodes} & set(story.before.values())


def test_workspace_graph_filters_and_truncates(after: beliefdb.BeliefDB, story: Story) -> None:  # noqa: F811
    ids = story.after
    by_subject = [n for n in after.workspace_graph(subject="return_policy").nodes if n.kind == "belief"]
    assert {ids["seven"], ids["fifteen"]} <= {n.id for n in by_subject}
    assert {n.detail.split(" / ")[0] for n in by_subject} == {"return_policy"}
    superseded = after.workspace_graph(status="superseded")
    assert {n.status for n in superseded.nodes if n.kind == "belief"} == {"superseded"}
    assert ids["refund"] in {n.id for n in superseded.nodes}
    everything = [n for n in after.workspace_graph().nodes if n.kind == "belief"]
    two = after.workspace_graph(limit=2)
    assert two.truncated and len([n for n in two.nodes if n.kind == "belief"]) == 2
    assert not after.workspace_graph(limit=len(everything)).truncated
    assert not [n for n in after.workspace_graph(until=datetime(2000, 1, 1, tzinfo=UTC)).nodes]
    assert len([n for n in after.workspace_graph(since=datetime(2000, 1, 1, tzinfo=UTC)).nodes
                if n.kind == "belief"]) == len(everything)
    now = after.workspace_graph(as_of=datetime.now(UTC) + timedelta(seconds=1))
    assert {n.status for n in now.nodes if n.kind == "belief"} <= {"current", "conflicting"}
    shown_now = {n.id for n in now.nodes}
    assert ids["fifteen"] in shown_now and ids["seven"] not in shown_now
    # just before v3.3 replaced it, the 7-day window was believed, and the 15-day one not yet
    replaced = after.why(ids["seven"]).replaced_by[0].at
    then = after.workspace_graph(as_of=replaced - timedelta(microseconds=1), subject="return_policy")
    assert node(then, ids["seven"]).status == "current" and "superseded" not in node(then, ids["seven"]).marks
    assert ids["fifteen"] not in {n.id for n in then.nodes}
    assert after.workspace_graph(as_of=replaced - timedelta(microseconds=1), status="conflicting").nodes == ()
    with pytest.raises(errors.InvalidInput, match="unknown belief status"):
        after.workspace_graph(status="bogus")
    with pytest.raises(errors.InvalidInput, match="limit"):
        after.workspace_graph(limit=0)


def _statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement sent to the server from here on (the real driver's, counted on the way)."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counting(self: psycopg.Cursor[Any], query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counting)
    return sent


def _grow(db: beliefdb.BeliefDB, folder: Path, n: int) -> None:
    """``n`` more beliefs of one document (one ingest), each cited by a decision carried out by an action
    (recorded by beliefdb.decide and beliefdb.act, one statement for all)."""
    doc, claims = folder / f"prices-{n}.md", folder / f"prices-{n}.jsonl"
    lines = [f"Item {n}-{i} costs {i} euros." for i in range(n)]
    doc.write_text("\n".join(lines) + "\n", encoding="utf-8")
    claims.write_text("".join(json.dumps({"statement": line, "subject": f"item_{n}_{i}", "attribute": "price",
                                          "value": f"{i} euros", "quote": line}) + "\n"
                              for i, line in enumerate(lines)), encoding="utf-8")
    (report,) = db.ingest(doc, claims=claims, authority="official", embed=False)
    assert isinstance(report, IngestReport) and len(report.accepted) == n
    with db.database.transaction() as c:
        c.execute("select beliefdb.decide('Sell ' || b.subject, jsonb_build_array(jsonb_build_array(b.id)))"
                  " from beliefdb.belief b where b.subject like %s", (f"item\\_{n}\\_%",))
        c.execute("select beliefdb.act(d.id::text, 'List ' || d.title) from beliefdb.decision d"
                  " where d.title like %s", (f"Sell item\\_{n}\\_%",))


@pytest.mark.slow
def test_workspace_graph_is_set_based(bdb: beliefdb.BeliefDB, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same statements for a page of 3 beliefs as for one of 120, each with a source, a decision and
    an action: one statement per kind of thing, never one per node."""
    _grow(bdb, tmp_path, 3)
    sent = _statements(monkeypatch)
    small = bdb.workspace_graph(limit=10)
    small_sent = list(sent)
    monkeypatch.undo()
    _grow(bdb, tmp_path, 120)
    sent = _statements(monkeypatch)
    big = bdb.workspace_graph(limit=400)
    assert len([n for n in small.nodes if n.kind == "action"]) == 3
    assert len([n for n in big.nodes if n.kind == "action"]) == 123
    assert len([n for n in big.nodes if n.kind == "source"]) == 2
    assert sent == small_sent and len(sent) <= 10, sent


# --- the renderers: hostile labels --------------------------------------------------------------

HOSTILE = ['"', '"]', "]", "[", "\n", "\r\n", "-->", "-.->", "|", "#", "#quot;", "#35;", "<script>alert(1)</script>",
           "`", ";", "%%", "{{", "}}", "(", ")", "\\", "\\l", "\\n", "\u2028", "\x00", "\x1b[31m", "é", "🙂", "\u202e"]
LABELS = st.lists(st.one_of(st.sampled_from(HOSTILE),
                            st.text(st.characters(blacklist_categories=("Cs",)), max_size=4)),
                  max_size=12).map("".join)


def hostile_graph(label: str, relation_label: str) -> Graph:
    a, b = uuid4(), uuid4()
    return Graph(title=label, focus=(a,), nodes=(
        GraphNode(a, "source", label, "in use", marks=("focus",)),
        GraphNode(b, "decision", label + "x", "needs_review", detail=label, marks=("flagged", "would_hold"))),
        edges=(GraphEdge(a, b, "is a reason for", relation_label, live=False),))


def unmermaid(text: str) -> str:
    return re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), text.replace("<br/>", "\n"))


def plain(text: str) -> str:
    """What is left of escaped text once its line breaks and entity codes are taken out."""
    return re.sub(r"#\d+;", "", text.replace("<br/>", ""))


@given(LABELS, LABELS)
def test_mermaid_labels_cannot_break_out(label: str, relation_label: str) -> None:
    graph = hostile_graph(label, relation_label)
    lines = to_mermaid(graph).splitlines()
    assert lines[1] == "flowchart LR" and lines[0].startswith("%% ")
    # one line per node and edge, then classDef/class pairs: a label never adds a line
    assert len(lines) == 2 + 2 + 1 + 2 * 3
    source = re.fullmatch(r'    n0\[\("([^"]*)"\)\]', lines[2])
    decision = re.fullmatch(r'    n1\{\{"([^"]*)"\}\}', lines[3])
    link = re.fullmatch(r'    n0 -\.->\|"([^"]*)"\| n1', lines[4])
    assert source and decision and link, lines
    for escaped in (source[1], decision[1], link[1], lines[0][3:]):
        assert not set(plain(escaped)) & set('"[](){}<>|#;`\\\n\r'), escaped
    assert unmermaid(source[1]) == "\n".join(caption(graph.nodes[0]))
    assert unmermaid(decision[1]) == "\n".join(caption(graph.nodes[1]))
    expected = "is a reason for" + (f": {shorten(relation_label, 60)}" if relation_label else "")
    assert unmermaid(link[1]) == expected
    assert [x.split()[0] for x in lines[5:]] == ["classDef", "class"] * 3


def undot(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


@given(LABELS, LABELS)
def test_dot_labels_cannot_break_out(label: str, relation_label: str) -> None:
    graph = hostile_graph(label, relation_label)
    lines = to_dot(graph).splitlines()
    assert lines[0] == "digraph beliefdb {" and lines[-1] == "}" and len(lines) == 4 + 3 + 1
    string = r'"((?:[^"\\\n]|\\.)*)"'
    title = re.fullmatch(r"    graph \[rankdir=LR, charset=\"UTF-8\", label=" + string + r", labelloc=t\];", lines[1])
    first = re.fullmatch(r"    n0 \[label=" + string + r", shape=cylinder, .*\];", lines[4])
    second = re.fullmatch(r"    n1 \[label=" + string + r", shape=hexagon, .*\];", lines[5])
    link = re.fullmatch(r"    n0 -> n1 \[label=" + string + r", style=dashed\];", lines[6])
    assert title and first and second and link, lines
    assert undot(first[1]) == "\n".join(caption(graph.nodes[0]))
    assert undot(second[1]) == "\n".join(caption(graph.nodes[1]))


@given(LABELS)
def test_text_keeps_a_label_on_its_line(label: str) -> None:
    graph = hostile_graph(label, label)
    text = to_text(graph)
    assert not set(text) & {"\x00", "\x1b", "\r", "\u2028"}
    tame = "x" if shorten(label) else ""  # (an empty detail has no line)
    assert len(text.splitlines()) == len(to_text(hostile_graph(tame, tame)).splitlines())


def test_escape_writes_entities_for_what_could_close_a_label() -> None:
    assert escape('say "hi"] --> x') == "say #34;hi#34;#93; --#62; x"
    assert escape("<script>") == "#60;script#62;"
    assert escape("a\nb #1") == "a<br/>b #35;1"
    assert escape("délai 🙂") == "délai #128578;"


def test_a_belief_is_drawn_corrected_only_while_its_replacement_holds(bdb: beliefdb.BeliefDB) -> None:
    (fee,) = bdb.ingest_text("The restocking fee is 10%.\n", source="fees.md").accepted
    done = bdb.apply_correction(fee.id, "The restocking fee is 15%.", reviewer="Rita", value="15%",
                                expect_revision=bdb.why(fee.id).belief.revision)
    assert done.replacement is not None
    assert "corrected" in node(bdb.why_graph(fee.id), fee.id).marks
    bdb.retract(belief=done.replacement, reason="the 15% was a typo too")
    assert bdb.why(fee.id).belief.status == "current"  # rule 3: what no longer holds supersedes nothing
    graph = bdb.why_graph(fee.id)
    assert "corrected" not in node(graph, fee.id).marks and "corrected by" not in node(graph, fee.id).note
    # the correction stays drawn, as history
    assert any(e.relation == "was corrected by" for e in graph.edges if e.source == fee.id)



def test_a_corrected_belief_keeps_its_mark_on_a_page_without_its_replacement(bdb: beliefdb.BeliefDB) -> None:
    (fee,) = bdb.ingest_text("The restocking fee is 10%.\n", source="fees.md").accepted
    bdb.apply_correction(fee.id, "The restocking fee is 15%.", reviewer="Rita", value="15%",
                         expect_revision=bdb.why(fee.id).belief.revision)
    shown = node(bdb.workspace_graph(status="superseded"), fee.id)  # (the replacement is current: not drawn)
    assert "corrected" in shown.marks and "corrected by Rita" in shown.note, shown
