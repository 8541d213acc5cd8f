"""Reads: matches, their deals rebuilt from the log, the lobby. They return rows and engine
state; what a reader is shown of them is shaped in `games.presenters`."""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Count, Q, QuerySet

from games import engine, notify
from games.models import (
    AnalysisStatus,
    Deal,
    DealAnalysis,
    DealStatus,
    Match,
    MatchStatus,
    Seat,
    Visibility,
)

ENDED = (DealStatus.FINISHED, DealStatus.REDEALT)


def display_name(user: User) -> str:
    return (getattr(user, "first_name", "") or user.get_username())[:64]


def table_rules(match: Match) -> engine.TableRules:
    return engine.TableRules.from_dict(match.rules)


def table_key(
    rules: engine.TableRules, deal_count: int, clock: dict[str, int] | None,
    circle: int | None, rated: bool = False, hints: bool = False,
) -> str:
    """Game, rules, deals, clock, circle, rating and hints as one digest: tables with one key
    are interchangeable. A casual table of no circle without hints keeps the key it had
    before circles."""
    parts: list[Any] = [rules.to_dict(), deal_count, clock]
    if circle is not None:
        parts.append(circle)
    if rated:
        parts.append("rated")
    if hints:
        parts.append("hints")
    canonical = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def matches_for(user: User) -> QuerySet[Match]:
    """The matches ``user`` sits at or created, newest first."""
    return (
        Match.objects.filter(Q(seats__user=user) | Q(created_by=user))
        .distinct()
        .prefetch_related("seats")
        .order_by("-created_at")
    )


def unfinished_matches_of(user: User) -> list[tuple[int, int]]:
    """(computer seats, deals) of each match waiting or in play that ``user`` created or sits
    at: what the account limits count. The open seats of a quick-match table that will get
    computer players count as theirs already."""
    mine = Match.objects.filter(
        Q(seats__user=user) | Q(created_by=user),
        status__in=[MatchStatus.WAITING, MatchStatus.ACTIVE],
    ).values("pk")
    # Counted over the match's own seats, not the seats the filter above joined.
    matches = Match.objects.filter(pk__in=mine).annotate(
        bots=Count("seats", filter=~Q(seats__bot_level=""))
    )
    return [
        (bots + (open_seats if fill_bots_at is not None else 0), deals)
        for bots, deals, open_seats, fill_bots_at in matches.values_list(
            "bots", "deal_count", "open_seats", "fill_bots_at"
        )
    ]


def seat_at(match: Match, index: int) -> Seat:
    """The seat row at ``index`` (seats prefetched or not)."""
    return next(seat for seat in match.seats.all() if seat.index == index)


def seat_of(match: Match, user: User) -> Seat | None:
    return next((seat for seat in match.seats.all() if seat.user_id == user.pk), None)


def current_deal(match: Match) -> Deal:
    deal = match.deals.order_by("-sequence").first()
    assert deal is not None, "an active match always has a deal"
    return deal


# Parsed starts of deals: every action replays its deal's start, and parsing its 104 cards
# again each time costs more than the replay. Keyed by everything the parse reads, so the cache
# can only ever return what parsing the stored row would (an edited row is parsed afresh);
# `DealStart` is immutable, so one instance serves every thread. Bounded by starting afresh.
_STARTS: dict[tuple[Any, ...], engine.DealStart] = {}
_STARTS_MAX = 4096


def deal_start(match: Match, deal: Deal) -> engine.DealStart:
    key = (
        json.dumps(match.rules, sort_keys=True),
        deal.dealer,
        deal.number,
        json.dumps(deal.hands),
        json.dumps(deal.deck),
    )
    start = _STARTS.get(key)
    if start is None:
        hands = [[engine.Card.parse(text) for text in hand] for hand in deal.hands]
        parsed = engine.DealStart.from_cards(table_rules(match), deal.dealer, hands, deal.number)
        deck = tuple(engine.Card.parse(text).index for text in deal.deck)
        start = engine.DealStart(parsed.rules, parsed.dealer, parsed.hands, parsed.number, deck)
        if len(_STARTS) >= _STARTS_MAX:
            _STARTS.clear()
        _STARTS[key] = start
    return start


def deal_log(deal: Deal) -> list[tuple[int, engine.Action]]:
    # Plain values: every request replays a log, and model instances would cost more than the
    # replay itself.
    rows = deal.actions.order_by("sequence").values_list("seat", "kind", "payload")
    return [
        (seat, engine.action_from_dict({"kind": kind, **payload})) for seat, kind, payload in rows
    ]


