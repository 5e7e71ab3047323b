"""docs/dba.md quotes the examples the suite runs: every excerpt it quotes from an ``.out`` file is
still in that file, and every link from README.md and docs/ into the docs resolves (files and
heading anchors)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and (m := re.match(r"#{1,6} (.+)", line)):
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


@pytest.mark.parametrize("doc", DOCS, ids=[p.name for p in DOCS])
def test_links_resolve(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path_part, _, anchor = target.partition("#")
        path = (doc.parent / path_part).resolve() if path_part else doc
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, f"broken links in {doc.relative_to(ROOT)}: {broken}"


def test_dba_excerpts_are_what_the_examples_print() -> None:
    """A ```text block of dba.md whose preceding paragraph names an examples/*.out file must be
    found, line for line, in that file (which tests/test_regress_examples.py checks)."""
    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    checked = 0
    for m in re.finditer(r"```text\n(.*?)```", text, flags=re.DOTALL):
        before = text[: m.start()].rstrip().rsplit("\n\n", 1)[-1]
        named = re.findall(r"examples/(\w+\.out)", before)
        if not named:
            continue
        out = (ROOT / "docs" / "examples" / named[-1]).read_text(encoding="utf-8")
        assert m.group(1) in out, f"dba.md quotes {named[-1]} but it no longer prints:\n{m.group(1)}"
        checked += 1
    assert checked >= 5


def test_the_product_states_its_rules_in_docs_rules_md() -> None:
    """The truth rules are cited from docs/rules.md, the product's own words: no file cites a design
    document users do not have."""
    root = Path(__file__).resolve().parent.parent
    folders = ("beliefdb", "sql", "docs", "tests", "bench", "scripts", "migrations")
    files = [p for d in folders for p in (root / d).rglob("*")
             if p.is_file() and p.suffix in {".py", ".sql", ".md", ".out"}]
    citing = [str(p.relative_to(root)) for p in [*files, root / "README.md"]
              if "DESIGN" + ".md" in p.read_text(encoding="utf-8", errors="replace")]
    assert citing == []


# what dba.md writes as a call in `code` that is PostgreSQL's or pgvector's, or arithmetic of a formula
_NOT_BELIEFDB = {"now", "clock_timestamp", "set_config", "vector", "halfvec", "prod", "encode", "sha256", "convert_to"}


def test_every_function_dba_md_calls_exists() -> None:
    """A DBA copies `name(...)` from dba.md into psql: each must be a function of schema beliefdb
    (sql-reference.md lists the catalog's, tests/test_sql_reference.py keeps it so), by that name."""
    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    reference = (ROOT / "docs" / "sql-reference.md").read_text(encoding="utf-8")
    functions = set(re.findall(r"`beliefdb\.(\w+)\(", reference))
    called = {m.group(1) for span in re.findall(r"`([^`\n]+)`", text)
              for m in re.finditer(r"(?<![\w.])(?:beliefdb\.)?([a-z_][a-z0-9_]*)\(", span)}
    assert sorted(called - functions - _NOT_BELIEFDB) == []


def test_follow_along_runs_the_examples_at_the_suites_clock() -> None:
    """The examples move beliefdb.now forward from the suite's clock themselves ("a day later":
    2026-12-01); replayed at today's time, v3.3 is written before v3.2 and the story ends otherwise
    (the 7-day belief unsupported, not superseded). The psql line a DBA copies fixes that clock."""
    from tests.test_regress_examples import CLOCK

    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    section = text.split("## Follow along", 1)[1].split("\n## ", 1)[0]
    runs = [line for block in re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
            for line in block.splitlines() if line.lstrip().split(" ")[:1] != [""] and " psql " in f" {line} "]
    assert runs
    for line in runs:
        assert f"PGOPTIONS='-c beliefdb.now={CLOCK}'" in line, line


def _vacuumed(doc: str) -> list[set[str]]:
    """The tables of each ``vacuum (full, analyze) ...;`` statement of a doc's ```sql blocks."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    return [set(re.findall(r"beliefdb\.(\w+)", m.group(1)))
            for block in re.findall(r"```sql\n(.*?)```", text, flags=re.S)
            for m in re.finditer(r"vacuum \(full, analyze\)(.*?);", block, flags=re.S)]


#: tables a forget updates or deletes rows of that hold no text of what it forgets: ids, counters, a hash
_IDS_ONLY = {"adjacency", "justification", "justification_antecedent", "audit_head",
             "decision"}  # (a decision's own title, its reasons by id, and the count of them forgotten)


def test_one_erasure_list_names_every_table_a_forget_leaves_text_in(bdb: Any, bob: Any,
                                                                    postgresql: Any) -> None:
    """docs/security.md ("Erasing data completely") and docs/dba.md ("Forgetting") each gave a
    ``vacuum (full, analyze)`` of the tables to rewrite, and security.md's lacked belief_embedding,
    lexeme_frequency, job, node and retraction_period. One list now, dba.md's, which security.md links
    to: every table a forget of a source updates or deletes rows of (as PostgreSQL counts them, in
    its transaction) holding its text, and those whose text columns it analyses again."""
    assert _vacuumed("security.md") == []
    assert "dba.md#forgetting" in (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    (listed,) = _vacuumed("dba.md")

    v1 = "# Return policy\nOwner: Operations\n\nReturns are accepted within 7 days of delivery.\n"
    bdb.ingest_text(v1, source="policy.md", authority="official")
    bdb.ingest_text(v1.replace("7 days", "15 days"), source="policy.md")        # a supersession: a relation
    (window,) = bdb.beliefs(attribute="window")
    (owner,) = bdb.beliefs(attribute="owner")
    bdb.decide("Refuse the return of order 1042", because=[window.id])
    bdb.apply_correction(owner.id, "Owner: Logistics", value="Logistics", reviewer="rita",
                         expect_revision=owner.revision, reason="reorganised")
    bdb.retract(belief=window.id, reason="the policy is under review")             # a node's reason, a period
    bob.ingest_text(v1.replace("7 days", "30 days"), source="policy.md")          # a proposal to the owner
    bdb.submit(text=v1.replace("7 days", "10 days"), source="policy.md")          # a queued text
    assert postgresql.execute("select count(*) from beliefdb.belief_embedding").fetchone() != (0,)

    postgresql.execute("select set_config('beliefdb.workspace_id', id::text, true), "
                       "set_config('beliefdb.principal', %s, true) from beliefdb.workspace where name = 'default'",
                       (bdb.database.principal,))

    def changed() -> dict[str, int]:
        return dict(postgresql.execute("select relname, n_tup_upd + n_tup_del from pg_stat_xact_user_tables "
                                       "where schemaname = 'beliefdb'").fetchall())

    before = changed()
    postgresql.execute("select * from beliefdb.forget('source', 'policy.md')")
    after = changed()
    touched = {table for table, n in after.items() if n > before.get(table, 0)}
    analysed = set(re.findall(r"beliefdb\.(\w+) \(", postgresql.execute(
        "select pg_get_functiondef('beliefdb._analyze_text_tables()'::regprocedure)").fetchone()[0]))
    postgresql.rollback()
    assert touched - _IDS_ONLY <= listed, sorted(touched - _IDS_ONLY - listed)
    assert listed == (touched - _IDS_ONLY) | analysed, sorted(listed ^ ((touched - _IDS_ONLY) | analysed))


def test_follow_along_replays_every_example_as_its_out_file_shows() -> None:
    """dba.md's replay ran psql with ``-v ON_ERROR_STOP=1`` and said to run the later examples the same
    way, but 03-09 make errors on purpose (their .out files show them) and stopped at the first. A
    command with ON_ERROR_STOP runs only examples whose .out has no error; the later ones run as the
    suite replays them (tests/test_regress_examples.py: ``psql -X -a -q``), each in a fresh database."""
    from tests.test_regress_examples import __doc__ as replayed

    assert replayed is not None and "psql -X -a -q" in replayed
    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    section = text.split("## Follow along", 1)[1].split("\n## ", 1)[0]
    examples = ROOT / "docs" / "examples"
    erring = {p.with_suffix(".sql").name for p in examples.glob("*.out") if "ERROR:" in p.read_text(encoding="utf-8")}
    assert len(erring) >= 7
    covered: set[str] = set()
    for block in re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL):
        for line in block.splitlines():
            if " psql " not in f" {line} " or " -f " not in line:
                continue
            target = line.split(" -f ", 1)[1].split()[0].strip('"')
            loop = re.search(r"for f in (\S+); do", block)
            names = ({p.name for p in examples.glob(loop.group(1))} if target == "$f" and loop
                     else {Path(target).name})
            if "ON_ERROR_STOP=1" in line:
                assert not names & erring, (line, sorted(names & erring))
            else:
                assert " -X -a -q " in f" {line} ", line
            covered |= names
    assert covered == {p.name for p in examples.glob("0*.sql")}


def test_where_things_are_lists_every_sql_file() -> None:
    """docs/dba.md's "Where things are" table names every file a migration applies, and only those: it
    left out internal/37_bulk, internal/47_vector_index, api/57_bulk, 58_jobs, 59_turns and 62_agent_access."""
    from beliefdb.db.migrate import SQL_FILES

    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    section = text.split("## Where things are", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z]+/\d\d_\w+\.sql)` \|", section, flags=re.M)
    on_disk = sorted(str(p.relative_to(ROOT / "sql")) for p in (ROOT / "sql").glob("*/*.sql"))
    assert sorted(listed) == sorted(SQL_FILES) == on_disk


_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]


def test_every_count_of_the_views_the_docs_give_is_the_catalogs(postgresql: Any) -> None:
    """dba.md said "the six views" twice (its file table, what beliefdb_app may read) where it and
    security.md said seven elsewhere: every "N views" of README.md and docs/ is the number of views of
    schema beliefdb, in words or digits."""
    (views,) = postgresql.execute("select count(*) from pg_catalog.pg_views where schemaname = 'beliefdb'").fetchone()
    counts = re.compile(r"\b(" + "|".join(_NUMBERS) + r"|\d+) views\b", flags=re.I)
    said = [(path.name, m.group(1)) for path in DOCS for m in counts.finditer(" ".join(path.read_text(
        encoding="utf-8").split()))]
    assert len(said) >= 4, said
    assert [(name, n) for name, n in said if n.lower() not in (str(views), _NUMBERS[views])] == [], views


def test_the_forget_examples_run_as_written_in_a_fresh_session(db_url: str) -> None:
    """The Forgetting section's psql examples (``select ... from beliefdb.forget('subject', ...)``) failed alone
    with "no workspace is bound to this session": each binds the workspace first, as the doc says a session
    does ("A session binds a workspace"), and runs as written in a session of its own (rolled back)."""
    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    section = text.split("### Forgetting", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    blocks = [b for b in re.findall(r"```sql\n(.*?)```", section, flags=re.DOTALL) if "beliefdb.forget(" in b]
    assert len(blocks) >= 2
    people = "Maya López's phone is 555-0101.\nMaya lives in Berlin.\n"
    claims = [{"statement": "Maya López's phone is 555-0101.", "subject": "maya_lopez", "attribute": "phone",
               "value": "555-0101", "quote": "Maya López's phone is 555-0101.", "start": 0, "end": 31},
              {"statement": "Maya lives in Berlin.", "subject": "maya", "attribute": "city", "value": "Berlin",
               "quote": "Maya lives in Berlin.", "start": 32, "end": 53}]
    with psycopg.connect(db_url, autocommit=True) as conn:  # (what they forget: a belief of each subject)
        conn.execute("select beliefdb.use_workspace('default')")
        conn.execute("select beliefdb.ingest_version('people.md', %s, p_claims => %s::jsonb)",
                     (people, json.dumps(claims)))
    for block in blocks:
        with psycopg.connect(db_url) as conn:
            for statement in filter(str.strip, block.split(";\n")):
                row = conn.execute(statement).fetchone()  # type: ignore[arg-type]
            assert row is not None and any(row), (block, row)  # (the forget's report: something goes or is masked)
            conn.rollback()


def _uninstall_query() -> str:
    """The query dba.md's Uninstalling section has a DBA run before ``drop schema beliefdb cascade``."""
    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    section = text.split("### Uninstalling", 1)[1].split("\n## ", 1)[0]
    (query,) = [b for b in re.findall(r"```sql\n(.*?)```", section, flags=re.DOTALL) if "pg_depend" in b]
    assert section.index(query) < section.index("drop schema beliefdb cascade")
    return query


def test_the_uninstall_query_lists_what_of_yours_a_drop_takes(postgresql: Any) -> None:
    """dba.md promised the drop's NOTICE names whatever of yours depends on beliefdb; the server names 100
    objects at most ("and 340 other objects (see server log for list)") and beliefdb's own fill them, so a
    view of the DBA's over current_beliefs went unnamed. The query it gives instead names each object of
    the team's that the drop takes, and nothing of beliefdb's or of its extensions'."""
    query = _uninstall_query()
    assert postgresql.execute(query).fetchall() == []  # (a fresh install: nothing of yours)
    (ext,) = postgresql.execute("select extnamespace::regnamespace::text from pg_catalog.pg_extension"
                                " where extname = 'vector'").fetchone()
    assert ext == "beliefdb_ext"  # (the schema the drop takes with it, as a database without pgvector has it)
    postgresql.execute("""
        create view public.my_beliefs as select subject, value from beliefdb.current_beliefs;
        create function public.my_subject(p beliefdb.belief) returns text language sql as 'select p.subject';
        create table public.my_docs (id int primary key, embedding beliefdb_ext.vector(3), body text,
                                     workspace uuid references beliefdb.workspace (id));
        create index my_docs_body on public.my_docs using gin (body beliefdb_ext.gin_trgm_ops);
        create table beliefdb_ext.my_notes (id int)""")
    listed = postgresql.execute(query).fetchall()
    yours = {row[0] for row in listed}
    assert yours == {"view public.my_beliefs", "function public.my_subject(beliefdb.belief)",
                     "table column public.my_docs.embedding", "index public.my_docs_body",
                     "table constraint my_docs_workspace_fkey on public.my_docs", "table beliefdb_ext.my_notes"}, listed
    postgresql.rollback()


def test_the_limitation_names_every_owner_rights_function_that_searches_the_extensions(postgresql: Any) -> None:
    """dba.md's "Limitation" named recall and ensure_vector_index as the functions that run with their owner's
    rights and search the extensions' schema; store_embedding does too, and the vector index's internals. It
    names, in `code`, every security definer function of schema beliefdb whose search path has a schema beyond
    pg_catalog and pg_temp, and no other."""
    rows = postgresql.execute(
        "select p.proname, p.proconfig from pg_catalog.pg_proc p"
        " where p.pronamespace = 'beliefdb'::regnamespace and p.prosecdef").fetchall()
    searching = {name for name, config in rows for setting in (config or [])
                 if setting.startswith("search_path=")
                 and {s.strip().strip('"') for s in setting.split("=", 1)[1].split(",")} - {"pg_catalog", "pg_temp"}}
    assert {"recall", "store_embedding", "ensure_vector_index"} <= searching
    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    (paragraph,) = [p for p in text.split("\n\n") if p.startswith("**Limitation.**") and "owner's rights" in p]
    named = set(re.findall(r"`(\w+)`", paragraph))
    functions = {name for (name,) in postgresql.execute(
        "select proname from pg_catalog.pg_proc where pronamespace = 'beliefdb'::regnamespace").fetchall()}
    assert named & functions == searching


def test_the_correction_source_is_found_and_retracted_as_dba_md_says(bdb: Any, db_url: str) -> None:
    """dba.md said to retract a correction's ``correction:<uuid>`` source, not which uuid that is: one of its own,
    neither the correction's id nor its source's. Its query finds the name from the correction's id, and the
    retraction withdraws the correction (its replacement stops holding)."""
    text = (ROOT / "docs" / "dba.md").read_text(encoding="utf-8")
    section = text.split("**Corrections**", 1)[1].split("\n**", 1)[0]
    (block,) = [b for b in re.findall(r"```sql\n(.*?)```", section, flags=re.DOTALL) if "beliefdb.correction c" in b]
    find, retract = (s.strip() for s in block.split("\\gset", 1))
    bdb.ingest_text("# Return policy\n\nReturns are accepted within 7 days of delivery.\n", source="policy.md",
                    authority="official")
    (window,) = bdb.beliefs(attribute="window")
    made = bdb.apply_correction(window.id, "Returns are accepted within 9 days of delivery.", value="9 days",
                                reviewer="rita", expect_revision=window.revision, reason="a typo")
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select beliefdb.use_workspace('default')")
        (source,) = conn.execute(find.replace(":'correction'", "%(correction)s"),
                                 {"correction": made.correction}).fetchall()
        (source_id,) = conn.execute("select id from beliefdb.source where name = %s", source).fetchone()
        assert source[0].startswith("correction:")
        assert source[0] not in (f"correction:{made.correction}", f"correction:{made.replacement}",
                                 f"correction:{source_id}")
        conn.execute(retract.rstrip(";").replace(":'source'", "%(source)s"), {"source": source[0]})
        assert conn.execute("select holds from beliefdb.holding where id = %s", (made.replacement,)).fetchone() == (
            False,)
