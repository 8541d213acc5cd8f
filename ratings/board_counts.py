"""How many players each score has on each leaderboard, kept in the transaction that changes
the boards' rows (`ScoreCount`): a place is 1 + the players of a higher score, so it is a sum
over the board's distinct scores (a few hundred) rather than a count of the rows ahead (up to
every row of the board).

The counts mirror the rows exactly: an all-time board counts the established ratings (the rows
the all-time board lists), a season's board every standing in it. A change adds and takes away
in the order of (board, score), after the rows it mirrors are locked, so two changes at once
never wait on each other in a circle."""

from __future__ import annotations

from collections import Counter
from datetime import date

from django.db.models import Count, F, Sum

from ratings.model import PROVISIONAL_MATCHES
from ratings.models import Rating, ScoreCount, SeasonStanding

Deltas = Counter[tuple[str, int]]


def board_key(game: str, circle_id: int | None, period: str | None = None,
              starts: date | None = None) -> str:
    """The board's name: its game, circle (0: no circle) and season (`all` for all-time)."""
    season = "all" if period is None or starts is None else f"{period}/{starts.isoformat()}"
    return f"{game}/{circle_id or 0}/{season}"


def rating_key(row: Rating) -> str | None:
    """The all-time board ``row`` is on, None while it is provisional."""
    return board_key(row.game, row.circle_id) if row.matches >= PROVISIONAL_MATCHES else None


def standing_key(row: SeasonStanding) -> str | None:
    """The season board ``row`` is on, None before its first match."""
    return board_key(row.game, row.circle_id, row.period, row.starts) if row.matches else None


def moved(deltas: Deltas, before: tuple[str | None, int], after: tuple[str | None, int]) -> None:
    """A row moved from score ``before`` on its board to ``after`` (None: on no board)."""
    if before[0] is not None:
        deltas[(before[0], before[1])] -= 1
    if after[0] is not None:
        deltas[(after[0], after[1])] += 1


def apply(deltas: Deltas) -> None:
    changes = sorted((key, n) for key, n in deltas.items() if n)
    if not changes:
        return
    ScoreCount.objects.bulk_create(
        [ScoreCount(board=board, score=score) for (board, score), _ in changes],
        ignore_conflicts=True,
    )
    for (board, score), n in changes:
        ScoreCount.objects.filter(board=board, score=score).update(players=F("players") + n)


def ahead(board: str, score: int) -> int:
    """The players of a higher score than ``score`` on ``board``."""
    total = ScoreCount.objects.filter(board=board, score__gt=score).aggregate(
        total=Sum("players"))["total"]
    return total or 0


def rebuild() -> None:
    """Every count again from the rows (after a recount)."""
    ScoreCount.objects.all().delete()
    counts: Deltas = Counter()
    established = Rating.objects.filter(matches__gte=PROVISIONAL_MATCHES)
    for game, circle_id, rating, players in established.values_list(
        "game", "circle_id", "rating").annotate(players=Count("id")).order_by():
        counts[(board_key(game, circle_id), rating)] += players
    standings = SeasonStanding.objects.filter(matches__gt=0)
    for game, circle_id, period, starts, points, players in standings.values_list(
        "game", "circle_id", "period", "starts", "points").annotate(players=Count("id")
                                                                    ).order_by():
        counts[(board_key(game, circle_id, period, starts), points)] += players
    ScoreCount.objects.bulk_create(
        [ScoreCount(board=board, score=score, players=n)
         for (board, score), n in sorted(counts.items())],
        batch_size=1000,
    )
