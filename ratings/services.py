"""Ratings written as a rated match finishes: once it is committed, by the ratings' handler of
what follows a match's change (games/follow_ups.py), under the match's row lock, once per match
and person.

Each person's rating row, and their seasons' rows, are locked in the order of their user ids
before they change: two matches finishing at once with the same person both count, whichever
commits first, and never deadlock on each other."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Max, Min
from django.utils import timezone

from games import follow_ups, notify
from games.match_unit import lock
from games.models import BotLevel, GameChoice, Match, MatchStatus, Seat
from ratings import board_counts, model, seasons
from ratings.model import Skill
from ratings.models import Period, Rating, RatingChange, ScoreCount, SeasonStanding
from runtime import traces

_Row = TypeVar("_Row", Rating, SeasonStanding)

# The computer players' published ratings: each level's rating against the others, one of each
# at every table, rated match by match with this model and anchored on the levels' mean at 1500;
# the deviation is the rating's bootstrap spread (docs/ratings.md, "Computer players' ratings":
# `python -m loadtest.bot_ratings --matches 336 --deals 4 --seed 1`, auction game, 2026-12-04).
# A person who plays them is rated against these; they never change by play. Hard and Expert
# finished level (Expert +5 ± 45 points): the same rating.
BOT_RATINGS: dict[str, tuple[int, int]] = {
    BotLevel.EASY: (1310, 30),
    BotLevel.MEDIUM: (1470, 25),
    BotLevel.HARD: (1610, 30),
    BotLevel.EXPERT: (1610, 30),
}


def bot_skill(level: str) -> Skill:
    return Skill.shown(*BOT_RATINGS[level])


def finished_rated(event: follow_ups.MatchProgressed) -> bool:
    return event.status == MatchStatus.FINISHED and event.rated


def follow(event: follow_ups.MatchProgressed) -> None:
    """Rate a rated match that finished (a handler of what follows a match's change, after
    its commit: games/follow_ups.py), under its match's lock; nothing when rated already."""
    match = lock(event.match_id)
    tell(match, rate_match(match))


def tell(match: Match, changes: list[RatingChange]) -> None:
    """Tell what follows the match's changes (the platforms' webhooks) and, once committed,
    the match's live streams what the match did to its people's ratings. A recount tells
    nobody."""
    if not changes:
        return
    announced = [stream_change(change) for change in changes]
    follow_ups.tell([follow_ups.RatingsChanged(
        match_id=str(match.id), version=match.version, circle_id=match.circle_id,
        traceparent=traces.traceparent(),
        changes=[{**told, "user_id": change.user_id}
                 for told, change in zip(announced, changes, strict=True)],
    )])
    match_id = match.id
    transaction.on_commit(lambda: notify.announce_ratings(match_id, announced))


def rated_places(match: Match) -> list[int]:
    """Each seat's place as rated: the match's ranking, except that the people who went (left
    the match, or ended it on autopilot: timed out and never came back) are below everyone who
    stayed, in the order they went, the first to leave lowest; those on autopilot went at the
    end (sharing their place). Those who stayed keep their order; in the partnership game a
    team's place counts once (the model rates a partner who went as if their side lost: its
    place is worse than the team's)."""
    assert match.ranking is not None
    seats = sorted(match.seats.all(), key=lambda seat: seat.index)
    went = [_went(match, seat) for seat in seats]
    stayed = [match.ranking[s] for s in range(4) if went[s] is None]
    if match.game == GameChoice.PARTNERSHIP:
        stayed = sorted(set(stayed))
    gone = [moment for moment in went if moment is not None]
    return [
        1 + sum(other < match.ranking[s] for other in stayed) if moment is None
        else len(stayed) + 1 + sum(other > moment for other in gone)
        for s, moment in enumerate(went)
    ]


def _went(match: Match, seat: Seat) -> datetime | None:
    """When the seat's person went: when they left, or (on autopilot) as the match finished;
    None for a person who stayed and for a computer player."""
    if not seat.is_person:
        return None
    if seat.left_at is not None:
        return seat.left_at
    return match.finished_at if seat.autopilot else None


