"""Reads: rebuilding deals from the log and shaping what each reader may see.

`seat_view` is the only way a seat's state leaves the service (API responses, idempotent
replays, the computer players), so "no hidden card in a view" is enforced here, once, by building
it from the engine's per-seat `Observation`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet

from games import engine
from games.errors import reason_message
from games.models import Action, Deal, DealStatus, Match, Seat

ENDED = (DealStatus.FINISHED, DealStatus.REDEALT)


def display_name(user: AbstractBaseUser) -> str:
    return (getattr(user, "first_name", "") or user.get_username())[:64]


def table_rules(match: Match) -> engine.TableRules:
    return engine.TableRules.from_dict(match.rules)


def matches_for(user: AbstractBaseUser) -> QuerySet[Match]:
    """The matches ``user`` sits at or created, newest first."""
    return (
        Match.objects.filter(Q(seats__user=user) | Q(created_by=user))
        .distinct()
        .prefetch_related("seats")
        .order_by("-created_at")
    )


def seat_of(match: Match, user: AbstractBaseUser) -> Seat | None:
    return next((seat for seat in match.seats.all() if seat.user_id == user.pk), None)


def current_deal(match: Match) -> Deal:
    deal = match.deals.order_by("-sequence").first()
    assert deal is not None, "an active match always has a deal"
    return deal


def deal_start(match: Match, deal: Deal) -> engine.DealStart:
    hands = [[engine.Card.parse(text) for text in hand] for hand in deal.hands]
    start = engine.DealStart.from_cards(table_rules(match), deal.dealer, hands, deal.number)
    deck = tuple(engine.Card.parse(text).index for text in deal.deck)
    return engine.DealStart(start.rules, start.dealer, start.hands, start.number, deck)


def deal_log(deal: Deal) -> list[tuple[int, engine.Action]]:
    return [
        (row.seat, engine.action_from_dict({"kind": row.kind, **row.payload}))
        for row in deal.actions.order_by("sequence")
    ]


def replay_deal(match: Match, deal: Deal) -> engine.Deal:
    return engine.Deal.replay(deal_start(match, deal), deal_log(deal))


def bot_to_act(match: Match) -> int | None:
    """The seat index of the computer player whose move it is, if any."""
    deal = replay_deal(match, current_deal(match))
    if deal.to_act is None:
        return None
    seat = match.seats.get(index=deal.to_act)
    return seat.index if seat.is_bot else None


def seats_summary(match: Match) -> list[dict[str, Any]]:
    return [
        {
            "index": seat.index,
            "kind": "bot" if seat.is_bot else ("open" if seat.is_open else "person"),
            "display_name": seat.display_name,
            "bot_level": seat.bot_level or None,
        }
        for seat in match.seats.all()
    ]


def match_summary(match: Match) -> dict[str, Any]:
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
    }


def _trick(trick: engine.Trick | None) -> dict[str, Any] | None:
    return None if trick is None else trick.to_dict()


def seat_view(match: Match, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may see of the match now, and nothing more."""
    view: dict[str, Any] = {
        "match_id": str(match.id),
        "game": match.game,
        "status": match.status,
        "version": match.version,
        "seat": seat,
        "seats": seats_summary(match),
        "rules": match.rules,
        "deal_count": match.deal_count,
        "totals": match.totals,
        "ranking": match.ranking,
        "deal": None,
        "previous_deal": None,
    }
    deals = list(match.deals.order_by("-sequence")[:2])
    if not deals:
        return view
    current = deals[0]
    previous = next((d for d in deals if d.status in ENDED), None)
    if previous is not None:
        view["previous_deal"] = ended_deal_summary(match, previous)
    if current.status == DealStatus.IN_PROGRESS:
        view["deal"] = deal_view(replay_deal(match, current).observation(seat), current)
    return view


def deal_view(observation: engine.Observation, deal: Deal) -> dict[str, Any]:
    view = observation.to_dict()
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


def ended_deal_summary(match: Match, deal: Deal) -> dict[str, Any]:
    """The public result of an ended deal, with its last trick."""
    engine_deal = replay_deal(match, deal)
    tricks = engine_deal.completed_tricks()
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
        "last_trick": _trick(tricks[-1] if tricks else None),
    }


def ended_deals(match: Match) -> QuerySet[Deal]:
    return match.deals.filter(status__in=ENDED).order_by("sequence")


def deal_record(match: Match, deal: Deal) -> dict[str, Any]:
    """A whole ended deal: initial hands, the revealed deck and salt, every action and trick."""
    assert deal.status in ENDED, "an unfinished deal's cards are secret"
    engine_deal = replay_deal(match, deal)
    return {
        **ended_deal_summary(match, deal),
        "dealer": deal.dealer,
        "hands": deal.hands,
        "deck": deal.deck,
        "salt": deal.salt,
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


def events(match: Match, after: int, limit: int = 200) -> list[dict[str, Any]]:
    """Applied actions with a version above ``after``, oldest first; all of them are public."""
    rows = (
        Action.objects.filter(match=match, version__gt=after)
        .select_related("deal")
        .order_by("version")[:limit]
    )
    return [
        {
            "version": row.version,
            "deal_number": row.deal.number,
            "deal_sequence": row.deal.sequence,
            "seat": row.seat,
            "kind": row.kind,
            **row.payload,
            "created_at": row.created_at.isoformat(),
        }
        for row in rows
    ]


def match_export(match: Match) -> dict[str, Any]:
    """A match in the API's documented formats: its summary (`Match`) plus ``deals``, the record
    (`DealRecord`) of every ended deal. Staff export it from the admin for review elsewhere."""
    # The API's serializers shape the output, so the export can never drift from the documented
    # format; imported here because reads sit below the API everywhere else.
    from games.api.serializers import DealRecordSerializer, MatchSerializer

    return {
        **MatchSerializer(match_summary(match)).data,
        "deals": [
            DealRecordSerializer(deal_record(match, deal)).data for deal in ended_deals(match)
        ],
    }


def bid_estimate(match: Match, seat: int) -> dict[str, Any]:
    """Expected tricks of the seat's hand for each trump, before play starts."""
    from bots.evaluation import bid_estimate as estimate

    deal = replay_deal(match, current_deal(match))
    if deal.phase not in (engine.Phase.AUCTION, engine.Phase.TRUMP, engine.Phase.ANNOUNCEMENTS):
        raise engine.IllegalAction(engine.Reason.WRONG_PHASE)
    rules = deal.rules
    leader = seat if rules.has_auction else deal.next_seat[deal.dealer]
    estimates = estimate(deal.hand_mask(seat), rules, seat, leader)
    return {
        "hand": [str(card) for card in deal.hand(seat)],
        "estimates": [{"trump": suit, "tricks": tricks} for suit, tricks in estimates.items()],
        "best_trump": max(estimates, key=lambda suit: estimates[suit]),
        "team": rules.is_partnership,
    }
