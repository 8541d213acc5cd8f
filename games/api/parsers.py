"""The API's one request parser: JSON objects of bounded nesting."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

# Deeper than any request of the API needs (a match's seats are three levels deep); deeper
# input is refused before any serializer walks it.
MAX_DEPTH = 16


def _depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value, without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


class JSONParser(parsers.JSONParser):
    def parse(
        self, stream: IO[bytes], media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding", "utf-8")
        try:
            data = json.loads(stream.read().decode(encoding))
        except (ValueError, RecursionError):
            raise ParseError() from None
        if _depth(data) > MAX_DEPTH:
            raise ParseError()
        return data
