"""The leaderboards: per game and circle, all-time (by rating, established players only) or a
season's (by points won in it, everyone who played a rated match in it).

A board's order is its score (rating or points) descending, then user id ascending: every row
has one position, so a keyset (score, user id) marks a place in it that holds however many tie.
Places are standard competition ranking: a row's place is 1 + the rows of a strictly higher
score, so equal scores share a place and the next score's place skips them (1, 2, 2, 4).

Every read is a few ranges of the boards' indexes (`rating_board`, `season_board`): a page or a
window of rows; a place is summed from the board's counts of players per score
(ratings/board_counts.py), and a row's position within its tie is a count of that tie. Nothing
walks the board."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from games import circles
from ratings import board_counts, seasons
from ratings.errors import InvalidSeasonStart, NotOnLeaderboard, StartsWithoutSeason
from ratings.model import PROVISIONAL_MATCHES
from ratings.models import Period, Rating, SeasonStanding

ALL_TIME = "all"
Row = Rating | SeasonStanding


@dataclasses.dataclass(frozen=True, slots=True)
class Board:
    game: str
    circle_id: int | None
    period: str | None  # None: all-time
    starts: date | None  # the season's first day; None: all-time

    @property
    def key(self) -> str:
        return board_counts.board_key(self.game, self.circle_id, self.period, self.starts)

    @property
    def score(self) -> str:
        return "rating" if self.period is None else "points"

    def rows(self) -> QuerySet[Any]:
        """The board's rows, unordered."""
        if self.period is None or self.starts is None:
            return Rating.objects.filter(
                game=self.game, circle_id=self.circle_id, matches__gte=PROVISIONAL_MATCHES
            )
        return SeasonStanding.objects.filter(
            game=self.game, circle_id=self.circle_id, period=self.period, starts=self.starts
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    place: int
    row: Row

    @property
    def score(self) -> int:
        return _score(self.row)


@dataclasses.dataclass(frozen=True, slots=True)
class Key:
    """A position on a board: a row's score and user id."""

    score: int
    user_id: int


def board(user: User, game: str, season: str = ALL_TIME, starts: date | None = None) -> Board:
    """``user``'s circle's board of ``game``: all-time, or the week's or month's season that
    starts on ``starts`` (the current one when None). StartsWithoutSeason, InvalidSeasonStart."""
    circle = circles.circle_of(user)
    if season == ALL_TIME:
        if starts is not None:
            raise StartsWithoutSeason(field="starts")
        return Board(game, circle, None, None)
    current = seasons.season_start(season, timezone.now())
    if starts is None:
        starts = current
    elif starts > current or seasons.season_start(season, _midday(starts)) != starts:
        raise InvalidSeasonStart(field="starts")
    return Board(game, circle, Period(season), starts)


def _midday(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def page(board: Board, size: int, after: Key | None = None) -> tuple[list[Entry], Key | None]:
    """The ``size`` entries after ``after`` (from the top when None), and the key to go on
    from (None on the last page)."""
    rows = _below(board, after, size + 1) if after else _ordered(board.rows())[: size + 1]
    rows = list(rows)
    more = len(rows) > size
    rows = rows[:size]
    return _placed(board, rows), (_key(rows[-1]) if more else None)


def around(board: Board, user_id: int, size: int) -> tuple[list[Entry], Entry]:
    """The entry of ``user_id`` with up to ``size`` entries above and below it, and its own.
    NotOnLeaderboard when the user is not on the board."""
    own = board.rows().select_related("user").filter(user_id=user_id).first()
    if own is None:
        raise _absent(board, user_id)
    key = _key(own)
    rows = [*reversed(_above(board, key, size)), own, *_below(board, key, size)]
    entries = _placed(board, rows)
    return entries, next(entry for entry in entries if entry.row.user_id == user_id)


def player(board: Board, username: str) -> Entry:
    """The entry of the board's player ``username`` (any case); NotOnLeaderboard if none."""
    if "\x00" in username:  # no name holds one, and PostgreSQL refuses it in a query
        raise NotOnLeaderboard(str(NotOnLeaderboard.player_detail))
    row = board.rows().select_related("user").filter(user__username__iexact=username).first()
    if row is None:
        raise NotOnLeaderboard(str(NotOnLeaderboard.player_detail))
    return Entry(_place(board, _score(row)), row)


def _absent(board: Board, user_id: int) -> NotOnLeaderboard:
    if board.period is not None:
        return NotOnLeaderboard()
    played = Rating.objects.filter(
        user_id=user_id, game=board.game, circle_id=board.circle_id
    ).values_list("matches", flat=True).first() or 0
    needed = PROVISIONAL_MATCHES - played
    return NotOnLeaderboard(
        NotOnLeaderboard.provisional_detail % {"needed": needed, "total": PROVISIONAL_MATCHES}
    )


def _ordered(rows: QuerySet[Any], *, up: bool = False) -> QuerySet[Any]:
    """``rows`` in the board's order (``up``: reversed), each with its user's names."""
    field = "rating" if rows.model is Rating else "points"
    # Led by the circle, which the rows share: PostgreSQL takes `circle_id IS NULL` for no
    # constant of the index's order, and would sort the range rather than read it in order.
    order = ("-circle_id", field, "-user_id") if up else ("circle_id", f"-{field}", "user_id")
    return rows.select_related("user").only(
        "user_id", "user__username", "user__first_name", field, "matches", "wins",
        *(("deviation",) if rows.model is Rating else ()),
    ).order_by(*order)


def _below(board: Board, key: Key, size: int) -> list[Row]:
    """Up to ``size`` rows after ``key``, in order: the rest of its tie, then lower scores.
    Two index ranges rather than one OR, which no index serves."""
    score = board.score
    tie = list(_ordered(board.rows().filter(**{score: key.score}, user_id__gt=key.user_id))[:size])
    if len(tie) == size:
        return tie
    lower = _ordered(board.rows().filter(**{f"{score}__lt": key.score}))[: size - len(tie)]
    return [*tie, *lower]


def _above(board: Board, key: Key, size: int) -> list[Row]:
    """Up to ``size`` rows before ``key``, nearest first."""
    score = board.score
    tie = list(_ordered(board.rows().filter(**{score: key.score}, user_id__lt=key.user_id),
                        up=True)[:size])
    if len(tie) == size:
        return tie
    higher = _ordered(board.rows().filter(**{f"{score}__gt": key.score}), up=True)
    return [*tie, *higher[: size - len(tie)]]


def _place(board: Board, score: int) -> int:
    return 1 + board_counts.ahead(board.key, score)


def _placed(board: Board, rows: Sequence[Row]) -> list[Entry]:
    """Consecutive rows of the board with their places: the first row's by count, and its
    position (its place plus those of its score before it); a later row shares the place of
    the one before it on a tie, and otherwise its place is its position + 1."""
    if not rows:
        return []
    first = _key(rows[0])
    place = _place(board, first.score)
    position = place - 1 + board.rows().filter(
        **{board.score: first.score}, user_id__lt=first.user_id
    ).count()
    entries = [Entry(place, rows[0])]
    for offset, row in enumerate(rows[1:], start=1):
        if _score(row) != entries[-1].score:
            place = position + offset + 1
        entries.append(Entry(place, row))
    return entries


def _score(row: Row) -> int:
    return row.rating if isinstance(row, Rating) else row.points


def _key(row: Row) -> Key:
    return Key(_score(row), row.user_id)
