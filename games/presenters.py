"""What each reader may see of a match, shaped as the API answers it: seat views, the
spectator's view, match summaries, deal records, the event feed. Built from the reads in
`selectors` and the engine's per-seat `Observation`, so "no hidden card in a view" is enforced
here, once; refusals are explained in the caller's language here too. The API, the service
layer (an idempotent action's first answer) and the unit of work (the feed's announcements)
present through this module."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, prefetch_related_objects
from django.utils import timezone

from games import access, engine
from games.engine import notation
from games.engine.scoring import partner_of
from games.errors import reason_message
from games.models import (
    Action,
    Deal,
    DealAnalysis,
    DealStatus,
    Match,
    MatchStatus,
    Spectator,
    Visibility,
)
from games.selectors import (
    ENDED,
    MATCH_STATE,
    deal_log,
    deal_start,
    display_name,
    ended_deals,
    latest_deals,
    replay_deal,
    seat_at,
    table_rules,
)


def seats_summary(match: Match) -> list[dict[str, Any]]:
    connected_since = timezone.now() - timedelta(seconds=settings.PRESENCE_SECONDS)
    return [
        {
            "index": seat.index,
            "kind": "bot" if seat.is_bot else ("open" if seat.is_open else "person"),
            "display_name": seat.display_name,
            "bot_level": seat.bot_level or None,
            # Presence and stand-ins concern people's seats only.
            "connected": (
                seat.last_seen is not None and seat.last_seen >= connected_since
                and seat.left_at is None
            ) if seat.is_person else None,
            "last_seen": _time(seat.last_seen) if seat.is_person else None,
            "left_at": _time(seat.left_at),
            "autopilot": seat.autopilot,
            # Only a person can keep a match waiting.
            "ready": seat.ready or not seat.is_person,
        }
        for seat in match.seats.all()
    ]


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def match_summary(match: Match) -> dict[str, Any]:
    """The public facts of ``match``, all of one moment: the row, its seats and its count of
    finished deals are read again until nothing was committed in between (see `_consistent`)."""
    return _consistent(match, _match_summary)


def _match_summary(match: Match) -> dict[str, Any]:
    finished = match.deals.filter(status=DealStatus.FINISHED).count()
    return {
        "id": str(match.id),
        "game": match.game,
        "status": match.status,
        "rules": match.rules,
        "deal_count": match.deal_count,
        "deals_played": finished,
        "version": match.version,
        "seats": seats_summary(match),
        "totals": match.totals,
        "ranking": match.ranking,
        "created_at": match.created_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        **table_facts(match),
        "fill_with_bots_at": _time(match.fill_bots_at),
        "ready_by": _time(match.ready_by),
        "spectators": spectator_count(match),
    }


def table_facts(match: Match) -> dict[str, Any]:
    """What match summaries and every view show of the table between people."""
    return {
        "visibility": match.visibility,
        "rated": match.rated,
        "hints": match.hints,
        "deal_imported": match.imported_hands is not None,
        "clock": match.clock,
        "turn_deadline": _time(match.turn_deadline),
    }


def spectator_count(match: Match) -> int:
    if match.visibility != Visibility.PUBLIC:
        return 0
    since = timezone.now() - timedelta(seconds=settings.PRESENCE_SECONDS)
    return Spectator.objects.filter(match=match, last_seen__gte=since).count()


def _trick(trick: engine.Trick | None) -> dict[str, Any] | None:
    return None if trick is None else trick.to_dict()


VIEW_READ_ATTEMPTS = 3


def seat_view(match: Match, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may see of the match now, and nothing more."""
    return _consistent(match, lambda fresh: _seat_view(fresh, seat, latest_deals(fresh)))


def seat_view_after(
    match: Match, seat: int, deals: list[Deal], observation: engine.Observation | None
) -> dict[str, Any]:
    """``seat_view`` as a change left the match (games/match_unit.py's `Outcome`): its
    `latest_deals` and the seat's observation of the deal in play (None once it is over), so
    an action replays nothing for its answer."""
    # The rematch offer is the API's to add (`getSeatView`, games/rematch.py): a finished
    # match's only, which no action answers.
    view = {**_public_view(match, deals), "seat": seat, "rematch": None}
    current_row = _in_play(deals)
    if current_row is not None and observation is not None:
        view["deal"] = deal_view(observation, current_row)
    return view


