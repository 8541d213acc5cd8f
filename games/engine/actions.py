"""What a seat can do in a deal, as small immutable values with a string form.

``str(action)`` and `parse_action` round-trip (``"bid 5"``, ``"pass"``, ``"trump H"``,
``"announce 0"``, ``"play TS"``, ``"redeal"``); `Action.to_dict` / `action_from_dict` are the form
kept in the move log.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, ClassVar

from .cards import Card, CardParseError, Suit


class ActionKind(enum.StrEnum):
    BID = "bid"
    PASS = "pass"
    TRUMP = "trump"
    ANNOUNCE = "announce"
    PLAY = "play"
    REDEAL = "redeal"


class ActionParseError(ValueError):
    """Text or a payload does not describe an action at all (as opposed to an illegal one)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Bid:
    """Bid to take at least ``tricks`` tricks (with the partner, in the partnership game)."""

    tricks: int
    kind: ClassVar[ActionKind] = ActionKind.BID

    def __str__(self) -> str:
        return f"bid {self.tricks}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "tricks": self.tricks}


@dataclasses.dataclass(frozen=True, slots=True)
class Pass:
    kind: ClassVar[ActionKind] = ActionKind.PASS

    def __str__(self) -> str:
        return "pass"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value}


@dataclasses.dataclass(frozen=True, slots=True)
class ChooseTrump:
    suit: Suit
    kind: ClassVar[ActionKind] = ActionKind.TRUMP

    def __str__(self) -> str:
        return f"trump {self.suit.letter}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "suit": self.suit.letter}


@dataclasses.dataclass(frozen=True, slots=True)
class Announce:
    """Koz Maça announcement: the tricks this seat will take, 0 meaning "none"."""

    tricks: int
    kind: ClassVar[ActionKind] = ActionKind.ANNOUNCE

    def __str__(self) -> str:
        return f"announce {self.tricks}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "tricks": self.tricks}


@dataclasses.dataclass(frozen=True, slots=True)
class Play:
    card: Card
    kind: ClassVar[ActionKind] = ActionKind.PLAY

    def __str__(self) -> str:
        return f"play {self.card}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "card": str(self.card)}


@dataclasses.dataclass(frozen=True, slots=True)
class RequestRedeal:
    """Weak-hand redeal: a hand with no card above a ten asks for a new deal."""

    kind: ClassVar[ActionKind] = ActionKind.REDEAL

    def __str__(self) -> str:
        return "redeal"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value}


Action = Bid | Pass | ChooseTrump | Announce | Play | RequestRedeal


def _whole_number(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return int(str(value).strip())
        except ValueError:
            raise ActionParseError(f"{field} must be a whole number, not {value!r}") from None
    return value


def action_from_dict(data: dict[str, Any]) -> Action:
    """Inverse of ``action.to_dict()``."""
    kind: Any = data.get("kind")  # any JSON value: ActionKind() refuses all but a kind
    try:
        match ActionKind(kind):
            case ActionKind.BID:
                return Bid(_whole_number(data.get("tricks"), "tricks"))
            case ActionKind.PASS:
                return Pass()
            case ActionKind.TRUMP:
                return ChooseTrump(Suit.parse(str(data.get("suit", ""))))
            case ActionKind.ANNOUNCE:
                return Announce(_whole_number(data.get("tricks"), "tricks"))
            case ActionKind.PLAY:
                return Play(Card.parse(str(data.get("card", ""))))
            case ActionKind.REDEAL:
                return RequestRedeal()
    except CardParseError as error:
        raise ActionParseError(str(error)) from None
    except ValueError:
        raise ActionParseError(
            f"unknown action kind {kind!r} (one of {', '.join(k.value for k in ActionKind)})"
        ) from None
    raise AssertionError(kind)  # pragma: no cover - the match above is exhaustive


_ARGUMENT_FIELD = {
    ActionKind.BID: "tricks",
    ActionKind.TRUMP: "suit",
    ActionKind.ANNOUNCE: "tricks",
    ActionKind.PLAY: "card",
}


def parse_action(text: str) -> Action:
    """Inverse of ``str(action)``: ``"bid 5"``, ``"pass"``, ``"trump h"``, ``"play 10s"``…"""
    words = text.split()
    if not words:
        raise ActionParseError("empty action")
    kind = words[0].lower()
    data: dict[str, Any] = {"kind": kind}
    field = _ARGUMENT_FIELD.get(ActionKind(kind)) if kind in set(ActionKind) else None
    if len(words) != (2 if field else 1):
        raise ActionParseError(f"malformed action: {text!r}")
    if field:
        data[field] = words[1]
    return action_from_dict(data)
