"""Scoring a finished deal, match totals and the final ranking (RULES.md "End of a deal")."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

from .rules import Game, Scoring, TableRules


class Outcome(enum.StrEnum):
    MADE = "made"  # declarer (or an announcing seat) took at least the number
    DOWN = "down"  # declarer (or an announcing seat) failed: batmak
    SCORED = "scored"  # a defender, or a Koz Maça seat, with at least one trick
    BATAK = "batak"  # a defender, or a Koz Maça seat, with no trick


@dataclasses.dataclass(frozen=True, slots=True)
class DealScore:
    """Per-seat points and outcome of one deal; partners share their team's line."""

    points: tuple[int, int, int, int]
    outcomes: tuple[Outcome, Outcome, Outcome, Outcome]


def partner_of(seat: int) -> int:
    return (seat + 2) % 4


def team_tricks(tricks: Sequence[int]) -> tuple[int, int, int, int]:
    """Each seat's team total: seats 0+2 and 1+3 add up."""
    even, odd = tricks[0] + tricks[2], tricks[1] + tricks[3]
    return (even, odd, even, odd)


def _declarer_points(scoring: Scoring, bid: int, tricks: int) -> int:
    if tricks < bid:
        return -bid if scoring == Scoring.SIMPLE else -bid * 10
    match scoring:
        case Scoring.STANDARD:
            return tricks * 10
        case Scoring.BONUS:
            return bid * 15 + (tricks - bid) * 10
        case Scoring.SIMPLE:
            return tricks
        case Scoring.CONTRACT:
            return bid * 10 + (tricks - bid)
    raise AssertionError(scoring)  # pragma: no cover


def _defender_points(rules: TableRules, bid: int | None, tricks: int) -> int:
    if tricks:
        return tricks if rules.scoring == Scoring.SIMPLE else tricks * 10
    match rules.scoring:
        case Scoring.STANDARD:
            return -rules.min_bid * 10
        case Scoring.BONUS:
            return -50
        case Scoring.SIMPLE:
            return -rules.min_bid
        case Scoring.CONTRACT:
            # The contract's bid; Koz Maça has no contract, so the table's minimum stands in.
            return -(bid if bid is not None else rules.min_bid) * 10
    raise AssertionError(rules.scoring)  # pragma: no cover


def _announcement_line(announced: int, tricks: int, limit: int | None) -> tuple[int, Outcome]:
    if announced == 0:
        return (50, Outcome.MADE) if tricks == 0 else (-50, Outcome.DOWN)
    made = tricks >= announced and (limit is None or tricks - announced < limit)
    return (announced * 10, Outcome.MADE) if made else (-announced * 10, Outcome.DOWN)


def score_deal(
    rules: TableRules,
    tricks: Sequence[int],
    *,
    declarer: int | None = None,
    bid: int | None = None,
    announcements: Sequence[int | None] | None = None,
) -> DealScore:
    """Points per seat for a finished deal; ``tricks`` are each seat's own tricks (sum 13)."""
    if rules.game == Game.SPADES:
        if rules.spades_announcements:
            if announcements is None or any(n is None for n in announcements):
                raise ValueError("every seat must have announced")
            lines = [
                _announcement_line(n or 0, tricks[seat], rules.spades_overtrick_limit)
                for seat, n in enumerate(announcements)
            ]
        else:
            lines = [
                (_defender_points(rules, None, t), Outcome.SCORED if t else Outcome.BATAK)
                for t in tricks
            ]
    else:
        if declarer is None or bid is None:
            raise ValueError("a deal with an auction needs its declarer and bid")
        counted = team_tricks(tricks) if rules.is_partnership else tuple(tricks)
        declaring = {declarer, partner_of(declarer)} if rules.is_partnership else {declarer}
        lines = []
        for seat in range(4):
            if seat in declaring:
                line_points = _declarer_points(rules.scoring, bid, counted[seat])
                lines.append((line_points, Outcome.MADE if counted[seat] >= bid else Outcome.DOWN))
            else:
                line_points = _defender_points(rules, bid, counted[seat])
                lines.append((line_points, Outcome.SCORED if counted[seat] else Outcome.BATAK))
    points = tuple(line[0] for line in lines)
    outcomes = tuple(line[1] for line in lines)
    return DealScore(points=points, outcomes=outcomes)  # type: ignore[arg-type]


def ranking(
    totals: Sequence[int], last_deal_tricks: Sequence[int], *, partnership: bool = False
) -> tuple[int, int, int, int]:
    """1-based place per seat: highest total first; a tie goes to more tricks in the last deal;
    still tied, the place is shared (1, 2, 2, 4). In the partnership game the two teams are
    ranked (by team totals and team tricks) and each seat gets its team's place, 1 or 2."""
    tie_break = team_tricks(last_deal_tricks) if partnership else tuple(last_deal_tricks)
    keys = [(totals[seat], tie_break[seat]) for seat in range(4)]
    rivals = [keys[0], keys[1]] if partnership else keys
    return tuple(1 + sum(other > key for other in rivals) for key in keys)  # type: ignore[return-value]
