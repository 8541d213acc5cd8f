"""What each choice is worth from a seat's own view (`bots.advice`): every legal choice valued
in every phase, the best first, and nothing but the seat's view counts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import advice, players
from games.engine import (
    Action,
    ActionKind,
    Deal,
    DealStart,
    IllegalAction,
    Observation,
    Phase,
    TableRules,
)

QUICK = players.SearchSettings(worlds=6)


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6, bidding_layouts=8))


def _advance(deal: Deal, rng: random.Random, until: Phase, steps: int) -> Deal:
    """Random legal moves (no redeal) until ``until``, then ``steps`` more within it."""
    while deal.phase != until:
        _random_move(deal, rng)
    for _ in range(steps):
        _random_move(deal, rng)
    assert deal.phase == until
    return deal


def _random_move(deal: Deal, rng: random.Random) -> tuple[int, Action]:
    seat = deal.to_act
    assert seat is not None, deal.phase
    action = rng.choice([a for a in deal.legal_actions(seat) if a.kind != ActionKind.REDEAL])
    deal.apply(seat, action)
    return seat, action


@pytest.mark.parametrize(("game", "rules", "phase", "steps"), [
    ("auction", {}, Phase.AUCTION, 1),
    ("auction", {}, Phase.TRUMP, 0),
    ("partnership", {}, Phase.PLAY, 6),
    ("spades", {"spades_announcements": True}, Phase.ANNOUNCEMENTS, 1),
    ("spades", {}, Phase.PLAY, 3),
])
def test_every_legal_choice_is_valued_best_first(game: str, rules: dict, phase: Phase,
                                                 steps: int) -> None:
    rng = random.Random(7)
    deal = _advance(Deal.new(TableRules.create(game, **rules), 0, rng=rng), rng, phase, steps)
    observation = deal.observation(deal.to_act)
    values = advice.choice_values(observation, settings=QUICK)
    legal = [a for a in observation.legal_actions if a.kind != ActionKind.REDEAL]
    assert sorted(map(str, (value.action for value in values))) == sorted(map(str, legal))
    points = [value.points for value in values]
    assert points == sorted(points, reverse=True)
    assert all((value.tricks is None) == (phase == Phase.PLAY) for value in values)


def test_not_the_seats_turn_is_no_choice() -> None:
    deal = Deal.new(TableRules.create("auction"), 0, rng=random.Random(1))
    waiting = next(seat for seat in range(4) if seat != deal.to_act)
    assert advice.choice_values(deal.observation(waiting)) == []


def indistinguishable_views(seed: int, game: str, tricks_in: int
                            ) -> tuple[Observation, Observation] | None:
    """The view of the seat to act after random play through the calls and ``tricks_in``
    tricks, and its view of a twin layout: unplayed cards swapped between two hands the seat
    cannot see (where the play so far stays legal). None when the seat could tell the two
    layouts apart (a past play made illegal, a dummy's hand)."""
    rng = random.Random(seed)
    rules = TableRules.create(game)
    deal = Deal.new(rules, rng.randrange(4), rng=rng)
    log: list[tuple[int, Action]] = []
    for _ in range(200):  # through the calls and ``tricks_in`` tricks
        if deal.phase == Phase.PLAY and len(deal.completed_tricks()) >= tricks_in:
            break
        log.append(_random_move(deal, rng))
    seat = deal.to_act
    assert seat is not None
    others = [s for s in range(4) if s not in (seat, deal.dummy)]
    first, second = rng.sample(others, 2)
    # The unplayed cards of two hidden hands, swapped one for one (sizes stay as they are).
    played = {card.index for trick in deal.completed_tricks() for _, card in trick.plays}
    current = deal.current_trick()
    played |= {card.index for _, card in (current.plays if current else ())}
    start = deal.start
    hands = list(start.hands)
    keep = [[i for i in range(52) if hands[s] >> i & 1 and i not in played]
            for s in (first, second)]
    count = min(len(keep[0]), len(keep[1]), rng.randint(1, 3))
    for a, b in zip(rng.sample(keep[0], count), rng.sample(keep[1], count), strict=True):
        hands[first] ^= (1 << a) | (1 << b)
        hands[second] ^= (1 << a) | (1 << b)
    twin = Deal(DealStart(rules, start.dealer, tuple(hands), start.number))  # type: ignore[arg-type]
    try:
        for logged_seat, action in log:
            twin.apply(logged_seat, action)
    except IllegalAction:
        return None  # the swap made a past play illegal: the seat could tell these apart
    view, twin_view = deal.observation(seat), twin.observation(seat)
    if view != twin_view:
        return None  # what the seat saw differs (e.g. a dummy's hand)
    return view, twin_view


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["auction", "partnership", "spades"]),
       tricks_in=st.integers(0, 8))
def test_layouts_the_seat_cannot_tell_apart_get_the_same_values(seed: int, game: str,
                                                               tricks_in: int) -> None:
    """Unplayed cards swapped between two hands the seat cannot see: its view, and so its
    values, stay as they were."""
    views = indistinguishable_views(seed, game, tricks_in)
    if views is None:
        return
    view, twin_view = views
    assert advice.choice_values(view, settings=QUICK) == advice.choice_values(twin_view,
                                                                              settings=QUICK)
