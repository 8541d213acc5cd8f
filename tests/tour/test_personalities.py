"""Characters of one level play differently: their styles change what they bid and announce.

Each pair sees exactly the same observations (and, for Hard, samples the same worlds), so any
difference comes from the style alone.
"""

import random

import pytest

from bots import players
from games.engine import ActionKind, Deal, DealStart, Observation, TableRules
from tour import content


def opening_calls(rules: TableRules, hands: int) -> list[Observation]:
    """The first seat to speak, over ``hands`` different deals."""
    observations = []
    for number in range(hands):
        deal = Deal(DealStart.shuffle(rules, number % 4, rng=random.Random(number)))
        observations.append(deal.observation(deal.to_act))
    return observations


def decisions(slug: str, observations: list[Observation]) -> list:
    character = content.CHARACTERS[slug]
    return [
        players.choose_action(observation, character.level, random.Random(number),
                              character.style)
        for number, observation in enumerate(observations)
    ]


@pytest.mark.parametrize(
    ("bold", "timid", "hands"),
    [("kaan", "rifat", 40), ("cemal", "zeynep", 40), ("leyla", "orhan", 16)],
    ids=["easy", "medium", "hard"],
)
def test_bold_characters_bid_more_often_than_timid_ones(bold, timid, hands) -> None:
    assert content.CHARACTERS[bold].level == content.CHARACTERS[timid].level
    observations = opening_calls(TableRules.create("auction"), hands)
    bold_bids = [a.kind == ActionKind.BID for a in decisions(bold, observations)]
    timid_bids = [a.kind == ActionKind.BID for a in decisions(timid, observations)]
    assert all(b for b, t in zip(bold_bids, timid_bids, strict=True) if t), (
        "a bold character bids every hand a timid one bids"
    )
    assert sum(bold_bids) > sum(timid_bids), (sum(bold_bids), sum(timid_bids))


def test_bold_characters_announce_more_tricks_in_koz_maca() -> None:
    observations = opening_calls(TableRules.create("spades", spades_announcements=True), 40)
    bold = [a.tricks for a in decisions("cemal", observations)]
    timid = [a.tricks for a in decisions("zeynep", observations)]
    assert all(b >= t for b, t in zip(bold, timid, strict=True))
    assert sum(bold) > sum(timid), (sum(bold), sum(timid))


def test_no_two_characters_play_alike() -> None:
    def play(character: content.Character) -> tuple:
        # Hard weighs its calls by play-outs and reads only the boldness of a style.
        if character.level == "hard":
            return (character.level, character.style.boldness)
        return (character.level, character.style)

    assert len({play(c) for c in content.CHARACTERS.values()}) == len(content.CHARACTERS)
