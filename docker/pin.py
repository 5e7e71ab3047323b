"""Write docker/constraints.txt: every package the image installs, at one version.

pip resolves ``beliefdb[serve]`` (the CLI and ``beliefdb serve``; neither the embedded PostgreSQL nor
the local embedder) from the index without installing anything, for the interpreter that runs this
script; run it with CPython 3.11 on Linux, as the image's, from anywhere:

    python docker/pin.py

The build backend (hatchling) and what it needs are pinned as well: the Dockerfile passes the file as PIP_CONSTRAINT,
which reaches pip's isolated build environment too. tests/test_docker.py checks that the pins cover
and satisfy pyproject.toml.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
HEADER = """\
# Every package the image installs, at one version: the closure of beliefdb[serve] for CPython 3.11
# on Linux, and the build backend's. Written by docker/pin.py (python docker/pin.py); do not edit.
"""


def resolve(*requirements: str) -> dict[str, str]:
    """What pip would install for ``requirements`` into an empty environment: name -> version."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                        "--report", str(report), *requirements], check=True)
        install = json.loads(report.read_text(encoding="utf-8"))["install"]
    return {canonicalize_name(i["metadata"]["name"]): i["metadata"]["version"] for i in install}


def main() -> None:
    pins = resolve(f"{ROOT}[serve]")
    pins.pop("beliefdb")
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    for name, version in resolve(*build).items():
        if pins.setdefault(name, version) != version:  # one constraints file serves both environments
            raise SystemExit(f"{name}: {pins[name]} at run time but {version} to build; pin one by hand")
    lines = [f"{name}=={pins[name]}" for name in sorted(pins)]
    (ROOT / "docker" / "constraints.txt").write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