def _consistent(match: Match, build: Callable[[Match], dict[str, Any]]) -> dict[str, Any]:
    """``build(match)`` from reads of one moment, without holding a lock.

    Without the lock, a move committed between reading the match and reading its deals would
    pair one version's number with the next one's cards (and the seat would be refused when it
    sends that version back). Every write to a match bumps its version or its ``updated_at``
    (a seat taken), and neither goes back: an unchanged pair afterwards proves that nothing was
    committed in between; otherwise read again, at last under the match lock.
    """
    for _ in range(VIEW_READ_ATTEMPTS):
        version, updated_at = match.version, match.updated_at
        body = build(match)
        if Match.objects.filter(pk=match.pk, version=version, updated_at=updated_at).exists():
            return body
        match.refresh_from_db(fields=MATCH_STATE)
        prefetch_related_objects([match], "seats")
    with transaction.atomic():
        match.refresh_from_db(fields=MATCH_STATE, from_queryset=Match.objects.select_for_update())
        prefetch_related_objects([match], "seats")
        return build(match)


def _public_view(match: Match, deals: list[Deal]) -> dict[str, Any]:
    """What a seat's view and a spectator's view share: the match and the last ended deal."""
    previous = next((d for d in deals if d.status in ENDED), None)
    return {
        "match_id": str(match.id),
        "game": match.game,
        "status": match.status,
        "version": match.version,
        "seats": seats_summary(match),
        "rules": match.rules,
        "deal_count": match.deal_count,
        "totals": match.totals,
        "ranking": match.ranking,
        **table_facts(match),
        "deal": None,
        "previous_deal": None if previous is None else ended_deal_summary(match, previous),
    }


def _in_play(deals: list[Deal]) -> Deal | None:
    return deals[0] if deals and deals[0].status == DealStatus.IN_PROGRESS else None


def _seat_view(match: Match, seat: int, deals: list[Deal]) -> dict[str, Any]:
    current_row = _in_play(deals)
    observation = (
        None if current_row is None else replay_deal(match, current_row).observation(seat)
    )
    return seat_view_after(match, seat, deals, observation)


def own_news(match: Match, seat: int) -> dict[str, Any]:
    """What ``seat``'s own stream tells of the deal in play, read now (seats prefetched): the
    version, and while a deal is in play its number and sequence, the seat's hand and what it
    may do, and `turn` (what it may do, each other card's refusal) when it is its person's
    move."""
    return _consistent(match, lambda fresh: _own_news(fresh, seat))


def _own_news(match: Match, seat: int) -> dict[str, Any]:
    news: dict[str, Any] = {"version": match.version, "deal": None, "turn": None}
    current_row = _in_play(latest_deals(match)) if match.status == MatchStatus.ACTIVE else None
    if current_row is None:
        return news
    state = replay_deal(match, current_row)
    news["deal"] = {
        "number": state.number, "sequence": current_row.sequence,
        "hand": [str(card) for card in state.hand(seat)],
        "legal_actions": [action.to_dict() for action in state.legal_actions(seat)],
    }
    if state.to_act == seat and not seat_at(match, seat).computer_plays:
        news["turn"] = own_turn(state, seat)
    return news


def own_turn(state: engine.Deal, seat: int) -> dict[str, Any]:
    """The turn of ``seat``'s person, for their own stream only: the seat and what it may do
    (as the seat view's `legal_actions`, and each refused card's reason)."""
    return {
        "seat": seat,
        "legal_actions": [action.to_dict() for action in state.legal_actions(seat)],
        "refusals": [[str(card), reason.value] for card, reason in state.refusals().items()],
    }


def spectator_view(match: Match) -> dict[str, Any]:
    """What anyone watching a public match may see: the public history, a face-up dummy, hand
    sizes; no hand of any seat until its deal has ended."""
    return _consistent(match, _spectator_view)


def _spectator_view(match: Match) -> dict[str, Any]:
    deals = latest_deals(match)
    view = {**_public_view(match, deals), "spectators": spectator_count(match)}
    current_row = _in_play(deals)
    if current_row is not None:
        # Any seat's observation, less what only that seat sees.
        observation = replay_deal(match, current_row).observation(0).to_dict()
        for private in ("seat", "hand", "legal_actions", "refusals"):
            del observation[private]
        view["deal"] = {**observation, "sequence": current_row.sequence,
                        "commitment": current_row.commitment}
    return view


def deal_view(observation: engine.Observation, deal: Deal) -> dict[str, Any]:
    view = observation.to_dict()
    del view["seat"]  # the seat view names its seat once, at the top
    view["legal_actions"] = [action.to_dict() for action in observation.legal_actions]
    view["legal_cards"] = [
        action.to_dict()["card"] for action in observation.legal_actions if action.kind == "play"
    ]
    view["refusals"] = [
        {"card": str(card), "reason": reason.value, "message": reason_message(reason)}
        for card, reason in observation.refusals
    ]
    view["sequence"] = deal.sequence
    view["commitment"] = deal.commitment
    return view


