"""The README's Python examples run as written, each against a fresh database of its own: the library,
the async client, the LangGraph store and the LangChain retriever."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli

import beliefdb

README = Path(__file__).resolve().parent.parent / "README.md"

# what each section's example prints, at least
PRINTS = {
    "Library": ["7 days", "needs_review"],
    "Async client": ["30 days ['30 days']"],
    "Conversations": ["1 [('maya', 'lives_in', 'Porto')] 1", "Porto current 2024-06-18",
                      "Lisbon superseded 2024-03-04"],
    "Bulk ingest": ["3 1 3", "0 0"],
    "LangGraph store": ["window now I want a window seat chat-1042/2 0.65", "replaced 'aisle'", "['window']",
                        "[('bags', 2)]"],
    "Agent traces and rollback repair": ["['memory_read', 'plan', 'answer']", "{'text': 'Booked economy.'}"],
    "LangChain retriever": ["Returns are accepted within 7 days of delivery. return-policy.md 1 0 47 0.9 []"],
}


def _examples() -> dict[str, str]:
    """The Python block (```python or ```py) of each ### section that has one."""
    parts = re.split(r"^### (.+)$", README.read_text(encoding="utf-8"), flags=re.M)
    found: dict[str, str] = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        blocks = re.findall(r"```py(?:thon)?\n(.*?)```", body, flags=re.S)
        assert len(blocks) <= 1, f"one example per section: {heading}"
        if blocks:
            found[heading.strip()] = blocks[0]
    return found


def test_every_example_is_checked() -> None:
    assert set(_examples()) == set(PRINTS)


