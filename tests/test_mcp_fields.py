"""A tool's argument that is an object (a step's ``memory``, a job's ``turns``) refuses a field it does not
take by naming the fields it takes, as the HTTP API names a body's. The server read those fields from the
MCP SDK's private tool registry (``_tool_manager``), which any release of the SDK may rename or drop; it
reads them from the tools' own signatures, which beliefdb registers."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client

import beliefdb
from beliefdb.interfaces.mcp import build

ROOT = Path(__file__).resolve().parent.parent
SAID = "not one of the fields this request takes"


def test_an_objects_unknown_field_names_the_fields_it_takes(bdb: beliefdb.BeliefDB) -> None:
    cases = [
        ("record_step", {"kind": "claim", "task": "t", "memory": {"subject": "a", "attribute": "b", "value": "c",
                                                                  "mood": "ok"}},
         f"memory.mood: {SAID} (subject, attribute, value, statement, kind)"),
        ("record_step", {"kind": "plan", "task": "t", "inputs": [{"edge": "reads", "node": "x", "why": "y"}]},
         f"inputs.0.why: {SAID} (edge, node)"),
        ("submit_job", {"source": "c", "turns": [{"speaker": "Maya", "text": "Hi", "mood": "ok"}]},
         f"turns.0.mood: {SAID} (speaker, text, time)"),
    ]

    async def run() -> list[Any]:
        async with Client(build(local=bdb)) as client:
            return [await client.call_tool(tool, arguments) for tool, arguments, _ in cases]

    for (tool, _, said), result in zip(cases, anyio.run(run), strict=True):
        assert result.is_error, (tool, result)
        assert json.loads(result.content[0].text) == {"error": "invalid_input", "message": said}, tool


def test_no_private_attribute_of_the_mcp_sdk_is_read() -> None:
    """beliefdb's MCP tools read no attribute with a leading underscore but those they define themselves (its
    server is the SDK's, subclassed: ``self._tool_manager`` is the SDK's), nor import one: what the SDK keeps
    private may change in any release. (The stdio runner, mcp_stdio.py, still reaches the SDK's low-level
    server to watch stdin: the SDK offers no public way to.)"""
    paths = [p for p in sorted((ROOT / "beliefdb" / "interfaces").glob("mcp*.py")) if p.name != "mcp_stdio.py"]
    trees = {path.name: ast.parse(path.read_text(encoding="utf-8")) for path in paths}
    own = {node.name for tree in trees.values() for node in ast.walk(tree)
           if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    own |= {target.attr for tree in trees.values() for node in ast.walk(tree)
            if isinstance(node, ast.Assign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute)}
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                assert node.attr in own, (name, node.lineno, node.attr)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mcp"):
                assert not [a.name for a in node.names if a.name.startswith("_")], (name, node.lineno, node.module)
