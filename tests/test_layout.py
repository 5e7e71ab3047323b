"""The package's shape: no import circle between beliefdb's modules, no module a newcomer has to
read past 400 lines to find their way in, and the optional frameworks only in their adapters."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import beliefdb

PACKAGE = Path(beliefdb.__file__).resolve().parent
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path) -> set[str]:
    """The beliefdb modules ``name`` imports (anywhere in the file, functions included): for
    ``from beliefdb.x import y`` the submodule ``beliefdb.x.y`` when there is one, else ``beliefdb.x``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{name}: relative import"
            if node.module is None or not node.module.startswith("beliefdb"):
                continue
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("beliefdb")}
    return {m for m in found if m in MODULES and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_package() -> None:
    graph = {name: _imports(name, path) for name, path in MODULES.items()}
    assert sum(len(v) for v in graph.values()) > 100  # the walk sees the package's imports
    assert _cycles(graph) == []


def test_no_module_over_400_lines() -> None:
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_the_layout_has_its_packages() -> None:
    """cli parses and prints, store holds the domain operations, text turns text into candidates,
    db talks to PostgreSQL, render formats, api is the one entry point."""
    packages = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    assert {"beliefdb.api", "beliefdb.cli", "beliefdb.store", "beliefdb.text", "beliefdb.db", "beliefdb.render",
            "beliefdb.models"} <= packages


def test_every_exception_beliefdb_raises_on_purpose_lives_in_errors() -> None:
    """Exceptions a caller may catch are all in beliefdb.errors; modules raise them, never define them."""
    defined = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    (isinstance(b, ast.Name) and b.id in ("BeliefDBError", "InvalidInput", "NotFound",
                                                           "PermissionDenied"))
                    or (isinstance(b, ast.Attribute) and b.attr in ("BeliefDBError", "InvalidInput", "NotFound"))
                    for b in node.bases):
                defined[node.name] = name
    assert len(defined) > 15
    assert {k: v for k, v in defined.items() if v != "beliefdb.errors"} == {}


def test_every_result_type_of_the_entry_point_lives_in_models() -> None:
    """The rows BeliefDB's methods and the operations of beliefdb.api return (dataclasses) are
    beliefdb.models types. (record_run returns a recorder to write steps with, not a row.)"""
    import dataclasses
    import inspect
    import typing

    from beliefdb import api, models

    exported = set(models.__all__)
    returned: set[str] = set()
    functions = [v for k in api.BeliefDB.__mro__[:-1] for n, v in vars(k).items()
                 if inspect.isfunction(v) and not n.startswith("_")]
    functions += [getattr(api, n) for n in api.__all__ if inspect.isfunction(getattr(api, n))]
    for fn in functions:
        hint = typing.get_type_hints(fn).get("return")
        for t in [hint, *typing.get_args(hint)]:
            for inner in [t, *typing.get_args(t)]:
                if isinstance(inner, type) and dataclasses.is_dataclass(inner):
                    returned.add(inner.__name__)
                    assert inner.__module__.startswith("beliefdb.models"), (fn.__name__, inner)
    assert {"Why", "AskResult", "Calibration", "EmbedReport", "CorrectionResult"} <= returned <= exported


# --- the frameworks stay in their adapters ------------------------------------------------------

FRAMEWORKS = ("langgraph", "langchain", "langchain_core")


def test_only_the_adapters_import_a_framework() -> None:
    """LangGraph and LangChain are optional extras: a module outside beliefdb/adapters/ never imports
    them, and each adapter module imports only its own."""
    found: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            tops = ({a.name.split(".")[0] for a in node.names} if isinstance(node, ast.Import)
                    else {(node.module or "").split(".")[0]} if isinstance(node, ast.ImportFrom) else set())
            found.setdefault(name, set()).update(t for t in tops if t in FRAMEWORKS)
    assert {n: f for n, f in found.items() if f} == {"beliefdb.adapters.langgraph": {"langgraph"},
                                                     "beliefdb.adapters.langchain": {"langchain_core"}}


def test_importing_beliefdb_imports_no_framework() -> None:
    code = ("import sys, beliefdb, beliefdb.api, beliefdb.adapters, beliefdb.adapters.fields; "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r}))")
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "[]", done.stdout
