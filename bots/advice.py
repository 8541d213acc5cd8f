"""What each choice a seat has now is worth, judged from what that seat knows.

The expected score of every legal call, trump, announcement and card, as Hard judges its own
(`bots.players`): calls, trumps and announcements from greedy play-outs of random layouts
weighted by the auction, cards from the search over the layouts the seat finds plausible (fewer
of them than Hard plays with, and a shorter exact endgame: `SEEN`). A
hint shows these to a learner; the post-deal analysis compares the choice made with the best of
them, so that a choice that was right on what the player could know is not called a mistake.

Everything is computed from the seat's `Observation`, with a random generator seeded by it
(`seeded_rng`): two layouts the seat cannot tell apart get the same values.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random

from games.engine import Action, ActionKind, Announce, Bid, ChooseTrump, Observation, Pass, Phase

from .players import (
    SearchSettings,
    announcement_values,
    auction_layouts,
    card_means,
    plausible_worlds,
    trump_values,
)


@dataclasses.dataclass(frozen=True, slots=True)
class ChoiceValue:
    """One legal choice and what the seat expects from it: ``points`` its score for the deal
    (its team's, in the partnership game), ``tricks`` its tricks where the choice is judged by
    them (calls, trumps, announcements; None for a card)."""

    action: Action
    points: float
    tricks: float | None = None


def seeded_rng(observation: Observation, seed: str = "") -> random.Random:
    """A generator seeded by everything the seat sees (and ``seed``), and nothing else."""
    view = json.dumps(observation.to_dict(), sort_keys=True, default=str)
    return random.Random(hashlib.sha256(f"{seed}:{view}".encode()).digest())


# A seat's view is judged (for a hint, and for the post-deal analysis's marks) by Hard's search
# over fewer layouts than Hard plays with, searched exactly over the last 7 tricks rather than 9:
# with Hard's own settings a card of a deal with a dummy took up to seconds (10.9 s seen), all
# of it holding the serving process's interpreter lock for a hint; with these, at most 0.15 s.
SEEN = SearchSettings(worlds=24, endgame_tricks=7)


def choice_values(observation: Observation, rng: random.Random | None = None,
                  settings: SearchSettings = SEEN) -> list[ChoiceValue]:
    """Every legal choice of the seat to act (a redeal request aside: it is no move of the
    deal), best first; ties keep the legal order. Empty when it is not the seat's turn."""
    rng = rng or seeded_rng(observation)
    moves = [a for a in observation.legal_actions if a.kind != ActionKind.REDEAL]
    if not moves:
        return []
    values = _values(observation, moves, rng, settings)
    return sorted(values, key=lambda value: -value.points)


def _values(observation: Observation, moves: list[Action], rng: random.Random,
            settings: SearchSettings) -> list[ChoiceValue]:
    match observation.phase:
        case Phase.AUCTION:
            layouts = auction_layouts(observation, rng)
            declaring = layouts.declaring[layouts.best_trump]
            declared_tricks = layouts.mean(declaring)
            passing = layouts.passing_value(observation.rules)
            return [
                ChoiceValue(move, layouts.declaring_value(move.tricks), declared_tricks)
                if isinstance(move, Bid)
                else ChoiceValue(move, passing, layouts.mean(layouts.defending))
                for move in moves
                if isinstance(move, Bid | Pass)
            ]
        case Phase.TRUMP:
            trumps = trump_values(observation, rng)
            return [ChoiceValue(move, *trumps[int(move.suit)]) for move in moves
                    if isinstance(move, ChooseTrump)]
        case Phase.ANNOUNCEMENTS:
            announced = announcement_values(observation, rng)
            return [ChoiceValue(move, *announced[move.tricks]) for move in moves
                    if isinstance(move, Announce)]
        case Phase.PLAY:
            worlds = plausible_worlds(observation, rng, settings)
            means = card_means(observation, moves, worlds, settings)
            return [ChoiceValue(move, means[move]) for move in moves]
    return []
