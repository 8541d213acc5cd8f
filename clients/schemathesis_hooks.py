"""Schemathesis hooks of scripts/contract.

- Matches stay short: a generated match of many deals between computer players would be played
  inside the request on the embedded default (minutes of Hard search), so a valid deal count
  above 2 is sent as 2 and a Hard computer player as a Medium one. Only valid values are
  changed, so a case meant to be refused stays refused.
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


@schemathesis.hook
def map_body(ctx: Any, body: Any) -> Any:
    if not isinstance(body, dict):
        return body
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
