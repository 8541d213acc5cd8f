"""Checks a response body against the committed OpenAPI document (3.1, so JSON Schema)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "openapi" / "schema.yaml"


@cache
def _document() -> dict[str, Any]:
    return yaml.safe_load(SCHEMA_FILE.read_text())


def _closed(schema: Any) -> Any:
    """The same schema with no room for undeclared properties: the contract is exact."""
    if isinstance(schema, dict):
        closed = {key: _closed(value) for key, value in schema.items()}
        if closed.get("type") == "object" and "properties" in closed:
            closed.setdefault("additionalProperties", False)
        return closed
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    return schema


@cache
def _components() -> dict[str, Any]:
    return _closed(_document()["components"])


def assert_matches(body: Any, component: str) -> None:
    assert_matches_schema(body, {"$ref": f"#/components/schemas/{component}"})


def assert_matches_schema(body: Any, schema: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator({**_closed(schema), "components": _components()}).validate(body)


def documented_examples() -> list[tuple[str, dict[str, Any], Any]]:
    """(operation, schema, example value) for every example in the committed document."""
    found = []
    for path, operations in _document()["paths"].items():
        for method, operation in operations.items():
            bodies = [operation.get("requestBody", {}), *operation["responses"].values()]
            for body in bodies:
                for media in body.get("content", {}).values():
                    for name, example in media.get("examples", {}).items():
                        found.append((f"{method} {path} {name}", media["schema"],
                                      example["value"]))
    return found
