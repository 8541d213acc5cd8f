"""Schema hooks: an operation without a summary, a tag, documented errors and an example fails
schema generation (which runs with --fail-on-warn in the tests), so the contract stays complete."""

from __future__ import annotations

from typing import Any

from drf_spectacular.drainage import warn


def _has_example(operation: dict[str, Any]) -> bool:
    bodies = [operation.get("requestBody", {}), *operation.get("responses", {}).values()]
    return any(
        "examples" in media or "example" in media
        for body in bodies
        for media in body.get("content", {}).values()
    )


def require_documentation(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            missing = [
                what
                for what, present in (
                    ("a summary", operation.get("summary")),
                    ("a tag", operation.get("tags")),
                    ("an error response", any(code[0] in "45" for code in operation["responses"])),
                    ("an example", _has_example(operation)),
                )
                if not present
            ]
            if missing:
                warn(f"{method.upper()} {path} lacks {', '.join(missing)}")
    return result
