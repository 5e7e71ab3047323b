"""``/docs``: the HTTP API's reference as a page the server renders itself from its OpenAPI document
(``/openapi.json``): every operation with its summary, parameters, body fields and answers. FastAPI's
Swagger UI loads its script and stylesheet from a CDN, and stayed blank on a machine without the
internet; this page loads nothing from elsewhere, and runs no script."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from beliefdb.interfaces.web import view

router = APIRouter()

METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Field:
    """A parameter or a body field: its name, where it goes, its type in words, and what it is."""

    name: str
    where: str
    kind: str
    required: bool
    about: str


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    description: str
    fields: list[Field]
    answers: list[tuple[str, str]]


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its ``$ref`` (to ``#/components/schemas/...``) followed."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    found: Any = spec
    for part in ref.removeprefix("#/").split("/"):
        found = found.get(part, {}) if isinstance(found, dict) else {}
    return found if isinstance(found, dict) else {}


def _kind(spec: dict[str, Any], schema: dict[str, Any]) -> str:
    """A schema's type in a few words: ``string``, ``integer (1 to 50)``, ``array of string``, a choice."""
    schema = _resolve(spec, schema)
    if "anyOf" in schema:
        kinds = [_kind(spec, s) for s in schema["anyOf"] if s.get("type") != "null"]
        return " or ".join(dict.fromkeys(kinds)) or "null"
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    kind = str(schema.get("type", "any"))
    if kind == "array":
        kind = "array of " + _kind(spec, schema.get("items", {}))
    bounds = [f"{word} {schema[key]:g}" for key, word in (("minimum", "at least"), ("maximum", "at most"))
              if isinstance(schema.get(key), int | float)]
    return f"{kind} ({', '.join(bounds)})" if bounds else kind


def _about(schema: dict[str, Any]) -> str:
    said = str(schema.get("description", ""))
    if "default" in schema and schema["default"] not in (None, "", [], {}):
        said = f"{said} Default: {schema['default']}.".strip()
    return said


def operations(spec: dict[str, Any]) -> list[Operation]:
    """Every operation of the OpenAPI document ``spec``, in its order."""
    out: list[Operation] = []
    for path, item in spec.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            fields = [Field(p["name"], p.get("in", ""), _kind(spec, p.get("schema", {})), bool(p.get("required")),
                            _about({**p.get("schema", {}), **({"description": p["description"]}
                                                              if "description" in p else {})}))
                      for p in operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if isinstance(body, dict):
                body = _resolve(spec, body)
                required = set(body.get("required", []))
                fields += [Field(name, "body", _kind(spec, field), name in required, _about(field))
                           for name, field in body.get("properties", {}).items()]
            answers = [(str(status), str(answer.get("description", "")))
                       for status, answer in operation.get("responses", {}).items()]
            out.append(Operation(method, path, str(operation.get("summary", "")),
                                 str(operation.get("description", "")), fields, answers))
    return out


@router.get("/docs", include_in_schema=False, response_class=HTMLResponse)
def docs(request: Request) -> HTMLResponse:
    spec = request.app.openapi()
    return view.page(request, "api.html", {"title": "HTTP API", "info": spec.get("info", {}),
                                           "operations": operations(spec)})
