"""Players' statistics per game (`GameRecord`), counted as every match finishes, rated or casual:
once it is committed, by the records' handler of what follows a match's change
(games/follow_ups.py), under the match's row lock, for each person seated at its end; once per
match (its `PlayedMatch` rows say it was counted).

What a finished match adds to a seat's record (docs/ratings.md, "History and statistics"):
- matches 1; wins 1 when it finished first (`place`: the match's ranking, shared first places
  counting, but a person who left, or ended on autopilot, last, as a rated match rates it);
- per finished deal (a deal thrown in counts for nothing): deals 1, points its score;
  declared 1 when the seat won the auction, or, in Koz Maça with announcements, announced
  (the engine scores each announcement as a contract: made or down); made 1 when that
  contract was made; batak 1 when the seat's outcome was `down` (its side failed the
  contract, partner included, or its announcement failed) or `batak` (no trick as a
  defender, or in Koz Maça without announcements).

Each person's history (`PlayedMatch`: the match, its time, their seat, place and score) is
written with the records, for ratings/history.py's pages. `recount` rebuilds both from the
stored finished matches."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable

from django.db import connection, transaction
from django.db.models import Prefetch

from games import follow_ups
from games.engine.scoring import Outcome
from games.match_unit import lock
from games.models import Deal, DealStatus, GameChoice, Match, MatchStatus, Seat
from ratings.models import GameRecord, PlayedMatch
from ratings.services import rated_places

_COUNTS = ("matches", "wins", "deals", "points", "declared", "made", "batak")
# Matches read, and rows written, at a time by `recount`.
_CHUNK = 500


@dataclasses.dataclass(slots=True)
class Tally:
    matches: int = 0
    wins: int = 0
    deals: int = 0
    points: int = 0
    declared: int = 0
    made: int = 0
    batak: int = 0

    def add(self, other: Tally) -> None:
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def finished(event: follow_ups.MatchProgressed) -> bool:
    return event.status == MatchStatus.FINISHED


def follow(event: follow_ups.MatchProgressed) -> None:
    """Count a finished match in its people's records (a handler of what follows a match's
    change, after its commit: games/follow_ups.py), under its match's lock; nothing when
    counted already."""
    count_match(lock(event.match_id))


def places(match: Match) -> list[int]:
    """Each seat's place in ``match`` (seats prefetched), as its history shows it: as a rated
    match rates it, rated or casual. A seat its person left (or handed to the autopilot for
    good) was placed by a computer player: its place is not theirs, and it is last."""
    assert match.ranking is not None
    return rated_places(match)


def match_tallies(match: Match, deals: Iterable[Deal]) -> dict[int, Tally]:
    """What the finished ``match`` (seats prefetched) and its ``deals`` add to the records of
    the people seated at its end, by user id."""
    finished = [deal for deal in deals if deal.status == DealStatus.FINISHED]
    place = places(match)
    tallies = {}
    for seat in match.seats.all():
        if seat.user_id is None:
            continue
        tally = Tally(matches=1, wins=int(place[seat.index] == 1), deals=len(finished))
        for deal in finished:
            assert deal.outcomes is not None and deal.scores is not None  # a finished deal's
            outcome = deal.outcomes[seat.index]
            declared = deal.declarer == seat.index or (
                match.game == GameChoice.SPADES and outcome in (Outcome.MADE, Outcome.DOWN)
            )
            tally.points += deal.scores[seat.index]
            tally.declared += declared
            tally.made += declared and outcome == Outcome.MADE
            tally.batak += outcome in (Outcome.DOWN, Outcome.BATAK)
        tallies[seat.user_id] = tally
    return tallies


def played(match: Match) -> list[PlayedMatch]:
    """The finished ``match`` (seats prefetched) in its people's histories."""
    assert match.finished_at is not None
    place = places(match)
    return [
        PlayedMatch(user_id=seat.user_id, match=match, game=match.game, rated=match.rated,
                    finished_at=match.finished_at, seat=seat.index, place=place[seat.index],
                    score=match.totals[seat.index])
        for seat in match.seats.all() if seat.user_id is not None
    ]


def count_match(match: Match) -> None:
    """Add the finished ``match`` (its row locked by the caller) to its people's records and
    histories; nothing when it has been counted already. Their records are locked in the
    order of their user ids, so that two matches finishing at once with the same person both
    count and never deadlock on each other."""
    if PlayedMatch.objects.filter(match=match).exists():
        return  # counted already: its people's histories have it
    tallies = match_tallies(match, match.deals.filter(status=DealStatus.FINISHED))
    if not tallies:
        return
    PlayedMatch.objects.bulk_create(played(match))
    GameRecord.objects.bulk_create(
        # In the order of the user ids, as they are locked: two matches making the same new
        # rows in other orders would wait on each other.
        [GameRecord(user_id=user_id, game=match.game) for user_id in sorted(tallies)],
        ignore_conflicts=True,
    )
    rows = GameRecord.objects.select_for_update().filter(
        user_id__in=list(tallies), game=match.game
    ).order_by("user_id")
    for row in rows:
        tally = tallies[row.user_id]
        for name in _COUNTS:
            setattr(row, name, getattr(row, name) + getattr(tally, name))
        row.save(update_fields=[*_COUNTS, "updated_at"])


def recount(user_ids: list[int] | None = None) -> int:
    """Rebuild the records and histories (`PlayedMatch`) of ``user_ids`` (everyone's when
    None) from the stored finished matches; answers how many records it wrote. On PostgreSQL
    both tables are locked against writes first: a match finishing meanwhile waits, then
    counts on top of the rebuilt rows (what committed before the lock is read after it)."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    f"LOCK TABLE {GameRecord._meta.db_table}, {PlayedMatch._meta.db_table} "
                    "IN SHARE ROW EXCLUSIVE MODE"
                )
        seats = Seat.objects.filter(user__isnull=False, match__status=MatchStatus.FINISHED)
        records, histories = GameRecord.objects.all(), PlayedMatch.objects.all()
        if user_ids is not None:
            seats = seats.filter(user_id__in=user_ids)
            records = records.filter(user_id__in=user_ids)
            histories = histories.filter(user_id__in=user_ids)
        records.delete()
        histories.delete()
        matches = Match.objects.filter(pk__in=seats.values("match_id")).prefetch_related(
            "seats", Prefetch("deals", queryset=Deal.objects.filter(status=DealStatus.FINISHED)
                              .only("match_id", "status", "declarer", "scores", "outcomes")),
        )
        wanted = None if user_ids is None else set(user_ids)
        totals: dict[tuple[int, str], Tally] = defaultdict(Tally)
        lines: list[PlayedMatch] = []
        for match in matches.iterator(chunk_size=_CHUNK):
            for user_id, tally in match_tallies(match, match.deals.all()).items():
                if wanted is None or user_id in wanted:
                    totals[user_id, match.game].add(tally)
            lines += [line for line in played(match) if wanted is None or line.user_id in wanted]
            if len(lines) >= _CHUNK:
                PlayedMatch.objects.bulk_create(lines)
                lines = []
        PlayedMatch.objects.bulk_create(lines)
        GameRecord.objects.bulk_create(
            (GameRecord(user_id=user_id, game=game, **dataclasses.asdict(tally))
             for (user_id, game), tally in sorted(totals.items())),
            batch_size=_CHUNK,
        )
    return len(totals)
