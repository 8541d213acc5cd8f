"""Card reading: the compiled replay agrees with the greedy player, and reading moves sampled
layouts toward the real cards (that they stay consistent is checked with the sampler's
layouts in `test_players`)."""

import random

import pytest

from bots import players
from bots.card_reading import refine
from bots.knowledge import infer
from bots.sampling import WorldSampler
from games.engine import Deal, DealStart, Phase, TableRules

GAMES = [
    TableRules.create("auction"),
    TableRules.create("partnership"),
    TableRules.create("spades"),
    TableRules.create("auction", must_beat_in_suit=False, must_overtrump=False,
                      trump_lead="anytime"),
]


def medium_positions(rules: TableRules, seed: int):
    """Every play position of a deal between four Medium players, with the deal itself."""
    rng = random.Random(seed)
    deal = Deal(DealStart.shuffle(rules, seed % 4, rng=rng))
    while not deal.is_over:
        seat = deal.to_act
        observation = deal.observation(seat)
        if deal.phase == Phase.PLAY:
            yield deal, observation
        deal.apply(seat, players.choose_action(observation, "medium", rng))


@pytest.mark.parametrize("rules", GAMES, ids=["auction", "partnership", "spades", "loose"])
def test_greedy_players_real_layout_explains_every_play(rules) -> None:
    """Medium plays the greedy card, so in the real layout no play surprises: the compiled
    replay follows `bots.policy.greedy_card` and the table rules exactly."""
    for seed in range(6):
        for deal, observation in medium_positions(rules, seed):
            real = [deal.hand_mask(seat) for seat in range(4)]
            assert refine(observation, infer(observation), [real], 0.5, 0,
                          random.Random(1)) == [0]


def test_reading_finds_where_the_cards_are() -> None:
    """Against greedy players, refined layouts put more of the unseen cards with the seat that
    really holds them than the exact sampler alone does (one in three by chance)."""
    rules = TableRules.create("spades")
    rng = random.Random(4)

    def share_right(worlds: list[list[int]], deal: Deal, unseen: int) -> float:
        right = sum((world[s] & deal.hand_mask(s)).bit_count()
                    for world in worlds for s in range(4))
        own = sum(deal.hand_mask(s).bit_count() for s in range(4)) - unseen.bit_count()
        return (right - own * len(worlds)) / (unseen.bit_count() * len(worlds))

    sampled, read = [], []
    for seed in range(4):
        for deal, observation in medium_positions(rules, seed):
            if observation.seat != 0 or not 3 <= len(observation.tricks) <= 8:
                continue
            knowledge = infer(observation)
            sampler = WorldSampler(knowledge)
            worlds = [sampler.sample(rng) for _ in range(20)]
            sampled.append(share_right(worlds, deal, knowledge.unseen))
            refine(observation, knowledge, worlds, 0.2, 200, rng)
            read.append(share_right(worlds, deal, knowledge.unseen))
    assert sum(read) / len(read) > sum(sampled) / len(sampled) + 0.05
