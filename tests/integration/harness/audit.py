"""Checks a match's stored log against the rules engine (games/integrity.py: every version
exactly once and in order, a legal game that replays to the stored results) and each move a
client was told was accepted stored exactly where it was accepted. Needs Django set up on the
match's database."""

from __future__ import annotations

from typing import Any

from games.integrity import match_problems
from games.models import Action, Match

# (version, seat, action as listed in legal_actions) of a move the service answered with 200.
Accepted = tuple[int, int, dict[str, Any]]


def log_problems(match_id: str, accepted: list[Accepted]) -> list[str]:
    match = Match.objects.get(pk=match_id)
    problems = match_problems(match)
    by_version = {row.version: row for row in Action.objects.filter(match=match)}
    for version, seat, action in accepted:
        row = by_version.get(version)
        if row is None or (row.seat, {"kind": row.kind, **row.payload}) != (seat, action):
            problems.append(f"accepted move {action} of seat {seat} missing at version {version}")
    return problems