def replay_deal(match: Match, deal: Deal) -> engine.Deal:
    return engine.Deal.replay(deal_start(match, deal), deal_log(deal))


def latest_deals(match: Match) -> list[Deal]:
    """The current deal and the one before it, newest first: what a seat view shows."""
    return list(match.deals.order_by("-sequence")[:2])


def bot_seat(match: Match, deal: engine.Deal) -> int | None:
    """The seat to act in ``deal`` if a computer player makes its move (a computer seat, or a
    person's seat on autopilot or left), else None (seats prefetched or not)."""
    if deal.to_act is None:
        return None
    seat = seat_at(match, deal.to_act)
    return seat.index if seat.computer_plays else None


def bot_to_act(match: Match) -> int | None:
    """The seat index of the computer player whose move it is, if any."""
    return bot_seat(match, replay_deal(match, current_deal(match)))


# What an action can change on a match row.
MATCH_STATE = [
    "status", "version", "totals", "ranking", "finished_at", "turn_deadline", "updated_at"
]


def deal_to_analyse(
    deal_id: int,
) -> tuple[engine.DealStart, list[tuple[int, engine.Action]]] | None:
    """The start and log of the ended deal ``deal_id`` whose analysis waits; None when none
    does (done already, or never asked for)."""
    deal = Deal.objects.select_related("match").filter(
        pk=deal_id, analysis__status=AnalysisStatus.QUEUED).first()
    if deal is None:
        return None
    return deal_start(deal.match, deal), deal_log(deal)


def deal_analysis(deal: Deal) -> DealAnalysis | None:
    return DealAnalysis.objects.filter(deal=deal).first()


def ended_deals(match: Match) -> QuerySet[Deal]:
    return match.deals.filter(status__in=ENDED).order_by("sequence")


def wait_for_move(match: Match, after: int, timeout: float) -> None:
    """Return when ``match`` may have moved past version ``after``, or after ``timeout``
    seconds at most (see games/notify.py); the caller reads the match again either way."""

    def moved() -> bool:
        try:
            return Match.objects.filter(pk=match.pk, version__gt=after).exists()
        finally:
            give_back_connection()

    notify.wait(match.pk, moved, timeout)


def reading_together() -> contextlib.AbstractContextManager[Any]:
    """Reads made together in one transaction where that takes no lock (PostgreSQL: one
    transaction's bookkeeping instead of one per statement); as they are on SQLite, where a
    transaction here takes the write lock (`transaction_mode` IMMEDIATE in the settings)."""
    if connection.vendor == "postgresql":
        return transaction.atomic()
    return contextlib.nullcontext()


def give_back_connection() -> None:
    """Before a wait: a pooled connection goes back to its process's pool (the next read
    borrows one again), so a waiting request holds none. Kept otherwise: a connection of its
    own costs a thread nothing to keep, and one to open again."""
    if "pool" in connection.settings_dict.get("OPTIONS", {}) and not connection.in_atomic_block:
        connection.close()


# --- the lobby ---------------------------------------------------------------------------------


def lobby(
    *, circle: int | None, game: str | None = None, deals: int | None = None,
    preset: bool | None = None, rules: dict[str, Any] | None = None,
) -> QuerySet[Match]:
    """Public matches of ``circle`` with a seat to take, oldest first: the `match_lobby`
    partial index serves it however many tables there are."""
    tables = Match.objects.filter(
        visibility=Visibility.PUBLIC, status=MatchStatus.WAITING, open_seats__gt=0,
        circle_id=circle,
    )
    if game is not None:
        tables = tables.filter(game=game)
    if deals is not None:
        tables = tables.filter(deal_count=deals)
    if preset is not None:
        presets = Q(rules=engine.PRESETS[engine.Game(game)].to_dict()) if game else Q(
            *[Q(game=kind.value, rules=engine.PRESETS[kind].to_dict()) for kind in engine.Game],
            _connector=Q.OR,
        )
        tables = tables.filter(presets) if preset else tables.exclude(presets)
    for name, value in (rules or {}).items():
        tables = tables.filter(**{f"rules__{name}": value})
    return tables.select_related("created_by").prefetch_related("seats").order_by(
        "created_at", "pk"
    )


