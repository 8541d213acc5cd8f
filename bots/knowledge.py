"""What a seat can infer about the hidden hands from its own view alone.

The strict play rules leak: a player who follows without beating holds nothing higher in that
suit; one who does not follow holds none of it; one who discards holds no trump (or none high
enough); one who under-trumps holds no higher trump. Each inference forbids some unseen cards
to one seat, and the samplers deal only worlds that respect every one of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from games.engine import Card, Observation, TableRules, TrumpLead
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
    trump = int(observation.trump)
    tricks = list(observation.tricks)
    if observation.current_trick is not None and observation.current_trick.plays:
        tricks.append(observation.current_trick)
    broken = False
    for trick in tricks:
        trumped = _read_trick(trick.plays, observation.rules, trump, broken, forbidden)
        if len(trick.plays) == 4 and trumped:
            broken = True
    return forbidden


def _read_trick(
    plays: Sequence[tuple[int, Card]], rules: TableRules, trump: int, broken: bool,
    forbidden: list[int],
) -> bool:
    """Add to ``forbidden`` what the plays of one trick reveal; whether a trump lies in it."""
    leader, lead = plays[0]
    best_led = lead.index
    led = best_led // 13
    best_trump = best_led if led == trump else -1
    if led == trump:
        forbidden[leader] |= _forbidden_by_trump_lead(rules, trump, best_led, broken)
    for seat, card in plays[1:]:
        index = card.index
        suit = index // 13
        if suit == led:
            forbidden[seat] |= _forbidden_by_following(
                rules, led, trump, best_led, best_trump, index
            )
        else:
            forbidden[seat] |= SUIT_MASKS[led] | _forbidden_by_void(
                rules, trump, suit, best_trump, index
            )
        if suit == trump and index > best_trump:
            best_trump = index
        if suit == led and index > best_led:
            best_led = index
    return best_trump >= 0


def _forbidden_by_trump_lead(rules: TableRules, trump: int, index: int, broken: bool) -> int:
    """A trump led while trumps may not be led yet: the leader held only trumps (unless it
    led one of the ace, king and queen the `akq_trump_lead` rule lets it lead)."""
    restricted = rules.trump_lead == TrumpLead.AFTER_BROKEN and not broken
    honour_lead = rules.akq_trump_lead and (1 << index) & honours_mask(trump)
    return FULL_DECK & ~SUIT_MASKS[trump] if restricted and not honour_lead else 0


def _forbidden_by_following(
    rules: TableRules, led: int, trump: int, best_led: int, best_trump: int, index: int
) -> int:
    """Followed suit under the best card of the suit while bound to beat it: none higher."""
    must_beat = rules.must_beat_in_suit and (
        best_trump < 0 or led == trump or rules.must_beat_after_trumped
    )
    return ABOVE[best_led] if must_beat and index < best_led else 0


def _forbidden_by_void(
    rules: TableRules, trump: int, suit: int, best_trump: int, index: int
) -> int:
    """Did not follow (the caller forbids the led suit): a discard tells of the trumps it would
    have had to play, an under-trump of the higher trumps."""
    must_overtrump = best_trump >= 0 and rules.must_overtrump
    if suit == trump:
        return ABOVE[best_trump] if must_overtrump and index < best_trump else 0
    if must_overtrump:
        must_trump = rules.must_trump_when_cannot_overtrump
        return ABOVE[best_trump] | (SUIT_MASKS[trump] if must_trump else 0)
    return SUIT_MASKS[trump] if rules.must_trump else 0


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
