"""The match page: the table rules in words, the seats and a score sheet of every deal."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.urls import reverse

from games import engine, selectors
from games.access import cards_visible
from games.admin.faces import OUTCOME_LABELS, seat_names, suit_face
from games.admin.replay import replay
from games.models import Action, ActionOrigin, DealStatus, Match, Visibility


def rules_in_words(rules: engine.TableRules) -> list[str]:
    """The table rules as a referee would explain them at the table."""
    game = {
        engine.Game.AUCTION: "Auction (İhaleli): four players, each for themselves; the winner "
        "of the auction names trumps and leads first.",
        engine.Game.PARTNERSHIP: "Partnership (Eşli): seats 0 and 2 play against 1 and 3; the "
        "winner of the auction names trumps and leads first; partners add up their tricks.",
        engine.Game.SPADES: "Spades (Koz Maça): no auction, spades are always trumps and the "
        "seat after the dealer leads first.",
    }[rules.game]
    order = (
        "clockwise (to the left): 0 → 3 → 2 → 1"
        if rules.direction == engine.Direction.CLOCKWISE
        else "anticlockwise (to the right): 0 → 1 → 2 → 3"
    )
    lines = [game, f"Play and the deal pass {order}."]
    if rules.has_auction:
        lines.append(f"Bids start at {rules.min_bid} tricks; a bid of 13 cannot be topped.")
        if rules.all_pass == engine.AllPass.REDEAL:
            lines.append("If all four pass, the cards are thrown in and dealt again.")
        else:
            lines.append(f"If all four pass, the dealer must play {rules.all_pass_bid} tricks.")
    if rules.trump_lead == engine.TrumpLead.ANYTIME:
        lines.append("Trumps may be led at any time.")
    else:
        lines.append(
            "Trumps may not be led before a trump has been played in an earlier trick, unless "
            "the leader holds nothing but trumps."
        )
    if rules.akq_trump_lead:
        lines.append(
            "A player holding the ace, king and queen of trumps may lead them before trumps "
            "are broken."
        )
    if rules.must_beat_in_suit:
        lines.append(
            "A player following suit must beat the highest card of the led suit if able"
            + (", even once the trick has been trumped." if rules.must_beat_after_trumped
               else ", unless the trick has already been trumped.")
        )
    else:
        lines.append("A player following suit need not beat the cards already played.")
    if rules.must_trump:
        lines.append("A player out of the led suit must play a trump if holding one.")
    else:
        lines.append("A player out of the led suit may discard while no trump is in the trick.")
    if rules.must_overtrump:
        lines.append(
            "With a trump in the trick, a player who can must play a higher trump; one who "
            + ("cannot must still play a trump." if rules.must_trump_when_cannot_overtrump
               else "cannot may play any card.")
        )
    else:
        lines.append("Nobody has to overtrump.")
    if rules.partnership_dummy:
        lines.append(
            "Once trumps are named, the declarer's partner lays their hand face up and the "
            "declarer plays both hands."
        )
    lines.append(_scoring_in_words(rules))
    if rules.weak_hand_redeal:
        lines.append("A player whose hand has no card above a ten may ask for a new deal.")
    return lines


def _scoring_in_words(rules: engine.TableRules) -> str:
    if rules.spades_announcements:
        limit = rules.spades_overtrick_limit
        over = f", and so does taking {limit} or more tricks over it" if limit else ""
        return (
            "Before play each seat announces 0 to 13 tricks: taking at least the number scores "
            f"10 per trick announced, taking fewer loses as much{over}; announcing none scores "
            "50 with no trick and loses 50 otherwise."
        )
    unit = 1 if rules.scoring == engine.Scoring.SIMPLE else 10
    nil = {
        engine.Scoring.STANDARD: f"loses {rules.min_bid * 10}",
        engine.Scoring.BONUS: "loses 50",
        engine.Scoring.SIMPLE: f"loses {rules.min_bid}",
        engine.Scoring.CONTRACT: (
            f"loses {rules.min_bid * 10}" if not rules.has_auction
            else "loses 10 per trick of the contract"
        ),
    }[rules.scoring]
    defender = f"{unit} per trick, and one with no trick (batak) {nil}"
    if not rules.has_auction:
        return f"{rules.scoring.value.capitalize()} scoring: every seat scores {defender}."
    made = {
        engine.Scoring.STANDARD: "10 per trick taken",
        engine.Scoring.BONUS: "15 per trick bid and 10 per extra trick",
        engine.Scoring.SIMPLE: "1 per trick taken",
        engine.Scoring.CONTRACT: "10 per trick bid and 1 per extra trick",
    }[rules.scoring]
    team = "The declaring team" if rules.is_partnership else "The declarer"
    return (
        f"{rules.scoring.value.capitalize()} scoring: {team} making the contract scores {made} "
        f"and going down loses {unit} per trick bid; a defender scores {defender}."
    )


def stand_ins(match: Match) -> list[dict[str, Any]]:
    """Per seat, the moves computer players made for its person: timeouts (by version), the
    autopilot periods (first and last version of each run of autopilot moves, a move of the
    person ending a run) and the moves after the person left."""
    seats: list[dict[str, Any]] = [
        {"timeouts": [], "autopilot_periods": [], "stand_in_moves": 0} for _ in range(4)
    ]
    running: list[list[int] | None] = [None] * 4
    for seat, origin, version in (
        Action.objects.filter(match=match).order_by("version")
        .values_list("seat", "origin", "version")
    ):
        if origin == ActionOrigin.AUTOPILOT:
            if running[seat] is None:
                running[seat] = [version, version]
                seats[seat]["autopilot_periods"].append(running[seat])
            else:
                running[seat][1] = version  # type: ignore[index]
            continue
        running[seat] = None
        if origin == ActionOrigin.TIMEOUT:
            seats[seat]["timeouts"].append(version)
        elif origin == ActionOrigin.STAND_IN:
            seats[seat]["stand_in_moves"] += 1
    return seats


def clock_in_words(match: Match) -> str:
    if match.clock is None:
        return "No turn clock."
    words = f"Turn clock: {match.clock['bid']} s a call, {match.clock['card']} s a card."
    if match.turn_deadline is not None:
        words += f" The person to act runs out of time at {match.turn_deadline:%H:%M:%S} UTC."
    return words


def visibility_in_words(match: Match) -> str:
    """What the match's visibility means for it: most private matches (computer players, a
    platform's or a tour's tables) have no invitation, and nobody joins them by one."""
    if match.visibility == Visibility.PUBLIC:
        return "Public: listed in the lobby while a seat is open, open to spectators."
    if match.invitation_code:
        return "Private: not in the lobby; people join with its invitation code."
    return "Private: not in the lobby, with no invitation code to join it by."


def seat_rows(match: Match, names: Sequence[str]) -> list[dict[str, Any]]:
    ranking = match.ranking or [None] * 4
    partnership = match.game == engine.Game.PARTNERSHIP
    moves_for = stand_ins(match)
    rows = []
    for seat in match.seats.all():
        if seat.is_bot:
            kind = f"computer, {seat.get_bot_level_display()}"
        elif seat.is_open:
            kind = "open seat"
        else:
            assert seat.user is not None  # neither a computer's seat nor an open one
            kind = f"person, account {seat.user.get_username()}"
        rows.append({
            "index": seat.index,
            "name": names[seat.index],
            "kind": kind,
            "team": ("0 + 2" if seat.index % 2 == 0 else "1 + 3") if partnership else "",
            "first_dealer": seat.index == match.first_dealer,
            "total": match.totals[seat.index] if match.totals else 0,
            "place": ranking[seat.index],
            "last_seen": seat.last_seen,
            "left_at": seat.left_at,
            "autopilot": seat.autopilot,
            **moves_for[seat.index],
        })
    return rows


def deal_rows(match: Match, names: Sequence[str]) -> list[dict[str, Any]]:
    """One score-sheet line per deal dealt, thrown-in deals included, each checked by replay.
    The line shows the replay; only a deal whose log does not replay shows what was stored."""
    rows = []
    for deal_row in match.deals.order_by("sequence"):
        checked = replay(match, deal_row)
        deal = checked.deal
        if deal is None:
            declarer, bid, trump = deal_row.declarer, deal_row.bid, deal_row.trump
            tricks, points, outcomes = deal_row.tricks, deal_row.scores, deal_row.outcomes
            to_act = None
        else:
            declarer, bid, to_act = deal.declarer, deal.bid, deal.to_act
            trump = deal.trump.letter if deal.trump is not None else ""
            # Tricks are counted once play has begun, which is when trumps are fixed.
            tricks = deal.tricks_won if deal.trump is not None else None
            points = list(deal.score.points) if deal.score is not None else None
            outcomes = list(deal.score.outcomes) if deal.score is not None else None
        rows.append({
            "deal": deal_row,
            "replay": checked,
            "url": reverse("admin:games_match_deal", args=(match.pk, deal_row.sequence))
            if cards_visible(match, deal_row) else None,
            "dealer": _name(names, deal_row.dealer),
            "declarer": _name(names, declarer),
            "bid": bid,
            "trump": suit_face(trump),
            "to_act": _name(names, to_act),
            "seats": [
                {
                    "tricks": tricks[seat] if tricks else None,
                    "points": points[seat] if points else None,
                    "outcome": OUTCOME_LABELS.get(outcomes[seat], "") if outcomes else "",
                }
                for seat in range(4)
            ],
        })
    return rows


def _name(names: Sequence[str], seat: int | None) -> str:
    # A stored record that fails to replay may name any seat at all.
    if seat is not None and seat in range(4):
        return names[seat]
    return "" if seat is None else f"seat {seat}"


def total_problems(match: Match, rows: Sequence[dict[str, Any]]) -> list[str]:
    scored = [
        row["deal"].scores or [0, 0, 0, 0]
        for row in rows
        if row["deal"].status == DealStatus.FINISHED
    ]
    sums = [sum(scores[seat] for scores in scored) for seat in range(4)]
    if list(match.totals) != sums:
        return [f"stored totals {match.totals!r}, the deals' scores add up to {sums!r}"]
    return []


def match_page(match: Match) -> dict[str, Any]:
    """What the match page shows besides the match's own fields: rules, seats, the score sheet
    and every problem the replays found."""
    names = seat_names(match)
    deals = deal_rows(match, names)
    problems = [
        f"Deal {row['deal'].number} (shuffle {row['deal'].sequence}): {problem}"
        for row in deals
        for problem in (
            [f"the log does not replay — {row['replay'].problem}"]
            if row["replay"].deal is None else list(row["replay"].mismatches)
        )
    ]
    return {
        "rules_in_words": rules_in_words(selectors.table_rules(match)),
        "rules_json": json.dumps(match.rules, indent=2),
        "clock_in_words": clock_in_words(match),
        "visibility_in_words": visibility_in_words(match),
        "seats": seat_rows(match, names),
        "names": names,
        "deals": deals,
        "problems": problems + total_problems(match, deals),
        "export_url": reverse("admin:games_match_export", args=(match.pk,)),
    }
