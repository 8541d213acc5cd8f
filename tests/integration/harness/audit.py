"""Checks a match's stored log against the rules engine: every version exactly once and in
order, a legal game that replays to the stored results, and each move a client was told was
accepted stored exactly where it was accepted. Needs Django set up on the match's database."""

from __future__ import annotations

from typing import Any

from games import selectors
from games.models import Action, DealStatus, Match

# (version, seat, action as listed in legal_actions) of a move the service answered with 200.
Accepted = tuple[int, int, dict[str, Any]]


def log_problems(match_id: str, accepted: list[Accepted]) -> list[str]:
    match = Match.objects.get(pk=match_id)
    rows = list(Action.objects.filter(match=match).order_by("version"))
    problems = []
    versions = [row.version for row in rows]
    if versions != list(range(1, match.version + 1)):
        problems.append(f"versions {versions} are not 1..{match.version}")
    for deal in match.deals.order_by("sequence"):
        logged = [
            (row.seat, {"kind": row.kind, **row.payload}) for row in rows if row.deal_id == deal.pk
        ]
        try:
            replayed = selectors.replay_deal(match, deal)
        except Exception as error:  # any refusal of the engine is the finding itself
            problems.append(f"deal {deal.sequence} does not replay: {error!r}")
            continue
        if [(seat, action.to_dict()) for seat, action in replayed.log] != logged:
            problems.append(f"deal {deal.sequence}: replayed log differs from the stored one")
        if deal.status == DealStatus.FINISHED and (
            replayed.score is None
            or deal.scores != list(replayed.score.points)
            or deal.tricks != list(replayed.tricks_won)
        ):
            problems.append(f"deal {deal.sequence}: stored result differs from the replay")
    by_version = {row.version: row for row in rows}
    for version, seat, action in accepted:
        row = by_version.get(version)
        if row is None or (row.seat, {"kind": row.kind, **row.payload}) != (seat, action):
            problems.append(f"accepted move {action} of seat {seat} missing at version {version}")
    return problems
