"""Deal sets: the deal of the day per game, made as it is first asked for; a person's play of a
set, at a table of their own against the set's computer players; their result once the deal
is over; and the results compared.

Fair by construction: every table of a set deals the same cards from the same seat, and its
computer players choose from a generator seeded by the set and what their seat sees
(`Match.bot_seed`), so the same plays meet the same answers, however many play the set and in
whatever order; and no deal of a set is ever thrown in for another. The cards are committed
when the set is made (its `commitment`, as every deal's) and shown when it closes; until then
a set's tables are sealed (`Match.cards_sealed_until`, games/access.py): a player sees their
own hand and the cards played, at their own table, as they play, and nothing more afterwards.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from deal_sets.errors import (
    DealSetClosed,
    DealSetNotFound,
    DealSetPlayed,
    DealSetThrowsIn,
    OwnDealSet,
    PlayFirst,
    TooManyDealSets,
)
from deal_sets.models import DealSet, DealSetEntry, DealSetKind
from games import circles, engine, follow_ups, services
from games.engine.play import next_seat_table
from games.engine.shuffle import deck_commitment, hands_from_deck, new_salt, secure_choice
from games.models import BotLevel, Deal, Match, MatchStatus, Visibility
from games.services import SeatKind, SeatSpec


def daily(game: str, now: datetime | None = None) -> DealSet:
    """The deal of the day of ``game`` (UTC days), made as it is first asked for."""
    today = (now or timezone.now()).astimezone(UTC).date()
    existing = DealSet.objects.filter(kind=DealSetKind.DAILY, game=game, day=today).first()
    if existing is not None:
        return existing
    rules = engine.TableRules.create(game)
    try:
        with transaction.atomic():
            return _made(DealSetKind.DAILY, rules, secure_choice(4), None, _midnight_after(today),
                         day=today)
    except IntegrityError:  # made meanwhile by another request
        return DealSet.objects.get(kind=DealSetKind.DAILY, game=game, day=today)


def _midnight_after(day: date) -> datetime:
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=UTC)


def _made(kind: str, rules: engine.TableRules, dealer: int, deck: list[int] | None,
          closes_at: datetime, *, day: date | None = None, user: User | None = None,
          bot_level: str = BotLevel.HARD, seat: int = 0) -> DealSet:
    if deck is None:
        start = engine.DealStart.shuffle(rules, dealer)
        assert start.deck is not None
        deck = list(start.deck)
    deck_text = " ".join(str(engine.Card(index)) for index in deck)
    salt = new_salt()
    return DealSet.objects.create(
        kind=kind, game=rules.game.value, rules=rules.to_dict(), day=day, dealer=dealer,
        deck=deck_text.split(), salt=salt, commitment=deck_commitment(deck_text, salt),
        created_by=user, closes_at=closes_at, bot_level=bot_level, seat=seat,
    )


# Open sets one account may have imported at once: a set costs a row per table played, and
# nothing else.
MAX_OPEN_IMPORTED_SETS = 20


def imported(user: User, start: engine.DealStart, *, hours: int, bot_level: str,
             seat: int) -> DealSet:
    """A set of the deal ``start`` (its rules, dealer and hands), open for ``hours``, its
    tables' person at ``seat`` against computer players of ``bot_level``. Its importer knows
    its cards, so never plays it. Rules that may throw a deal in are refused: the deal dealt
    after it would be another, its result none of the set's."""
    if start.rules.weak_hand_redeal or start.rules.all_pass == engine.AllPass.REDEAL:
        raise DealSetThrowsIn(field="deal")
    with transaction.atomic():
        # One account's imports one after the other, so that the bound holds.
        User.objects.select_for_update().filter(pk=user.pk).values_list("pk").get()
        open_sets = DealSet.objects.filter(created_by=user, closes_at__gt=timezone.now())
        if open_sets.count() >= MAX_OPEN_IMPORTED_SETS:
            raise TooManyDealSets(limit=MAX_OPEN_IMPORTED_SETS)
        deck = start.with_deck().deck
        assert deck is not None
        return _made(DealSetKind.IMPORTED, start.rules, start.dealer, list(deck),
                     timezone.now() + timedelta(hours=hours), user=user, bot_level=bot_level,
                     seat=seat)


def get(deal_set_id: Any) -> DealSet:
    try:
        return DealSet.objects.get(pk=deal_set_id)
    except (DealSet.DoesNotExist, ValueError):
        raise DealSetNotFound() from None


def is_closed(deal_set: DealSet) -> bool:
    return timezone.now() >= deal_set.closes_at


