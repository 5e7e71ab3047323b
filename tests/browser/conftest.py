"""The product view in a real browser: Debian's Chromium (``/usr/bin/chromium``) driven by Playwright
for Python, pointed at that executable (Playwright's own browser download is never used). A machine
without it gets it installed here when the tests run as root (``apt-get install chromium``), else the
run stops with one line saying how. Each test module has one database (cloned from the migrated
template), one ``beliefdb serve`` app on a free loopback port (uvicorn in a thread) and one browser;
screenshots go to ``tests/artifacts/``."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from databases import cloned_database
from playwright.sync_api import Browser, sync_playwright
from pytest_postgresql.executors import NoopExecutor
from serving import running_server

from browser.browsing import Signed

CHROMIUM = Path("/usr/bin/chromium")
INSTALL = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's Chromium: installed with apt-get when missing and running as root, else a one-line failure."""
    if not CHROMIUM.exists():
        # (pytest -n: every worker comes here; one installs, the others wait for it, not for dpkg's lock)
        with open(Path(os.environ.get("TMPDIR", "/tmp")) / "beliefdb-chromium-install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            _install()
    return CHROMIUM


def _install() -> None:
    if not CHROMIUM.exists():
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            pytest.fail(f"the browser tests need Debian's chromium at {CHROMIUM}: run 'sudo apt-get install chromium'"
                        " (or leave them out with pytest -m 'not browser')", pytrace=False)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (["apt-get", "update"], INSTALL):
            print(f"browser tests: {CHROMIUM} is missing, running: {' '.join(command)}", flush=True)
            subprocess.run(command, check=True, env=env)
        if not CHROMIUM.exists():
            pytest.fail(f"apt-get installed chromium but {CHROMIUM} is still missing", pytrace=False)


@pytest.fixture(scope="module")
def module_db(postgresql_proc: NoopExecutor) -> Iterator[str]:
    """A database of this module's own, cloned from the migrated template, dropped afterwards."""
    with cloned_database(postgresql_proc, "browser") as url:
        yield url


@pytest.fixture(scope="module")
def site(module_db: str) -> Iterator[str]:
    """``beliefdb serve``'s app over the module's database; its base URL."""
    with running_server(module_db) as base:
        yield base


@pytest.fixture(scope="module")
def browser(chromium: Path) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(chromium))
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def signed_in(browser: Browser, site: str, module_db: str) -> Signed:
    return Signed(browser, site, module_db)
