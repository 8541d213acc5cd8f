"""The compiled search of Hard and Expert: with no joint choice it is the per-world search
written plainly; more joint choices never promise more in the searched last tricks; with one
world there is nothing to choose jointly."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from bots import players
from bots.policy import play_out
from games.engine import Action, Deal, DealStart, Game, Observation, Phase, TableRules
from games.engine.play import PlayState


@pytest.fixture(autouse=True)
def few_worlds(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=10))


def positions(game: str, seed: int, deals: int = 2) -> list[Observation]:
    """Card-play decisions with a choice, from deals Medium plays out."""
    rng = random.Random(seed)
    found = []
    rules = TableRules.create(game, partnership_dummy=game == "partnership")
    for dealer in range(deals):
        deal = Deal(DealStart.shuffle(rules, dealer, rng=rng))
        while not deal.is_over:
            seat = deal.to_act
            observation = deal.observation(seat)
            if deal.phase == Phase.PLAY and len(observation.legal_actions) > 1:
                found.append(observation)
            deal.apply(seat, players.choose_action(observation, "medium", rng))
    return found


def joint(moves: int) -> players.SearchSettings:
    return dataclasses.replace(players.HARD, joint_moves=moves)


def per_world_means(observation: Observation, moves: list[Action],
                    worlds: list[tuple[list[int], float]]) -> dict[Action, float]:
    """The per-world search written plainly: each world played on greedily to the last tricks
    (`bots.policy.play_out`), then searched by `bots.solver`."""
    partnership = observation.rules.game == Game.PARTNERSHIP
    side, values = players.scoring_side(observation)
    controlled = players.controlled_seats(observation)
    solver = players.endgame_solver()
    totals = dict.fromkeys(moves, 0.0)
    for world, weight in worlds:
        start, _ = players.known_position(observation)
        for move in moves:
            state = PlayState.resume(
                world, start.trump, observation.rules, trick_leader=start.trick_leader,
                trick=start.trick, broken=start.broken, tricks_won=start.tricks_won)
            state.play(move.card.index)
            play_out(state, partnership, players.HARD.endgame_tricks)
            totals[move] += weight * solver.best_response(state, controlled, side, values,
                                                          partnership)
    total_weight = sum(weight for _, weight in worlds)
    return {move: total / total_weight for move, total in totals.items()}


@pytest.mark.parametrize("game", ["auction", "partnership", "spades"])
def test_with_no_joint_choice_it_is_hards_search(game) -> None:
    for observation in positions(game, 1)[::3]:
        moves = list(observation.legal_actions)
        worlds = players.plausible_worlds(observation, random.Random(2))
        joint = players.card_means(observation, moves, worlds)
        assert joint == pytest.approx(per_world_means(observation, moves, worlds), abs=1e-9)


@pytest.mark.parametrize("game", ["auction", "partnership", "spades"])
def test_joint_choices_never_promise_more_in_the_endgame(game) -> None:
    """Within the exactly searched last tricks, every joint choice is a constraint on the
    per-world best responses: a card's score can only fall as more choices are joint."""
    checked = 0
    for observation in positions(game, 2):
        if len(observation.hand) > players.HARD.endgame_tricks:
            continue
        moves = list(observation.legal_actions)
        worlds = players.plausible_worlds(observation, random.Random(3))
        scores = [players.card_means(observation, moves, worlds, joint(j))
                  for j in range(4)]
        for looser, stricter in itertools.pairwise(scores):
            for move in moves:
                assert stricter[move] <= looser[move] + 1e-9
        checked += 1
    assert checked


def test_one_world_leaves_nothing_to_choose_jointly() -> None:
    """Where every world is the same, nothing is hidden: in the searched last tricks any number
    of joint choices scores as the search of that world."""
    endgame = [observation for observation in positions("spades", 3)
               if len(observation.hand) <= players.HARD.endgame_tricks]
    assert endgame
    for observation in endgame[::3]:
        moves = list(observation.legal_actions)
        world = players.plausible_worlds(observation, random.Random(4))[0]
        same = [world] * 5
        expected = players.card_means(observation, moves, same)
        for joint_moves in (1, 3):
            assert players.card_means(observation, moves, same,
                                      joint(joint_moves)) == pytest.approx(expected)


@pytest.mark.parametrize("game", ["auction", "spades"])
def test_a_world_alone_is_judged_as_in_a_group(game) -> None:
    """Splitting the worlds never changes how one is judged: a world scored on its own scores
    as two copies of it do, at any point of the deal (early ones included, where the player's
    own next cards are searched rather than played greedily)."""
    for observation in positions(game, 5, deals=1)[::2]:
        moves = list(observation.legal_actions)
        world = players.plausible_worlds(observation, random.Random(6))[0]
        for joint_moves in (1, 2):
            alone = players.card_means(observation, moves, [world], joint(joint_moves))
            twice = players.card_means(observation, moves, [world, world], joint(joint_moves))
            assert alone == pytest.approx(twice)