# Last tricks of ended deals. An ended deal never changes, and every seat view shows the
# previous deal's last trick: without this each view would replay two deals. The key holds the
# deal's commitment and end time besides its id, so an id used again (SQLite reuses the ids of
# rolled-back rows) or an ending that was rolled back can never be served. Bounded by starting
# afresh when full; a miss costs one replay.
_LAST_TRICKS: dict[tuple[Any, ...], dict[str, Any] | None] = {}


_LAST_TRICKS_MAX = 4096


def _last_trick(match: Match, deal: Deal) -> dict[str, Any] | None:
    key = (deal.pk, deal.commitment, deal.finished_at)
    try:
        trick = _LAST_TRICKS[key]
    except KeyError:
        tricks = replay_deal(match, deal).completed_tricks()
        trick = _trick(tricks[-1] if tricks else None)
        if len(_LAST_TRICKS) >= _LAST_TRICKS_MAX:
            _LAST_TRICKS.clear()
        _LAST_TRICKS[key] = trick
    # A copy, so no caller can change what the next request is shown.
    return copy.deepcopy(trick)


def ended_deal_summary(match: Match, deal: Deal) -> dict[str, Any]:
    """The public result of an ended deal, with its last trick."""
    assert deal.status in ENDED, "only an ended deal's last trick is final"
    return {
        "number": deal.number,
        "sequence": deal.sequence,
        "status": deal.status,
        "declarer": deal.declarer,
        "bid": deal.bid,
        "trump": deal.trump or None,
        "tricks_won": deal.tricks,
        "scores": deal.scores,
        "outcomes": deal.outcomes,
        "last_trick": _last_trick(match, deal),
    }


def deal_record(match: Match, deal: Deal, seat: int | None) -> dict[str, Any]:
    """A whole ended deal: initial hands, the revealed deck and salt, every action and trick.
    While the match's cards are sealed (games/access.py), a reader at ``seat`` (None: none)
    reads their own hand and the cards played only: no other hand, deck nor salt."""
    assert deal.status in ENDED, "an unfinished deal's cards are secret"
    engine_deal = replay_deal(match, deal)
    sealed = access.cards_sealed(match)
    return {
        **ended_deal_summary(match, deal),
        "dealer": deal.dealer,
        "hands": access.hands_shown(match, deal.hands, seat),
        "deck": None if sealed else deal.deck,
        "salt": None if sealed else deal.salt,
        "commitment": deal.commitment,
        "announcements": deal.announcements,
        "auction": [{"seat": seat, "bid": bid} for seat, bid in engine_deal.auction],
        "actions": [
            {"seat": seat, **action.to_dict()} for seat, action in engine_deal.log
        ],
        "tricks": [trick.to_dict() for trick in engine_deal.completed_tricks()],
        "redeal_requested_by": engine_deal.redeal_requested_by,
        "started_at": deal.started_at.isoformat(),
        "finished_at": deal.finished_at.isoformat() if deal.finished_at else None,
    }


def deal_notation(match: Match, deal: Deal) -> str:
    """An ended deal in Batak Deal Notation (docs/notation.md)."""
    assert deal.status in ENDED, "an unfinished deal's cards are secret"
    return notation.write_deal(deal_start(match, deal), deal_log(deal))


def match_notation(match: Match) -> str:
    """A match in Batak Deal Notation: its header and its ended deals so far, never the deal in
    play."""
    deals = tuple(
        notation.NotatedDeal(deal_start(match, deal), tuple(deal_log(deal)))
        for deal in ended_deals(match)
    )
    names = tuple(seat.display_name for seat in match.seats.all())
    return notation.write_match(notation.NotatedMatch(
        table_rules(match), match.deal_count, match.first_dealer, deals,
        names,  # type: ignore[arg-type]
    ))


def event_page(
    match: Match, after: int, limit: int, *, with_deal_ends: bool = False
) -> dict[str, Any]:
    """The first ``limit`` actions after version ``after``, oldest first (all of them public),
    and the cursor to the next page.

    The page describes the match at one version: ``version`` and ``status`` are read first,
    and only actions up to that version are listed. When the page holds every action up to
    it, the cursor moves to ``version`` itself (past changes that are no action: a start, an
    abandonment), so ``has_more`` is exactly whether actions were left for the next page.
    """
    version, status = match.version, match.status
    rows = list(
        Action.objects.filter(match=match, version__gt=after, version__lte=version)
        .select_related("deal")
        .order_by("version")[: limit + 1]
    )
    has_more = len(rows) > limit
    rows = rows[:limit]
    # Read off the stored rules: a feed page needs one flag, not the whole parsed rule set.
    dummy_plays = bool(match.rules.get("partnership_dummy"))
    return {
        "events": [feed_event(row, dummy_plays) for row in rows],
        "next_after": rows[-1].version if has_more else max(after, version),
        "has_more": has_more,
        "version": version,
        "status": status,
        # The results of the deals these actions ended, by version (the live stream's).
        "deal_ends": _deal_ends(match, rows) if with_deal_ends else {},
    }


