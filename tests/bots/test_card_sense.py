"""Card sense: hand-built positions with one right card, in every game, and the invariants of
dominated cards over random play."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import card_sense, players
from games.engine import Bid, Card, Deal, DealStart, Pass, Phase, Play, TableRules
from tests.engine.helpers import make_deal, play, to_play

GAMES = ["auction", "partnership", "spades"]
# Dealer 0 and declarer 1 in every game: seat 1 leads the first trick, then 2, 3 and 0.
ORDER = (1, 2, 3, 0)


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=12))


def first_trick(game: str, trick: list[str], mine: str, voids: dict[int, str] | None = None,
                **rules: object) -> Deal:
    """The first trick of a deal with spades trumps: ``trick`` played by the first seats in
    order (each entry's first card; the others go to the same hand), the next seat to play
    holding ``mine``."""
    hands = {ORDER[position]: cards for position, cards in enumerate(trick)}
    me = ORDER[len(trick)]
    deal = make_deal({**hands, me: mine}, voids=voids, dealer=0, game=game, **rules)
    if deal.phase != Phase.PLAY:
        to_play(deal, declarer=1, trump="S")
    return play(deal, *(cards.split()[0] for cards in trick))


def decide(deal: Deal, level: str) -> str:
    action = players.choose_action(deal.observation(deal.to_act), level, random.Random(4))
    assert isinstance(action, Play)
    return str(action.card)


POSITIONS = [
    # The trick is lost: the lowest heart, not one of the honours the hand keeps.
    pytest.param(["3H", "AH", "2H"], "KH QH JH 8H 5C 6C 7D 8D 9D TD 4S 5S 6S", None, "8H",
                 id="lost-trick"),
    # Trumped already: the diamond given up is the two, not the queen.
    pytest.param(["AD", "5S"], "QD 2D 7H 8H 9H TH 3C 4C 5C 6C 7C 8C 9C", {2: "D"}, "2D",
                 id="trumped-trick"),
    # Last to play with the king still out: the queen wins as surely as the ace.
    pytest.param(["7C KC 9C TC JC", "8C", "5C"], "AC QC 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D 8D",
                 None, "QC", id="cheapest-winner"),
]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("level", ["medium", "hard", "expert"])
@pytest.mark.parametrize(("trick", "mine", "voids", "right"), POSITIONS)
def test_one_right_card(game, level, trick, mine, voids, right) -> None:
    deal = first_trick(game, trick, mine, voids)
    assert decide(deal, level) == right
    observation = deal.observation(deal.to_act)
    state, knowledge = players.known_position(observation)
    partnership = game == "partnership"
    assert card_sense.waste(state, knowledge, partnership, Card.parse(right).index) is None


@pytest.mark.parametrize("game", GAMES)
def test_the_waste_the_arena_counts(game) -> None:
    """The cards the issue's examples played are counted, each as its kind."""
    partnership = game == "partnership"
    for (trick, mine, voids, _), wasted, kind in [
        (POSITIONS[0].values[:4], "JH", card_sense.HIGHER_INTO_LOST_TRICK),
        (POSITIONS[1].values[:4], "QD", card_sense.HIGHER_INTO_LOST_TRICK),
        (POSITIONS[2].values[:4], "AC", card_sense.OVERPAID_WINNER),
    ]:
        deal = first_trick(game, trick, mine, voids)
        state, knowledge = players.known_position(deal.observation(deal.to_act))
        assert card_sense.waste(state, knowledge, partnership, Card.parse(wasted).index) == kind


def _groups(deal: Deal) -> set[frozenset[str]]:
    state, knowledge = players.known_position(deal.observation(deal.to_act))
    return {frozenset(str(Card(i)) for i in range(52) if group >> i & 1)
            for group in card_sense.equivalent_groups(state, knowledge)}


def test_equivalent_cards_are_one_choice() -> None:
    """Ranks made adjacent by the cards played are one group; a card still in play between
    two, the current trick's included, splits them."""
    # The queen lies in the current trick: the king beats it and the jack does not.
    deal = first_trick("auction", ["5H", "QH", "3H"], "KH JH 9H 2H 3C 4C 5C 6C 7C 8C 3D 4D 5D",
                       None, must_beat_in_suit=False)
    assert {frozenset({"KH"}), frozenset({"JH"})} <= _groups(deal)
    # Once the queen's trick is over, king and jack touch; the ten (still out) keeps the nine
    # apart. Seat 2, void in clubs and spades, throws the queen on the first trick.
    deal = first_trick("auction", ["4C", "QH", "5C"], "6C KH JH 9H 2H 7C 8C 9C 3S 4S 5S 6S 7S",
                       {2: "CS"})
    play(deal, "6C")
    assert deal.to_act == 0
    groups = _groups(deal)
    assert frozenset({"KH", "JH"}) in groups and frozenset({"9H"}) in groups


def _sure(deal: Deal, partnership: bool = False) -> set[str]:
    state, knowledge = players.known_position(deal.observation(deal.to_act))
    sure = card_sense.sure_winners(state, knowledge, partnership)
    return {str(Card(i)) for i in range(52) if sure >> i & 1}


def test_a_sure_winner_is_sure_against_every_hand_still_to_play() -> None:
    """Second to play, with the king out: a later seat may hold it, and, for all this seat
    knows, be void and ruff: neither the queen nor the ace is sure. Last to play, both are."""
    hand = "AC QC 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D 8D"
    second = first_trick("auction", ["7C"], hand, None, must_beat_in_suit=False)
    assert _sure(second) == set()
    trick, _, voids, _ = POSITIONS[2].values
    assert _sure(first_trick("auction", trick, hand, voids)) == {"AC", "QC"}


def test_never_overtakes_a_partners_sure_winner() -> None:
    """Partnership game, a table that does not force beating in suit: the partner's king wins
    the trick and no opponent is left to play, so the ace would only waste a trick."""
    deal = first_trick("partnership", ["5C", "KC", "2C"], "AC 3C 4H 5H 6H", None,
                       must_beat_in_suit=False)
    assert decide(deal, "hard") == "3C"
    assert decide(deal, "medium") == "3C"
    state, knowledge = players.known_position(deal.observation(deal.to_act))
    assert card_sense.partner_sure_winner(state, knowledge, True)
    ace = Card.parse("AC").index
    assert card_sense.waste(state, knowledge, True, ace) == card_sense.OVERTOOK_PARTNER
    assert card_sense.candidates(state, knowledge, True, ace) == [Card.parse("3C").index]


def test_a_sure_trick_is_not_given_up_for_nothing() -> None:
    """Cards the search scores alike go to the cheapest sure winner; a card the search prefers
    by less than the margin does not take the trick's place, one it prefers by more does."""
    trick, mine, voids, _ = POSITIONS[2].values
    deal = first_trick("auction", trick, mine, voids, must_beat_in_suit=False)
    observation = deal.observation(deal.to_act)
    queen, ace = Play(Card.parse("QC")), Play(Card.parse("AC"))
    low_heart = Play(Card.parse("4H"))  # legal: this table does not force beating
    assert players.preferred_card(observation, {queen: 5.0, ace: 5.0}) == queen
    margin = players.SURE_TRICK_MARGIN
    close = {queen: 5.0, low_heart: 5.0 + margin / 2}
    assert players.preferred_card(observation, close) == queen
    clear = {queen: 5.0, low_heart: 5.0 + margin * 2}
    assert players.preferred_card(observation, clear) == low_heart


def test_bidding_counts_on_a_partner_who_bid() -> None:
    """Partnership game: Hard judges a bid by its team's tricks in layouts weighted by the calls
    so far, so a partner's bid raises what declaring is worth to the same hand; and Hard never
    outbids its partner."""
    hand = "AS KS QS 5S 3S AH 7H 4H KD 8D 3D 9C 6C"
    values = {}
    for partner_call in (Bid(7), Pass()):
        deal = make_deal({3: hand}, dealer=0, game="partnership")
        deal.apply(1, partner_call)  # seat 1 is seat 3's partner
        deal.apply(2, Bid(8))
        values[partner_call.kind] = players.call_values(deal.observation(3),
                                                        random.Random(3), 9)
    assert values["bid"][0] > values["pass"][0] + 10
    deal = make_deal({3: hand}, dealer=0, game="partnership")
    deal.apply(1, Bid(7))
    deal.apply(2, Pass())
    deal.apply(3, Bid(8))
    deal.apply(0, Pass())
    deal.apply(1, Bid(9))
    assert players.choose_action(deal.observation(3), "hard", random.Random(1)) == Pass()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(GAMES),
       relaxed=st.booleans())
