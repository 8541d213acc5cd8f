"""Property tests: thousands of random legal deals under random table rules, each step checked
against the independent oracle in `reference.py` and the invariants of a deal."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Deal, Game, Match, Phase, TableRules
from games.engine.cards import ALL_CARDS

from . import reference


@st.composite
def table_rules(draw: st.DrawFn) -> TableRules:
    game = draw(st.sampled_from(list(Game)))
    flag = st.booleans()
    overrides = {
        "direction": draw(st.sampled_from(["anticlockwise", "clockwise"])),
        "trump_lead": draw(st.sampled_from(["after_broken", "anytime"])),
        "akq_trump_lead": draw(flag),
        "must_beat_in_suit": draw(flag),
        "must_beat_after_trumped": draw(flag),
        "must_trump": draw(flag),
        "must_overtrump": draw(flag),
        "must_trump_when_cannot_overtrump": draw(flag),
        "scoring": draw(st.sampled_from(["standard", "bonus", "simple", "contract"])),
        "weak_hand_redeal": draw(flag),
    }
    if game == Game.SPADES:
        overrides["min_bid"] = draw(st.sampled_from([4, 5]))
        if draw(flag):
            overrides["spades_announcements"] = True
            overrides["spades_overtrick_limit"] = draw(st.sampled_from([None, 1, 2, 3, 4]))
    else:
        low = 4 if game == Game.AUCTION else 7
        overrides["min_bid"] = draw(st.sampled_from([low, low + 1]))
        overrides["all_pass"] = draw(st.sampled_from(["dealer_takes", "redeal"]))
        overrides["all_pass_bid"] = draw(st.integers(low, low + 2))
        if game == Game.PARTNERSHIP:
            overrides["partnership_dummy"] = draw(flag)
    return TableRules.create(game, **overrides)


def check_observations(deal: Deal, played: set[int]) -> None:
    """No view shows a card of another seat's hand, except a face-up dummy."""
    for seat in range(4):
        view = deal.observation(seat)
        assert {c.index for c in view.hand} == set(_indices(deal.hand_mask(seat)))
        for other in range(4):
            if other in (seat, deal.dummy):
                continue
            hidden = set(_indices(deal.hand_mask(other))) - played
            assert not hidden & {c.index for c in view.visible_cards}
            assert not hidden & {c.index for t in view.tricks for _, c in t.plays}


def _indices(mask: int) -> list[int]:
    return [i for i in range(52) if mask >> i & 1]


def check_play_step(deal: Deal, chosen_card: str) -> None:
    play = deal.play
    assert play is not None
    hand = [str(ALL_CARDS[i]) for i in _indices(play.hands[play.turn])]
    trick = [str(ALL_CARDS[i]) for i in play.trick]
    trump = "SHDC"[play.trump]
    expected = reference.legal_cards(hand, trick, trump, deal.rules.to_dict(), play.broken)
    assert {str(c) for c in deal.legal_cards()} == expected
    assert chosen_card in expected
    assert {str(c) for c in deal.refusals()} == set(hand) - expected


def play_random_deal(deal: Deal, rng: random.Random, check: bool = True) -> None:
    played: set[int] = set()
    steps = 0
    while not deal.is_over:
        seat = deal.to_act
        legal = deal.legal_actions(seat)
        assert legal, "the seat to act always has a legal action"
        action = rng.choice(legal)
        if action.kind == "play":
            if check:
                check_play_step(deal, str(action.card))
            played.add(action.card.index)
            before = len(deal.completed_tricks())
            trick = [str(ALL_CARDS[i]) for i in deal.play.trick] + [str(action.card)]
        deal.apply(seat, action)
        if action.kind == "play" and len(trick) == 4:
            assert len(deal.completed_tricks()) == before + 1
            last = deal.completed_tricks()[-1]
            winner_index = reference.trick_winner(trick, deal.trump.letter)
            assert last.plays[winner_index][0] == last.winner
        if check:
            check_observations(deal, played)
        steps += 1
        assert steps < 200


def check_finished(deal: Deal) -> None:
    if deal.phase == Phase.REDEALT:
        assert deal.score is None
        return
    tricks = deal.completed_tricks()
    assert len(tricks) == 13 and sum(deal.tricks_won) == 13
    cards = [card.index for trick in tricks for _, card in trick.plays]
    assert sorted(cards) == list(range(52))
    assert all(deal.hand_mask(seat) == 0 for seat in range(4))
    expected = reference.deal_scores(
        deal.rules.to_dict(),
        deal.tricks_won,
        deal.declarer,
        deal.bid,
        list(deal.announcements) if deal.rules.spades_announcements else None,
    )
    assert list(deal.score.points) == expected


@settings(max_examples=1500)
@given(rules=table_rules(), seed=st.integers(0, 2**32), dealer=st.integers(0, 3))
def test_random_deals_follow_the_rules(rules: TableRules, seed: int, dealer: int) -> None:
    rng = random.Random(seed)
    deal = Deal.new(rules, dealer, rng=rng)
    hands = deal.start.hands
    assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 52) - 1
    assert all(hand.bit_count() == 13 for hand in hands)
    play_random_deal(deal, rng)
    check_finished(deal)
    again = Deal.replay(deal.start, deal.log)
    assert [again.observation(s) for s in range(4)] == [deal.observation(s) for s in range(4)]


@settings(max_examples=150)
@given(rules=table_rules(), seed=st.integers(0, 2**32), deals=st.integers(1, 6))
def test_random_matches_total_and_rank(rules: TableRules, seed: int, deals: int) -> None:
    rng = random.Random(seed)
    match = Match(rules, deals, rng=rng)
    while not match.is_over:
        seat = match.current.to_act
        match.apply(seat, rng.choice(match.current.legal_actions(seat)))
    finished = match.finished_deals
    assert len(finished) == deals
    for deal in finished:
        check_finished(deal)
    totals = [sum(deal.score.points[seat] for deal in finished) for seat in range(4)]
    assert match.totals == totals
    last = finished[-1].tricks_won
    if rules.is_partnership:
        teams = reference.ranking([totals[0], totals[1], -10**9, -10**9],
                                  [last[0] + last[2], last[1] + last[3], 0, 0])
        assert list(match.ranking()) == [teams[0], teams[1], teams[0], teams[1]]
    else:
        assert list(match.ranking()) == reference.ranking(totals, last)


@settings(max_examples=200)
@given(rules=table_rules(), seed=st.integers(0, 2**32), split=st.integers(0, 60))
def test_a_copy_looks_ahead_without_moving_the_deal(rules: TableRules, seed: int,
                                                     split: int) -> None:
    """A copy taken mid-deal plays on alone: the original is exactly as it was, and the copy
    ends where a replay of its log ends."""
    rng = random.Random(seed)
    deal = Deal.new(rules, seed % 4, rng=rng)
    while not deal.is_over and len(deal.log) < split:
        seat = deal.to_act
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    before = [deal.observation(seat) for seat in range(4)]
    ahead = deal.copy()
    play_random_deal(ahead, rng, check=False)
    assert [deal.observation(seat) for seat in range(4)] == before
    assert [Deal.replay(deal.start, deal.log).observation(seat) for seat in range(4)] == before
    again = Deal.replay(ahead.start, ahead.log)
    assert [again.observation(seat) for seat in range(4)] == [
        ahead.observation(seat) for seat in range(4)]