@pytest.mark.parametrize("section", sorted(PRINTS))
def test_readme_example_runs(section: str, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "return-policy.md").write_text("Returns are accepted within 7 days of delivery.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BELIEFDB_URL", db_url)
    exec(compile(_examples()[section], f"README.md ({section})", "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out
    for expected in PRINTS[section]:
        assert expected in printed, printed


@pytest.mark.slow
def test_every_example_type_checks_strictly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's code is typed too: each example, copied into it, passes ``mypy --strict`` against the
    package's own hints (``py.typed``). The library example used ``db.ingest(...)[0].accepted``, which
    mypy refuses: ``ingest`` gives an ``IngestReport`` or, for a file it could not read, an
    ``IngestFailure``."""
    from mypy import api as mypy

    monkeypatch.setenv("MYPYPATH", str(README.parent))  # this checkout's package, whatever is installed
    for number, code in enumerate(_examples().values()):
        (tmp_path / f"example_{number}.py").write_text(code, encoding="utf-8")
    out, err, status = mypy.run(["--config-file", str(_mypy_config(tmp_path / "mypy.ini")), "--strict",
                                 "--no-incremental", "--python-version", "3.11",
                                 "--cache-dir", str(tmp_path / ".mypy_cache"), str(tmp_path)])
    assert status == 0, out + err


# Packages no example's types come from, which mypy need not read: SQLAlchemy (beliefdb.db.migrate's engine,
# behind alembic) and LangSmith (langchain_core's tracing). Reading them was half of the run (about 600 of its
# 2,000 modules); skipped, what they export is Any. The examples, and beliefdb itself, are checked as strictly.
UNREAD = ["sqlalchemy.*", "langsmith.*"]


def _mypy_config(path: Path) -> Path:
    """The project's mypy configuration (pyproject.toml's [tool.mypy]) as an ini file, UNREAD skipped."""
    import tomllib

    def ini(value: Any) -> str:
        return ", ".join(map(str, value)) if isinstance(value, list) else str(value)

    config = tomllib.loads((README.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    overrides = [*config.pop("overrides", []), {"module": UNREAD, "follow_imports": "skip"}]
    lines = ["[mypy]", *(f"{key} = {ini(value)}" for key, value in config.items())]
    for override in overrides:
        modules = override.pop("module")
        lines += [f"[mypy-{ini(modules if isinstance(modules, list) else [modules]).replace(' ', '')}]",
                  *(f"{key} = {ini(value)}" for key, value in override.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_unextracted_text_example_prints_what_the_readme_shows(cli: Cli, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """README, "Unextracted text": the commands of its sh block, then its text block is what ask printed
    (but the date); it showed the matching text unnumbered, where ask numbers it with the beliefs."""
    text = README.read_text(encoding="utf-8")
    part = text[text.index("**Unextracted text.**"):]
    commands = re.search(r"```sh\n(.*?)```", part, flags=re.S)
    shown = re.search(r"```text\n(.*?)```", part, flags=re.S)
    assert commands is not None and shown is not None
    monkeypatch.chdir(tmp_path)
    printf, ingest, ask = commands.group(1).strip().splitlines()
    assert printf == "printf 'Can we bring dogs to the office on Fridays?\\n' > team-notes.md"
    (tmp_path / "team-notes.md").write_text("Can we bring dogs to the office on Fridays?\n", encoding="utf-8")
    assert ingest == "beliefdb ingest team-notes.md"
    cli("ingest", "team-notes.md")
    assert ask == 'beliefdb ask "are dogs allowed in the office?"'
    printed = cli("ask", "are dogs allowed in the office?").stdout
    undated = re.sub(r"recorded \d{4}-\d\d-\d\d", "recorded DATE", printed)
    assert undated == re.sub(r"recorded \d{4}-\d\d-\d\d", "recorded DATE", shown.group(1))


def test_the_ask_example_prints_what_the_readme_shows(cli: Cli, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """README, "Asking memory": after the demo's v3.2 and v3.3 of return-policy.md, ask prints the text
    block's lines first (but ids and dates); the block left out the replaced value's history item."""
    from beliefdb.demo.story import V32, V33

    text = README.read_text(encoding="utf-8")
    shown = re.search(r"```text\n(.*?)```", text[text.index("### Asking memory"):], flags=re.S)
    assert shown is not None
    monkeypatch.chdir(tmp_path)
    policy = tmp_path / "return-policy.md"
    policy.write_text(V32, encoding="utf-8")
    cli("ingest", "return-policy.md", "--authority", "official", "--version-label", "v3.2")
    policy.write_text(V33, encoding="utf-8")
    cli("ingest", "return-policy.md", "--version-label", "v3.3")

    def plain(lines: str) -> list[str]:
        return re.sub(r"\d{4}-\d\d-\d\d", "DATE", re.sub(r"\b[0-9a-f]{8}\b", "ID", lines)).splitlines()

    expected = plain(shown.group(1))
    printed = plain(cli("ask", "how many days for returns?").stdout)
    assert printed[:len(expected)] == expected
    # the block ends with a whole answer: nothing ask printed of the first one (its history) is cut off
    assert "(history, not current: 1. holds now)" not in " ".join(printed[len(expected):])


def test_the_ownership_example_runs_as_written(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README, "Several agents, one memory": its sh block, each line as written but for the ids it
    shows (the belief's and the review item's, as this run prints them). The block used to correct a
    belief the reader had ingested as the login (postgres) and then approve as alice, which a reader
    following it got refused: not_owner."""
    import shlex

    text = README.read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text[text.index("### Several agents, one memory"):], flags=re.S)
    assert block is not None
    lines = [shlex.split(line, comments=True) for line in block.group(1).replace("\\\n", " ").splitlines()]
    monkeypatch.chdir(tmp_path)
    printf, ingest, correct, listing, approve = lines
    assert printf[0] == "printf" and printf[-2] == ">"
    (tmp_path / printf[-1]).write_text(printf[1].replace("\\n", "\n"), encoding="utf-8")
    assert cli(*ingest[1:]).stdout
    (belief,) = cli.json("beliefs", "--subject", "delivery")
    assert belief["owner"] == "alice"
    proposed = cli(*[belief["id"][:8] if arg == correct[2] else arg for arg in correct[1:]]).stdout
    assert "correction proposed" in proposed and "owned by alice" in proposed
    (item,) = [i for i in cli.json("review", "list") if i["kind"] == "correction_proposed"]
    assert "belief owned by alice" in cli(*listing[1:]).stdout
    assert approve[3] == "77ad591d" and approve[-2:] == ["--as", "alice"]
    refused = cli.json("review", "approve", item["id"][:8], "--as", "bob", expect=1)
    assert refused["error"] == "not_owner"
    assert "approved" in cli(*[item["id"][:8] if arg == approve[3] else arg for arg in approve[1:]]).stdout
    (now,) = cli.json("beliefs", "--subject", "delivery")
    assert (now["value"], now["owner"]) == ("5 days", "alice")


