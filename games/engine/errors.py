"""Why an action is refused: a stable reason code, an English sentence and what would be legal.

The codes are part of the public API; the service translates the sentence by code.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .actions import Action
    from .cards import Card


class Reason(enum.StrEnum):
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_BEAT = "must_beat"
    MUST_TRUMP = "must_trump"
    MUST_OVERTRUMP = "must_overtrump"
    TRUMP_NOT_BROKEN = "trump_not_broken"
    BID_TOO_LOW = "bid_too_low"
    BID_TOO_HIGH = "bid_too_high"
    ALREADY_PASSED = "already_passed"
    ANNOUNCEMENT_OUT_OF_RANGE = "announcement_out_of_range"
    REDEAL_NOT_ALLOWED = "redeal_not_allowed"


def gettext_noop(message: str) -> str:
    """Marks a sentence for translation (Django's makemessages looks for this name) without
    making the engine depend on Django; the service translates it by reason."""
    return message


MESSAGES: dict[Reason, str] = {
    Reason.NOT_YOUR_TURN: gettext_noop("It is not your turn."),
    Reason.WRONG_PHASE: gettext_noop("That move does not belong to this phase of the deal."),
    Reason.CARD_NOT_IN_HAND: gettext_noop("That card is not in your hand."),
    Reason.MUST_FOLLOW_SUIT: gettext_noop("You must follow suit."),
    Reason.MUST_BEAT: gettext_noop("You must beat the highest card of the suit led."),
    Reason.MUST_TRUMP: gettext_noop(
        "You have no card of the suit led, so you must play a trump."
    ),
    Reason.MUST_OVERTRUMP: gettext_noop(
        "You must play a trump higher than the one in the trick."
    ),
    Reason.TRUMP_NOT_BROKEN: gettext_noop(
        "Trumps may not be led until a trump has been played."
    ),
    Reason.BID_TOO_LOW: gettext_noop(
        "Your bid must be at least the minimum and higher than the highest bid."
    ),
    Reason.BID_TOO_HIGH: gettext_noop("No bid may be higher than 13."),
    Reason.ALREADY_PASSED: gettext_noop("You have passed and may not bid again in this deal."),
    Reason.ANNOUNCEMENT_OUT_OF_RANGE: gettext_noop(
        "An announcement is a number from 0 (none) to 13."
    ),
    Reason.REDEAL_NOT_ALLOWED: gettext_noop(
        "A new deal may be asked for only with no card higher than a ten, before your first move."
    ),
}


class IllegalAction(ValueError):
    """A well-formed action that the rules refuse now; ``legal`` lists what the seat may do."""

    def __init__(self, reason: Reason, legal: Sequence[Action] = (), detail: str = "") -> None:
        self.reason = reason
        self.legal: tuple[Action, ...] = tuple(legal)
        self.detail = detail or MESSAGES[reason]
        super().__init__(f"{reason.value}: {self.detail}")

    @property
    def legal_cards(self) -> list[Card]:
        return [action.card for action in self.legal if action.kind == "play"]  # type: ignore[union-attr]
