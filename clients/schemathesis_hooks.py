"""Schemathesis hooks of scripts/contract.

- Matches stay short: a generated match of many deals between computer players would be played
  inside the request on the embedded default (minutes of Hard search), so a valid deal count
  above 2 is sent as 2 and a Hard computer player as a Medium one. Only valid values are
  changed, so a case meant to be refused stays refused.
- A rated table stays one that may be rated: whether a table may be rated depends on its rules
  and seats together, which no JSON Schema states, so `rated` is sent only with the game's
  rules and seats for two people (`me`, `open`); otherwise the table is asked for casual. A
  rated table offers no hints (400 `hints_not_rated`): with `rated`, `hints` is sent false.
- Requests reach real matches: most generated match ids are replaced by one of the matches
  scripts/contract made for the fuzzer's account (CONTRACT_MATCHES), so moves, views, joins and
  deal records are exercised, not only their 404.
"""

from __future__ import annotations

import os
import random
import uuid
from typing import Any

import schemathesis

MAX_DEALS = 2
MATCHES = [match for match in os.environ.get("CONTRACT_MATCHES", "").split(",") if match]
_rng = random.Random(0)


def _is_uuid(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


@schemathesis.hook
def map_path_parameters(ctx: Any, path_parameters: dict[str, Any] | None) -> Any:
    if path_parameters is None:
        return path_parameters
    if MATCHES and _is_uuid(path_parameters.get("match_id")) and _rng.random() < 0.8:
        path_parameters = {**path_parameters, "match_id": _rng.choice(MATCHES)}
    return path_parameters


def _may_be_rated(body: dict[str, Any], path: str) -> bool:
    """No rule changed, and seats for two people: a quick match's table has them, a match's
    default seats (you and three computer players) do not."""
    seats = body.get("seats")
    people = (4 if path.endswith("/quick-match")
              else sum(isinstance(seat, dict) and seat.get("kind") in ("me", "open")
                       for seat in seats) if isinstance(seats, list) else 1)
    return not body.get("rules") and people >= 2


@schemathesis.hook
def map_body(ctx: Any, body: Any) -> Any:
    if not isinstance(body, dict):
        return body
    path = str(getattr(getattr(ctx, "operation", None), "path", ""))
    if body.get("rated") is True and not _may_be_rated(body, path):
        body = {**body, "rated": False}
    if body.get("rated") is True and body.get("hints") is True:
        body = {**body, "hints": False}
    deals = body.get("deals")
    if isinstance(deals, int) and not isinstance(deals, bool) and MAX_DEALS < deals <= 52:
        body = {**body, "deals": MAX_DEALS}
    if body.get("bot_level") == "hard":  # a quick match's computer players
        body = {**body, "bot_level": "medium"}
    seats = body.get("seats")
    if isinstance(seats, list):
        body = {**body, "seats": [
            {**seat, "bot_level": "medium"}
            if isinstance(seat, dict) and seat.get("bot_level") == "hard" else seat
            for seat in seats
        ]}
    return body
