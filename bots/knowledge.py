"""What a seat can infer about the hidden hands from its own view alone.

The strict play rules leak: a player who follows without beating holds nothing higher in that
suit; one who does not follow holds none of it; one who discards holds no trump (or none high
enough); one who under-trumps holds no higher trump. Each inference forbids some unseen cards
to one seat, and the samplers deal only worlds that respect every one of them.
"""

from __future__ import annotations

import dataclasses

from games.engine import Observation, TrumpLead
from games.engine.cards import FULL_DECK, SUIT_MASKS
from games.engine.play import ABOVE, honours_mask


@dataclasses.dataclass(frozen=True, slots=True)
class Knowledge:
    seat: int
    known: dict[int, int]  # seat -> cards it still holds that this seat can see (own, dummy)
    hidden: tuple[int, ...]  # seats whose cards are unknown
    sizes: tuple[int, ...]  # how many cards each hidden seat holds
    unseen: int  # mask of the cards held by the hidden seats
    forbidden: tuple[int, ...]  # per hidden seat: unseen cards it cannot hold


def mask(cards: object) -> int:
    result = 0
    for card in cards:  # type: ignore[attr-defined]
        result |= 1 << card.index
    return result


def forbidden_by_play(observation: Observation) -> list[int]:
    """Per seat, the cards it cannot hold, from how the tricks so far were played."""
    forbidden = [0, 0, 0, 0]
    if observation.trump is None:
        return forbidden
    rules = observation.rules
    trump = int(observation.trump)
    trumps = SUIT_MASKS[trump]
    honours = honours_mask(trump)
    broken = False
    tricks = list(observation.tricks)
    if observation.current_trick is not None and observation.current_trick.plays:
        tricks.append(observation.current_trick)
    for trick in tricks:
        led = best_led = best_trump = -1
        for position, (seat, card) in enumerate(trick.plays):
            index = card.index
            suit = index // 13
            if position == 0:
                restricted = rules.trump_lead == TrumpLead.AFTER_BROKEN and not broken
                honour_lead = rules.akq_trump_lead and (1 << index) & honours
                if suit == trump and restricted and not honour_lead:
                    forbidden[seat] |= FULL_DECK & ~trumps  # only trumps were left
                led, best_led = suit, index
                best_trump = index if suit == trump else -1
                continue
            if suit == led:
                must_beat = rules.must_beat_in_suit and (
                    best_trump < 0 or led == trump or rules.must_beat_after_trumped
                )
                if must_beat and index < best_led:
                    forbidden[seat] |= ABOVE[best_led]
            else:
                forbidden[seat] |= SUIT_MASKS[led]
                if suit != trump:
                    if best_trump >= 0 and rules.must_overtrump:
                        forbidden[seat] |= ABOVE[best_trump]
                        if rules.must_trump_when_cannot_overtrump:
                            forbidden[seat] |= trumps
                    elif rules.must_trump:
                        forbidden[seat] |= trumps
                elif best_trump >= 0 and rules.must_overtrump and index < best_trump:
                    forbidden[seat] |= ABOVE[best_trump]
            if suit == trump and index > best_trump:
                best_trump = index
            if suit == led and index > best_led:
                best_led = index
        if len(trick.plays) == 4 and best_trump >= 0:
            broken = True
    return forbidden


def infer(observation: Observation) -> Knowledge:
    me = observation.seat
    known = {me: mask(observation.hand)}
    if observation.dummy is not None and observation.dummy_hand is not None:
        known[observation.dummy] = mask(observation.dummy_hand)
    played = 0
    for trick in observation.tricks:
        played |= mask(card for _, card in trick.plays)
    if observation.current_trick is not None:
        played |= mask(card for _, card in observation.current_trick.plays)
    seen = played
    for cards in known.values():
        seen |= cards
    hidden = tuple(seat for seat in range(4) if seat not in known)
    unseen = FULL_DECK & ~seen
    by_play = forbidden_by_play(observation)
    return Knowledge(
        seat=me,
        known=known,
        hidden=hidden,
        sizes=tuple(observation.hand_sizes[seat] for seat in hidden),
        unseen=unseen,
        forbidden=tuple(by_play[seat] & unseen for seat in hidden),
    )
