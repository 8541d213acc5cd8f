"""Computer players. A player decides from its seat's `Observation` only: the type carries the
seat's own hand, a face-up dummy and the public history, never another hand or the deck."""

from __future__ import annotations

import random

from games.engine import Action, ActionKind, Observation


def choose_action(observation: Observation, level: str, rng: random.Random) -> Action:
    """The move of a computer player of ``level`` for the seat ``observation`` belongs to."""
    # Every level plays a uniformly random legal move until the levels are built; a redeal
    # request is never made.
    moves = [a for a in observation.legal_actions if a.kind != ActionKind.REDEAL]
    return rng.choice(moves)
