"""Computer players: legal moves in every game, fairness, and the samplers they rely on."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import card_reading, players
from bots.beliefs import auction_weight, played_by_seat
from bots.knowledge import infer, mask
from bots.policy import keep_value
from bots.sampling import WorldSampler
from games.engine import Bid, Deal, DealStart, Game, Phase, Suit, TableRules
from games.engine.cards import ALL_CARDS
from tests.engine.helpers import make_deal

LEVELS = ["random", "easy", "medium", "hard", "expert"]


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    """Hard with few worlds: these tests check behaviour, not strength."""
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6))


def advance(deal: Deal, rng: random.Random, steps: int) -> Deal:
    for _ in range(steps):
        if deal.is_over:
            break
        deal.apply(deal.to_act, rng.choice([a for a in deal.legal_actions(deal.to_act)
                                             if a.kind != "redeal"]))
    return deal


def played_cards(deal: Deal) -> list[int]:
    """Per seat, the cards it has played so far in ``deal``."""
    played = [0, 0, 0, 0]
    for trick in [*deal.completed_tricks(), deal.current_trick()]:
        for who, card in trick.plays:
            played[who] |= 1 << card.index
    return played


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "rules",
    [
        TableRules.create("auction"),
        TableRules.create("partnership", partnership_dummy=True),
        TableRules.create("spades", spades_announcements=True),
        TableRules.create("auction", must_trump=False, trump_lead="anytime", min_bid=5),
    ],
    ids=["auction", "partnership-dummy", "spades-announcements", "loose-auction"],
)
def test_every_level_finishes_deals_with_legal_moves(level, rules) -> None:
    rng = random.Random(3)
    for dealer in range(2):
        deal = Deal(DealStart.shuffle(rules, dealer, rng=rng))
        while not deal.is_over:
            seat = deal.to_act
            action = players.choose_action(deal.observation(seat), level, rng)
            assert action in deal.legal_actions(seat)
            deal.apply(seat, action)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(5, 50),
       game=st.sampled_from(list(Game)))
def test_sampled_worlds_respect_everything_public(seed, steps, game) -> None:
    """Every sampled layout, and every one read toward the plays (`bots.card_reading`), could
    really have produced the public history: the deal replays legally from it, and every
    hidden seat gets exactly its number of cards."""
    rng = random.Random(seed)
    rules = TableRules.create(game)
    deal = advance(Deal(DealStart.shuffle(rules, seed % 4, rng=rng)), rng, steps)
    if deal.phase != Phase.PLAY:
        return
    seat = deal.to_act
    observation = deal.observation(seat)
    knowledge = infer(observation)
    real_hidden = [deal.hand_mask(s) for s in knowledge.hidden]
    for position, cards in enumerate(real_hidden):
        assert not cards & knowledge.forbidden[position], "an inference was wrong"
    sampler = WorldSampler(knowledge)
    assert sampler.consistent
    sampled = [sampler.sample(rng) for _ in range(5)]
    read = [list(world) for world in sampled]
    card_reading.refine(observation, knowledge, read, 0.2, 100, rng)
    for world in sampled + read:
        assert world[seat] == deal.hand_mask(seat)
        for position, other in enumerate(knowledge.hidden):
            assert world[other].bit_count() == knowledge.sizes[position]
            assert not world[other] & knowledge.forbidden[position]
        # Rebuild the deal from the sampled world plus the cards already played, and replay.
        played = played_cards(deal)
        start = DealStart(rules, deal.dealer, tuple(world[s] | played[s] for s in range(4)),
                          deal.number)
        Deal.replay(start, deal.log)


def test_sampler_is_uniform_over_consistent_layouts() -> None:
    """With three unseen cards, one seat void in spades: the 3 legal layouts are equally
    likely (a greedy placement would favour some)."""
    from bots.knowledge import Knowledge

    cards = [ALL_CARDS[i] for i in (0, 1, 13)]  # 2S, 3S, 2H
    spades = (1 << 0) | (1 << 1)
    knowledge = Knowledge(seat=0, known={0: 0}, hidden=(1, 2, 3), sizes=(1, 1, 1),
                          unseen=sum(1 << c.index for c in cards),
                          forbidden=(spades, 0, 0))
    sampler = WorldSampler(knowledge)
    rng = random.Random(1)
    counts = Counter(tuple(sampler.sample(rng)[1:]) for _ in range(6000))
    assert len(counts) == 2 * 1  # seat 1 must take 2H; the spades split two ways
    assert all(1800 <= n <= 4200 for n in counts.values())


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_decisions_do_not_depend_on_hidden_cards(level) -> None:
    """Fair by construction: swap the hidden cards for any other layout consistent with the
    public play, and the decision is the same."""
    rng = random.Random(5)
    rules = TableRules.create("auction")
    checked = 0
    for dealer in range(4):
        deal = advance(Deal(DealStart.shuffle(rules, dealer, rng=rng)), rng, 14 + dealer * 5)
        if deal.phase != Phase.PLAY:
            continue
        seat = deal.to_act
        knowledge = infer(deal.observation(seat))
        world = WorldSampler(knowledge).sample(rng)
        played = played_cards(deal)
        other = Deal.replay(
            DealStart(rules, deal.dealer, tuple(world[s] | played[s] for s in range(4)),
                      deal.number),
            deal.log,
        )
        assert other.observation(seat) == deal.observation(seat)
        first = players.choose_action(deal.observation(seat), level, random.Random(9))
        second = players.choose_action(other.observation(seat), level, random.Random(9))
        assert first == second
        checked += 1
    assert checked


def test_observation_type_holds_no_other_hand() -> None:
    """The only input a player gets exposes no field with another seat's cards."""
    deal = Deal(DealStart.shuffle(TableRules.create(), 0, rng=random.Random(1)))
    view = deal.observation(1)
    shown = set(view.hand)
    for other in (0, 2, 3):
        assert not shown & set(deal.hand(other))
    assert not hasattr(view, "deal") and not hasattr(view, "start")


