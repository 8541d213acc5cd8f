"""Whether a stored match is what its own log says: every version once and in order, each deal
dealt from the deck its commitment fixed, a legal game the rules engine replays to the stored
contract and results, and the match's totals their sum. `manage.py check_matches` runs it over
a database (after a restore, say); a finding names the match and what differs."""

from __future__ import annotations

from collections.abc import Iterator

from games import engine, selectors
from games.engine.play import next_seat_table
from games.engine.shuffle import deck_commitment, hands_from_deck
from games.models import Action, Deal, DealStatus, Match


def match_problems(match: Match) -> list[str]:
    """What in ``match`` its log does not account for (none: it replays to the same state)."""
    versions = list(Action.objects.filter(match=match).order_by("version")
                    .values_list("version", flat=True))
    problems = []
    if versions != list(range(1, match.version + 1)):
        problems.append(f"versions {_span(versions)} are not 1..{match.version}")
    finished = []
    for deal in match.deals.order_by("sequence"):
        problems += [f"deal {deal.sequence}: {problem}" for problem in _deal_problems(match, deal)]
        if deal.status == DealStatus.FINISHED and deal.scores is not None:
            finished.append(deal.scores)
    totals = [sum(points) for points in zip(*finished, strict=True)] if finished else [0] * 4
    if finished and list(match.totals) != totals:
        problems.append(f"totals {match.totals} are not the deals' sum {totals}")
    return problems


def _deal_problems(match: Match, deal: Deal) -> Iterator[str]:
    deck_text = " ".join(deal.deck)
    if deck_commitment(deck_text, deal.salt) != deal.commitment:
        yield "the deck and salt do not give its commitment"
    start = selectors.deal_start(match, deal)
    assert start.deck is not None
    clockwise = start.rules.direction == "clockwise"
    if tuple(hands_from_deck(list(start.deck), deal.dealer, next_seat_table(clockwise))) != (
        start.hands
    ):
        yield "its hands are not the ones its deck deals"
    try:
        replayed = selectors.replay_deal(match, deal)
    except (engine.IllegalAction, ValueError) as refusal:
        yield f"its log does not replay: {refusal}"
        return
    ended = replayed.is_over
    if ended != (deal.status != DealStatus.IN_PROGRESS):
        yield f"it is {deal.status}, its log {'ends' if ended else 'goes on'}"
    if deal.status == DealStatus.FINISHED and (
        replayed.score is None
        or deal.scores != list(replayed.score.points)
        or deal.tricks != list(replayed.tricks_won)
    ):
        yield "its stored result is not the replay's"


def _span(versions: list[int]) -> str:
    return f"{versions[0]}..{versions[-1]} ({len(versions)})" if versions else "none"
