"""The API's one request parser: JSON of bounded nesting whose every string is text.

JSON's escapes can spell what no text holds: a lone surrogate (`"\\ud800"`) parses into a
Python string that cannot be encoded, so a view that echoed it back (a field's name, a refused
choice) failed in the renderer with a 500. Such strings, numbers JSON has no words for (`NaN`,
`Infinity`, `1e999`) and bytes that do not decode are a malformed request here, so nothing
past the parser ever meets one."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

# Deeper than any request of the API needs (a match's seats are three levels deep); deeper
# input is refused before any serializer walks it.
MAX_DEPTH = 16


def _is_text(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def _depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value, without recursion; ParseError on a string, key or
    value, that is not text."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str) and not _is_text(item):
            raise ParseError()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children = [*item, *item.values()] if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(text)
    return number


def _no_constant(name: str) -> None:
    raise ValueError(name)


class JSONParser(parsers.JSONParser):
    def parse(
        self, stream: IO[bytes], media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding", "utf-8")
        try:
            data = json.loads(stream.read().decode(encoding), parse_float=_finite,
                              parse_constant=_no_constant)
        except (ValueError, RecursionError):
            raise ParseError() from None
        if _depth(data) > MAX_DEPTH:
            raise ParseError()
        return data