def _deal_ends(match: Match, rows: list[Action]) -> dict[int, dict[str, Any]]:
    """The results of the scored deals that actions among ``rows`` ended, by the version of
    the action that ended each: the deal's result and the match's totals after it. Costs
    queries only when a row belongs to a scored deal."""
    scored = {row.deal_id: row.deal for row in rows if row.deal.status == DealStatus.FINISHED}
    if not scored:
        return {}
    # A deal scored in a read holds its last action, committed with it: this read sees it.
    last = dict(
        Action.objects.filter(deal_id__in=list(scored)).values("deal_id")
        .annotate(last=Max("version")).values_list("deal_id", "last")
    )
    totals = [0, 0, 0, 0]
    running: dict[int, list[int]] = {}
    up_to = max(deal.sequence for deal in scored.values())
    for sequence, scores in Deal.objects.filter(
        match=match, status=DealStatus.FINISHED, sequence__lte=up_to
    ).order_by("sequence").values_list("sequence", "scores"):
        totals = [a + b for a, b in zip(totals, scores or [0] * 4, strict=True)]
        running[sequence] = totals
    return {last[deal.pk]: deal_result(deal, running[deal.sequence]) for deal in scored.values()}


def deal_result(deal: Deal, totals: list[int]) -> dict[str, Any]:
    """A scored deal's result with the match's ``totals`` after it (the stream's `deal_ended`)."""
    return {"deal_number": deal.number, "deal_sequence": deal.sequence, "scores": deal.scores,
            "outcomes": deal.outcomes, "totals": totals}


def analysis_ready(match_id: Any, sequence: int, result: dict[str, Any]) -> dict[str, Any]:
    """A deal's analysis as announced ready (the stream's `analysis_ready`, the
    `deal.analysed` webhook's data): which deal, whether partial, and the players' summary."""
    return {"match_id": str(match_id), "deal_sequence": sequence,
            "partial": result["partial"], "players": result["players"]}


def deal_analysis(match: Match, deal: Deal, analysis: DealAnalysis) -> dict[str, Any]:
    """A done analysis as `getDealAnalysis` answers it."""
    assert analysis.result is not None
    return {"match_id": str(match.id), "deal_sequence": deal.sequence,
            "deal_number": deal.number, "finished_at": analysis.finished_at,
            **analysis.result}


def feed_event(row: Action, dummy_plays: bool) -> dict[str, Any]:
    """An action as the event feed lists it (``dummy_plays``: the rules' face-up dummy)."""
    seat = row.seat
    if row.kind == engine.ActionKind.PLAY and dummy_plays:
        # The declarer plays a face-up dummy's cards: the card is the dummy's, as in the tricks.
        dummy = partner_of(row.seat)
        if row.payload["card"] in row.deal.hands[dummy]:
            seat = dummy
    return {
        "version": row.version,
        "deal_number": row.deal.number,
        "deal_sequence": row.deal.sequence,
        "seat": seat,
        "submitted_by": row.seat,
        "origin": row.origin,
        "kind": row.kind,
        **row.payload,
        "created_at": row.created_at.isoformat(),
    }


def lobby_entry(match: Match) -> dict[str, Any]:
    preset = engine.PRESETS[engine.Game(match.game)].to_dict()
    changes = {name: value for name, value in match.rules.items() if preset.get(name) != value}
    seats = seats_summary(match)
    return {
        "id": str(match.id),
        "game": match.game,
        "deal_count": match.deal_count,
        "rules": match.rules,
        "preset": not changes,
        "rule_changes": changes,
        "clock": match.clock,
        "seats": seats,
        "seats_taken": sum(seat["kind"] != "open" for seat in seats),
        "open_seats": match.open_seats,
        "rated": match.rated,
        "hints": match.hints,
        "deal_imported": match.imported_hands is not None,
        "created_by": display_name(match.created_by),
        "created_at": match.created_at.isoformat(),
        "fill_with_bots_at": _time(match.fill_bots_at),
    }