def deal_start(deal_set: DealSet) -> engine.DealStart:
    """The set's deal: its rules, dealer and the hands its deck deals."""
    rules = engine.TableRules.from_dict(deal_set.rules)
    deck = tuple(engine.Card.parse(text).index for text in deal_set.deck)
    hands = hands_from_deck(list(deck), deal_set.dealer,
                            next_seat_table(rules.direction == "clockwise"))
    return engine.DealStart(rules, deal_set.dealer, tuple(hands), 1, deck)  # type: ignore[arg-type]


def play(user: User, deal_set: DealSet) -> Match:
    """The person's table for the set: one deal, their seat the set's, the set's computer
    players at the others. Each person plays a set once, and not the set they imported."""
    if is_closed(deal_set):
        raise DealSetClosed()
    if deal_set.created_by_id == user.pk:
        raise OwnDealSet()
    if DealSetEntry.objects.filter(deal_set=deal_set, user=user).exists():
        raise DealSetPlayed()
    seats = [SeatSpec(kind=SeatKind.ME) if index == deal_set.seat
             else SeatSpec(kind=SeatKind.BOT, bot_level=deal_set.bot_level) for index in range(4)]
    try:
        with transaction.atomic():
            match = services.create_match(
                user=user,
                table=services.NewTable(
                    game=deal_set.game,
                    deal_count=1,
                    seats=seats,
                    rules={name: value for name, value in deal_set.rules.items() if name != "game"},
                    visibility=Visibility.PRIVATE,
                    deal=deal_start(deal_set),
                    bot_seed=str(deal_set.pk),
                    cards_sealed_until=deal_set.closes_at,
                ),
            )
            DealSetEntry.objects.create(deal_set=deal_set, user=user, match=match,
                                        circle_id=match.circle_id)
    except IntegrityError:  # the same person's other request made theirs meanwhile
        raise DealSetPlayed() from None
    return match


def finished_a_deal(event: follow_ups.MatchProgressed) -> bool:
    return event.status == MatchStatus.FINISHED and event.ended_deal_id is not None


def follow(event: follow_ups.MatchProgressed) -> None:
    """A set's table that finished records its person's result (a handler of what follows a
    match's change, after its commit: games/follow_ups.py); nothing when recorded already."""
    entry = DealSetEntry.objects.filter(
        match_id=event.match_id, points__isnull=True).select_related("deal_set").first()
    if entry is None:
        return
    assert event.ended_deal_id is not None  # (`finished_a_deal`)
    deal = Deal.objects.get(pk=event.ended_deal_id)
    assert deal.scores is not None and deal.tricks is not None  # a scored deal's
    seat = entry.deal_set.seat
    DealSetEntry.objects.filter(pk=entry.pk, points__isnull=True).update(
        points=deal.scores[seat], tricks=deal.tricks[seat], finished_at=timezone.now(),
    )


@dataclasses.dataclass(frozen=True)
class Result:
    entry: DealSetEntry
    place: int
    # Duplicate bridge's matchpoints: the share of the others this score beat, a tie half.
    percent: float


def results(deal_set: DealSet, user: User, limit: int) -> tuple[list[Result], int]:
    """The best ``limit`` results of the user's circle, and how many finished the set there.
    Until the set closes, only those who have played it see them."""
    circle = circles.circle_of(user)
    finished = DealSetEntry.objects.filter(deal_set=deal_set, circle_id=circle,
                                           points__isnull=False)
    if not is_closed(deal_set) and not finished.filter(user=user).exists():
        raise PlayFirst()
    counts = Counter(dict(finished.values_list("points").annotate(count=Count("pk"))
                          .order_by()))
    total = sum(counts.values())
    best = finished.select_related("user").order_by("-points", "finished_at", "pk")[:limit]
    return [_result(entry, counts, total) for entry in best], total


def _result(entry: DealSetEntry, counts: Counter[int], total: int) -> Result:
    points = entry.points
    assert points is not None
    above = sum(count for score, count in counts.items() if score > points)
    below = sum(count for score, count in counts.items() if score < points)
    ties = counts[points] - 1
    percent = 100.0 if total == 1 else round(100 * (below + ties / 2) / (total - 1), 1)
    return Result(entry, 1 + above, percent)


def entry_of(deal_set: DealSet, user: User) -> DealSetEntry | None:
    return DealSetEntry.objects.filter(deal_set=deal_set, user=user).select_related(
        "match").first()


def players(deal_set: DealSet, user: User) -> int:
    """How many of the user's circle have a table of this set (finished or not)."""
    return DealSetEntry.objects.filter(deal_set=deal_set,
                                       circle_id=circles.circle_of(user)).count()