@pytest.mark.parametrize("policy", ["one line", "the demo's v3.2"])
def test_the_examples_run_in_order_in_one_workspace(policy: str, cli: Cli, db_url: str, postgresql: Any,
                                                    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A reader follows the README in order, in the workspace default: "Using it" ingests return-policy.md,
    then each Python example runs after the ones before it. The library example took
    ``report.accepted[0]``: nothing new was accepted once return-policy.md was in (IndexError), and with
    the demo's text that first belief was "Owner: Operations", refused an order for it and corrected the
    owner into "14 days". The async example stored its one line as the next version of return-policy.md,
    replacing the text in force (what only the file said stopped holding, and the decisions on it were
    flagged), and the LangChain one then ingested the file again as a version 3."""
    from beliefdb.demo.story import V32

    text = "Returns are accepted within 7 days of delivery.\n" if policy == "one line" else V32
    (tmp_path / "return-policy.md").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BELIEFDB_URL", db_url)
    cli("ingest", "return-policy.md", "--authority", "official", "--version-label", "v3.2")   # "Using it"
    owner_before = [b.value for b in _current(db_url, "return_policy", "owner")]
    for section, code in _examples().items():
        exec(compile(code, f"README.md ({section})", "exec"), {"__name__": "readme"})
        printed = capsys.readouterr().out
        if section == "Library":
            assert "needs_review" in printed, printed
            assert [b.value for b in _current(db_url, "return_policy", "window")] == ["14 days"]
            assert [b.value for b in _current(db_url, "return_policy", "owner")] == owner_before
            with beliefdb.connect(db_url) as db:
                flagged = {d.id for d in db.decisions(status="needs_review")}
            assert len(flagged) == 1
        if section == "Async client":
            assert "30 days ['30 days']" in printed, printed
    # no later example replaced the policy's text, undid the correction or flagged another decision
    versions = postgresql.execute("select count(*) from beliefdb.source_version v join beliefdb.source s "
                                  "on s.id = v.source_id where s.name = 'return-policy.md'").fetchone()
    assert versions == (1,)
    assert [b.value for b in _current(db_url, "return_policy", "window")] == ["14 days"]
    with beliefdb.connect(db_url) as db:
        assert {d.id for d in db.decisions(status="needs_review")} == flagged


def _current(db_url: str, subject: str, attribute: str) -> list[Any]:
    with beliefdb.connect(db_url) as db:
        return db.beliefs(subject=subject, attribute=attribute)


def test_the_http_examples_are_one_curl_a_command(tmp_path: Path) -> None:
    """README, "HTTP API": its curl block run by bash as written (curl a function that records its
    arguments) makes one request per command that begins a line, each body (``-d``) a JSON object. Two
    commands were glued (``... "value": "14 days"}'curl -si ...``): one request, its body not JSON."""
    import json
    import subprocess

    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text[text.index("### HTTP API"):text.index("### MCP")], flags=re.S)
    block = next(b for b in blocks if "curl" in b)
    log = tmp_path / "calls.jsonl"
    record = ('curl() { python3 -c \'import json, sys; print(json.dumps(sys.argv[1:]))\' "$@" >> '
              f'"{log}"; }}\nTOKEN=bdb_x\n')
    subprocess.run(["bash", "-c", record + block], check=True, timeout=60)
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(calls) == len([line for line in block.splitlines() if line.startswith("curl ")]), calls
    for argv in calls:
        assert not [arg for arg in argv if "curl" in arg], argv
        if "-d" in argv:
            assert isinstance(json.loads(argv[argv.index("-d") + 1]), dict), argv


@pytest.mark.slow
def test_the_mcp_client_entry_gives_the_server_its_memory(cli: Cli, db_url: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """README, "MCP": a client starts ``beliefdb mcp`` with the entry's command, args and env alone (the
    SDK's stdio client: a default environment, PATH and HOME, not the shell's), so a BELIEFDB_URL or
    BELIEFDB_HOME exported in the user's shell never reaches it. The entry had no ``env``: the server
    used the default home (/var/lib/beliefdb as root) and ask answered no_match. Run as the entry says,
    its env naming this test's database, it answers from that database."""
    import json
    import os
    import sys

    import anyio
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, get_default_environment

    text = README.read_text(encoding="utf-8")
    shown = re.search(r"```json\n(.*?)```", text[text.index("### MCP"):], flags=re.S)
    assert shown is not None
    entry = json.loads(shown.group(1))["mcpServers"]["beliefdb"]
    assert entry["command"] == "beliefdb" and entry["args"][0] == "mcp"
    assert {"BELIEFDB_HOME", "BELIEFDB_URL"} & set(entry.get("env", {})), entry
    (tmp_path / "return-policy.md").write_text("Returns are accepted within 7 days of delivery.\n", encoding="utf-8")
    cli("ingest", str(tmp_path / "return-policy.md"), "--authority", "official")
    monkeypatch.setenv("BELIEFDB_URL", db_url)       # the user's shell: what the client passes on has none of it
    assert not [name for name in get_default_environment() if name.startswith("BELIEFDB_")]
    env = {name: value for name, value in entry["env"].items() if name not in ("BELIEFDB_HOME", "BELIEFDB_URL")}
    env["BELIEFDB_URL"] = db_url                     # the memory the entry names: this test's database
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    server = StdioServerParameters(command=sys.executable, args=["-m", "beliefdb", *entry["args"]], env=env)

    async def ask() -> Any:
        async with Client(server) as client:
            result = await client.call_tool("ask", {"question": "how many days for returns?"})
            (content,) = result.content
            assert content.type == "text", result
            return json.loads(content.text)

    asked = anyio.run(ask)
    assert asked["status"] == "ok" and asked["beliefs"][0]["value"] == "7 days", asked