def test_no_level_with_card_sense_wastes_a_card(seed, game, relaxed) -> None:
    """Over random positions of every game (and of tables that do not force beating or
    trumping), Medium's and Hard's cards are never dominated, every dominated card's dominator
    is a legal card, and card sense leaves at least one candidate."""
    rng = random.Random(seed)
    loose = {"must_beat_in_suit": False, "must_trump": False} if relaxed else {}
    rules = TableRules.create(game, **loose)
    deal = Deal(DealStart.shuffle(rules, seed % 4, rng=rng))
    partnership = game == "partnership"
    while not deal.is_over and not (deal.phase == Phase.PLAY and rng.random() < 0.12):
        seat = deal.to_act
        deal.apply(seat, players.choose_action(deal.observation(seat), "medium", rng))
    if deal.is_over:
        return
    observation = deal.observation(deal.to_act)
    state, knowledge = players.known_position(observation)
    legal = state.legal_mask()
    for card, dominator in card_sense.dominators(state, knowledge, partnership).items():
        assert legal >> card & 1 and legal >> dominator & 1 and card != dominator
    lowest = (legal & -legal).bit_length() - 1
    assert card_sense.candidates(state, knowledge, partnership, lowest)
    dominated = card_sense.dominators(state, knowledge, partnership)
    for level in ("medium", "hard", "expert"):
        action = players.choose_action(observation, level, random.Random(seed))
        assert action.card.index not in dominated
        assert card_sense.waste(state, knowledge, partnership, action.card.index) is None