def rate_match(match: Match) -> list[RatingChange]:
    """Rate the finished match ``match`` (its row locked by the caller); nothing when it has
    been rated already."""
    if RatingChange.objects.filter(match=match).exists():
        return []
    seats = sorted(match.seats.all(), key=lambda seat: seat.index)
    people = {seat.user_id: seat for seat in seats if seat.user_id is not None}
    ratings = _locked(Rating, list(people), match, {})
    places = rated_places(match)
    before = [
        ratings[seat.user_id].skill if seat.user_id is not None
        else bot_skill(seat.bot_level) if seat.is_bot else Skill()
        for seat in seats
    ]
    after = model.rate(
        [model.Player(before[s], places[s], fixed=not seats[s].is_person) for s in range(4)],
        partnership=match.game == GameChoice.PARTNERSHIP,
    )
    finished = match.finished_at or timezone.now()
    newest = dict(
        RatingChange.objects.filter(user_id__in=people, game=match.game).values("user_id")
        .annotate(at=Max("created_at")).values_list("user_id", "at")
    )
    changes = []
    counts: board_counts.Deltas = Counter()
    for user_id, seat in people.items():
        row = ratings[user_id]
        was = (board_counts.rating_key(row), row.rating)
        old, new = before[seat.index], after[seat.index]
        won = places[seat.index] == 1
        changes.append(RatingChange(
            match=match, user_id=user_id, game=match.game, seat=seat.index,
            place=places[seat.index], mu_before=old.mu, sigma_before=old.sigma,
            mu_after=new.mu, sigma_after=new.sigma, rating_before=old.rating,
            rating_after=new.rating, deviation_after=new.deviation,
            created_at=_dated(finished, newest.get(user_id)),
        ))
        row.mu, row.sigma, row.rating, row.deviation = new.mu, new.sigma, new.rating, new.deviation
        row.matches += 1
        row.wins += won
        row.save(update_fields=["mu", "sigma", "rating", "deviation", "matches", "wins",
                                "updated_at"])
        board_counts.moved(counts, was, (board_counts.rating_key(row), row.rating))
    RatingChange.objects.bulk_create(changes)
    for period in Period:
        starts = seasons.season_start(period, finished)
        standings = _locked(SeasonStanding, list(people), match,
                            {"period": period, "starts": starts})
        for change in changes:
            standing = standings[change.user_id]
            was = (board_counts.standing_key(standing), standing.points)
            standing.points += change.delta
            standing.matches += 1
            standing.wins += change.place == 1
            standing.save(update_fields=["points", "matches", "wins", "updated_at"])
            board_counts.moved(counts, was, (board_counts.standing_key(standing),
                                             standing.points))
    board_counts.apply(counts)
    # Erased while the match went on (a recount meets them too): counted, and off the boards.
    erased = get_user_model().objects.filter(pk__in=people, is_active=False)
    for user_id in erased.values_list("pk", flat=True):
        # This game's rows only: the erasure moved the others, and locking them here, with
        # another game's match finishing, would wait in a circle.
        take_off_the_boards(user_id, game=match.game)
    return changes


def _dated(finished: datetime, previous: datetime | None) -> datetime:
    """When a person's rating change is dated: as its match finished, but just after their
    previous change (read under their row's lock) if that is later. Of two matches of theirs
    finishing at once, the first to finish may be rated second, on top of the other: dated
    so, their history's order is the order their rating changed, its newest point their
    rating now, and a recount, rating in that order, dates them the same."""
    if previous is None or previous < finished:
        return finished
    return previous + timedelta(microseconds=1)


def stream_change(change: RatingChange) -> dict[str, Any]:
    """A rating change as the live stream's `rating_changed` and the `rating.changed` webhook
    tell it."""
    return {
        "seat": change.seat, "place": change.place, "rating_before": change.rating_before,
        "rating_after": change.rating_after, "delta": change.delta,
        "deviation": change.deviation_after,
    }


def _locked(
    table: type[_Row], user_ids: list[int], match: Match, key: dict[str, Any]
) -> dict[int, _Row]:
    """The rows of ``table`` of these people in this game (and season ``key``), made if
    missing and locked in the order of their user ids."""
    # Made in the order of the user ids too: two inserts of the same new rows in other
    # orders would wait on each other.
    table.objects.bulk_create(
        [table(user_id=user_id, game=match.game, circle_id=match.circle_id, **key)
         for user_id in sorted(user_ids)],
        ignore_conflicts=True,
    )
    rows = (
        table.objects.select_for_update()
        .filter(user_id__in=user_ids, game=match.game, **key).order_by("user_id")
    )
    return {row.user_id: row for row in rows}


def recount() -> None:
    """Every rating, rating change and season again from the stored results: the rated
    matches in the order their ratings were first written (their changes' ids: for matches
    that share a person, the order their ends committed in), then any rated match never rated,
    by when it finished. The caller holds the transaction. On PostgreSQL the tables are locked
    against writes first: a match finishing meanwhile waits, then counts on top of the
    recount."""
    if connection.vendor == "postgresql":
        tables = ", ".join(model._meta.db_table
                           for model in (Rating, RatingChange, SeasonStanding, ScoreCount))
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {tables} IN SHARE ROW EXCLUSIVE MODE")
    order = list(
        RatingChange.objects.values("match_id").annotate(first=Min("id"))
        .order_by("first").values_list("match_id", flat=True)
    )
    never = (
        Match.objects.filter(rated=True, status=MatchStatus.FINISHED).exclude(pk__in=order)
        .order_by("finished_at", "pk").values_list("pk", flat=True)
    )
    order += list(never)
    matches = Match.objects.prefetch_related("seats").in_bulk(order)
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    SeasonStanding.objects.all().delete()
    ScoreCount.objects.all().delete()
    for match_id in order:
        rate_match(matches[match_id])


def take_off_the_boards(user_id: int, game: str | None = None) -> None:
    """An erased person's ratings leave every leaderboard. Their rows are kept, anonymous as
    the account now is, in a circle of their own that no board shows: the others' ratings were
    counted with theirs, and a recount counts them again the same way."""
    counts: board_counts.Deltas = Counter()
    rows = Rating.objects.select_for_update().filter(user_id=user_id)
    standings = SeasonStanding.objects.select_for_update().filter(user_id=user_id)
    if game is not None:
        rows, standings = rows.filter(game=game), standings.filter(game=game)
    for row in rows.order_by("pk"):
        was = (board_counts.rating_key(row), row.rating)
        row.circle_id = user_id
        row.save(update_fields=["circle"])
        board_counts.moved(counts, was, (board_counts.rating_key(row), row.rating))
    for standing in standings.order_by("pk"):
        was = (board_counts.standing_key(standing), standing.points)
        standing.circle_id = user_id
        standing.save(update_fields=["circle"])
        board_counts.moved(counts, was, (board_counts.standing_key(standing), standing.points))
    board_counts.apply(counts)
