"""A deal rebuilt from its log by the engine for review, and the replay page's content.

A log that no longer replays, or a stored result that differs from the replay, is reported
(`Replay.problem`, `Replay.mismatches`) instead of breaking the page."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from games import engine, selectors
from games.admin.faces import OUTCOME_LABELS, RED_SUITS, card_face, seat_names, suit_face
from games.models import Deal, DealStatus, Match


@dataclasses.dataclass(frozen=True)
class Replay:
    """A deal rebuilt from its log by the engine, or why that failed."""

    deal: engine.Deal | None
    problem: str = ""
    failed_at: int | None = None  # position in the log (from 1) of the action that was refused
    mismatches: tuple[str, ...] = ()  # stored results that differ from the replay

    @property
    def flagged(self) -> bool:
        return self.deal is None or bool(self.mismatches)


def replay(match: Match, deal_row: Deal) -> Replay:
    try:
        deal = selectors.replay_deal(match, deal_row)
    except Exception as error:  # a log that fails in any way must be shown, not crash the page
        return Replay(None, describe(error), _first_refused(match, deal_row))
    return Replay(deal, mismatches=tuple(_mismatches(deal_row, deal)))


def describe(error: Exception) -> str:
    if isinstance(error, engine.IllegalAction):
        return f"{error.reason.value}: {error.detail}"
    return f"{type(error).__name__}: {error}"


def _first_refused(match: Match, deal_row: Deal) -> int | None:
    """Replays the log one row at a time to name the action the engine refuses; None when the
    deal's cards themselves are broken."""
    try:
        deal = engine.Deal(selectors.deal_start(match, deal_row))
    except Exception:  # the hands or rules are unreadable: no action is to blame
        return None
    for row in deal_row.actions.order_by("sequence"):
        try:
            deal.apply(row.seat, engine.action_from_dict({"kind": row.kind, **row.payload}))
        except Exception:  # the same failure `replay` reported, now located
            return row.sequence
    return None


def _mismatches(row: Deal, deal: engine.Deal) -> list[str]:
    """What the stored deal row says that the engine's replay of its log does not."""
    status = {
        engine.Phase.FINISHED: DealStatus.FINISHED,
        engine.Phase.REDEALT: DealStatus.REDEALT,
    }.get(deal.phase, DealStatus.IN_PROGRESS)
    checks: list[tuple[str, Any, Any]] = [("status", row.status, status)]
    # The row of a deal in play is written again only when the deal ends; until then the log
    # alone holds the contract and the tricks.
    if row.status != DealStatus.IN_PROGRESS:
        checks += [
            ("declarer", row.declarer, deal.declarer),
            ("bid", row.bid, deal.bid),
            ("trump", row.trump, deal.trump.letter if deal.trump is not None else ""),
            ("tricks won", row.tricks, deal.tricks_won),
        ]
    if row.status == DealStatus.FINISHED and deal.score is not None:
        checks.append(("scores", row.scores, list(deal.score.points)))
        checks.append(("outcomes", row.outcomes, [o.value for o in deal.score.outcomes]))
    return [
        f"stored {name} {stored!r}, replay gives {replayed!r}"
        for name, stored, replayed in checks
        if stored != replayed
    ]


