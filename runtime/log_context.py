"""The ids bound to every log record of the current request or task: `log_context` binds them
for a block, `add_log_context` adds more, `replace_log_context` starts afresh.

The logging configuration's filter (`batak_api.logs.ContextFilter`) writes them into each
record; the apps bind them here, below the project's settings, so that none of them imports
`batak_api` (which imports them all). Needs neither Django nor anything of the project: the
logging configuration, gunicorn's included, imports it before Django is set up.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_context: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "log_context", default=None
)


@contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Bind ``fields`` to every record logged inside the block (in this thread or task)."""
    token = _context.set({**(_context.get() or {}), **fields})
    try:
        yield
    finally:
        _context.reset(token)


def add_log_context(**fields: Any) -> None:
    """Bind more fields until the enclosing `log_context` ends."""
    _context.set({**(_context.get() or {}), **fields})


def replace_log_context(**fields: Any) -> None:
    """Start afresh with ``fields``: for a worker process that runs one task after another."""
    _context.set(fields)


def current_log_context() -> dict[str, Any]:
    """The fields bound now (empty outside any `log_context`)."""
    return _context.get() or {}