def test_styles_change_bidding() -> None:
    """A bold player bids on hands a timid one passes."""
    rng = random.Random(2)
    rules = TableRules.create("auction")
    bold, timid = players.Style(boldness=1.5), players.Style(boldness=-1.5)
    bold_bids = timid_bids = 0
    for _ in range(200):
        deal = Deal(DealStart.shuffle(rules, 0, rng=rng))
        view = deal.observation(deal.to_act)
        bold_bids += players.choose_action(view, "medium", rng, bold).kind == "bid"
        timid_bids += players.choose_action(view, "medium", rng, timid).kind == "bid"
    assert bold_bids > timid_bids * 2


def test_auction_makes_strong_bidders_plausible() -> None:
    """A world giving a seat that bid 8 a strong hand weighs more than one giving it rubbish."""
    strong = "AS KS QS JS TS 9S AH KH AD KD AC KC QC"
    weak = "2S 3S 4S 5H 6H 7H 2D 3D 4D 5D 2C 3C 4C"
    deal = make_deal({1: strong, 2: weak}, dealer=0)
    deal.apply(1, Bid(8))
    view = deal.observation(0)
    hidden = infer(view).hidden
    played = played_by_seat(view)
    real = [deal.hand_mask(s) for s in range(4)]
    swapped = list(real)
    swapped[1], swapped[2] = real[2], real[1]
    assert mask(view.hand) == real[0]
    assert auction_weight(view, real, hidden, played) > 10 * auction_weight(
        view, swapped, hidden, played
    )


def test_hard_breaks_ties_with_the_obvious_card() -> None:
    """Cards Hard's search scores alike go to Medium's choice, else to the least useful card
    (never simply the first legal card, which is the highest)."""
    rng = random.Random(2)
    rules = TableRules.create("spades")
    deal = Deal(DealStart.shuffle(rules, 0, rng=rng))
    while len(deal.legal_actions(deal.to_act)) < 3:
        deal = advance(deal, rng, 1)
    observation = deal.observation(deal.to_act)
    moves = list(observation.legal_actions)
    obvious = players.choose_action(observation, "medium", rng)
    assert players.preferred_card(observation, dict.fromkeys(moves, 0.0)) == obvious
    totals = dict.fromkeys(moves, 0.0)
    totals[obvious] = -10.0
    rest = [move for move in moves if move != obvious]
    least_useful = min(rest, key=lambda move: keep_value(move.card.index, int(Suit.SPADES)))
    assert players.preferred_card(observation, totals) == least_useful