def deal_page(match: Match, deal_row: Deal, checked: Replay) -> dict[str, Any]:
    """Everything the replay page shows, from the engine's replay of the deal."""
    names = seat_names(match)
    deal = checked.deal
    if deal is None:
        return {
            "names": names,
            # Not strict: a broken record may hold fewer than four hands, and is shown as it is.
            "stored_hands": [
                {"name": name, "cards": hand}
                for name, hand in zip(names, deal_row.hands, strict=False)
            ],
            "raw_log": _raw_log(deal_row, checked.failed_at),
        }
    tricks = deal.completed_tricks()
    unfinished = deal.current_trick()
    played_in = {
        card: number
        for number, trick in enumerate([*tricks, *([unfinished] if unfinished else [])], 1)
        for _, card in trick.plays
    }
    running = [0, 0, 0, 0]
    review = _analysis(deal_row)
    judged = {move["action"]["card"]: _judged(move) for move in review["moves"]
              if move["action"]["kind"] == "play"} if review else {}
    trick_rows = []
    for number, trick in enumerate(tricks, 1):
        assert trick.winner is not None
        running[trick.winner] += 1
        trick_rows.append(_trick_row(number, trick, deal.trump, names, list(running), judged))
    if unfinished is not None and unfinished.plays:
        trick_rows.append(
            _trick_row(len(tricks) + 1, unfinished, deal.trump, names, list(running), judged)
        )
    return {
        "names": names,
        "hands": [
            {
                "seat": seat,
                "name": names[seat],
                "dealer": seat == deal.dealer,
                "declarer": seat == deal.declarer,
                "suits": [
                    {
                        "symbol": suit.symbol,
                        "red": suit in RED_SUITS,
                        "trump": suit == deal.trump,
                        "cards": [
                            card_face(card, played_in.get(card))
                            for card in engine.cards_of(deal.start.hands[seat] & suit.mask)
                        ],
                    }
                    for suit in engine.Suit
                ],
            }
            for seat in range(4)
        ],
        "auction": [
            {"seat": seat, "name": names[seat], "call": "pass" if bid is None else f"bid {bid}"}
            for seat, bid in deal.auction
        ],
        "has_auction": deal.rules.has_auction,
        "all_passed": bool(deal.auction) and all(bid is None for _, bid in deal.auction),
        "announcements": [
            {"name": names[seat], "tricks": tricks_announced}
            for seat, tricks_announced in enumerate(deal.announcements)
            if tricks_announced is not None
        ],
        "declarer": names[deal.declarer] if deal.declarer is not None else "",
        "bid": deal.bid,
        "trump": suit_face(deal.trump.letter) if deal.trump is not None else None,
        "dummy": names[deal.dummy] if deal.dummy is not None else "",
        "redeal_by": names[deal.redeal_requested_by]
        if deal.redeal_requested_by is not None else "",
        "thrown_in": deal.phase == engine.Phase.REDEALT,
        "tricks": trick_rows,
        "score": _score_line(deal, names),
        "log_length": len(deal.log),
        "analysis": None if review is None else {
            "partial": review["partial"],
            "players": [{**player, "name": names[player["seat"]]}
                        for player in review["players"]],
        },
        "to_act": names[deal.to_act] if deal.to_act is not None else "",
    }


def _trick_row(
    number: int,
    trick: engine.Trick,
    trump: engine.Suit | None,
    names: Sequence[str],
    running: list[int],
    judged: dict[str, dict[str, Any] | None],
) -> dict[str, Any]:
    return {
        "number": number,
        "leader": names[trick.leader],
        "winner": names[trick.winner] if trick.winner is not None else "",
        "plays": [
            {
                "name": names[seat],
                "card": card_face(card),
                "leader": seat == trick.leader,
                "winner": seat == trick.winner,
                "trump": card.suit == trump,
                "judged": judged.get(str(card)),
            }
            for seat, card in trick.plays
        ],
        "missing": 4 - len(trick.plays),
        "running": running,
    }


def _analysis(deal_row: Deal) -> dict[str, Any] | None:
    """The deal's post-deal analysis, once done."""
    found = selectors.deal_analysis(deal_row)
    return found.result if found is not None else None


def _judged(move: dict[str, Any]) -> dict[str, Any] | None:
    """A card's mark and what it cost, from the player's view and with every hand known, as
    the replay shows them beside it; None for a card not judged (the only legal one) and for
    one that cost nothing either way and has no mark (most cards: nothing to say)."""
    seen, known = move["seen"], move["known"]
    if seen is None and known is None:
        return None
    costs = {"seen": _cost(seen), "known": _cost(known)}
    if not move["mark"] and not any(costs.values()):
        return None
    return {"mark": move["mark"] or "", **costs, "best": (seen or known)["best"].get("card", "")}


def _cost(judgement: dict[str, Any] | None) -> str:
    """A judgement's cost in points as the replay writes it (1.5 after a minus sign), "?"
    when not judged that way, and "" when it cost nothing."""
    if judgement is None:
        return "?"
    cost = round(float(judgement["points_cost"]), 1)
    return "" if cost <= 0 else f"\u2212{cost:g}"


def _score_line(deal: engine.Deal, names: Sequence[str]) -> list[dict[str, Any]] | None:
    if deal.score is None:
        return None
    return [
        {
            "name": names[seat],
            "tricks": deal.tricks_won[seat],
            "points": deal.score.points[seat],
            "outcome": OUTCOME_LABELS[deal.score.outcomes[seat]],
        }
        for seat in range(4)
    ]


def _raw_log(deal_row: Deal, failed_at: int | None) -> list[dict[str, Any]]:
    """The stored log as it is, for a deal the engine cannot replay."""
    return [
        {
            "sequence": row.sequence,
            "version": row.version,
            "seat": row.seat,
            "action": " ".join([row.kind, *(str(value) for value in row.payload.values())]),
            "refused": row.sequence == failed_at,
        }
        for row in deal_row.actions.order_by("sequence")
    ]
