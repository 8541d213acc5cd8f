"""Table rules: every option of RULES.md as one validated, immutable value."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from .errors import gettext_noop


class Game(enum.StrEnum):
    AUCTION = "auction"  # İhaleli: each for themselves, with an auction
    PARTNERSHIP = "partnership"  # Eşli: 0+2 against 1+3, with an auction
    SPADES = "spades"  # Koz Maça: no auction, spades always trump


class Direction(enum.StrEnum):
    ANTICLOCKWISE = "anticlockwise"  # "to the right": the seat after 0 is 1
    CLOCKWISE = "clockwise"  # the seat after 0 is 3


class AllPass(enum.StrEnum):
    DEALER_TAKES = "dealer_takes"
    REDEAL = "redeal"


class TrumpLead(enum.StrEnum):
    AFTER_BROKEN = "after_broken"
    ANYTIME = "anytime"


class Scoring(enum.StrEnum):
    STANDARD = "standard"
    BONUS = "bonus"
    SIMPLE = "simple"
    CONTRACT = "contract"


class RuleError(ValueError):
    """A table rule has a value it may not have; names the field and what is allowed.

    ``template`` is an English sentence marked for translation, ``params`` fill it in; the
    service translates the template, the engine gives it in English (``message``).
    """

    def __init__(
        self, field: str, template: str, allowed: list[Any] | None = None, **params: Any
    ) -> None:
        self.field = field
        self.template = template
        self.params = params
        self.message = template % params
        self.allowed = allowed
        super().__init__(f"{field}: {self.message}")


AUCTION_ONLY = gettext_noop("applies only to games with an auction")

# Values each rule may take, per game; a rule missing from a game's map does not apply to it.
_MIN_BIDS = {Game.AUCTION: (4, 5), Game.PARTNERSHIP: (7, 8), Game.SPADES: (4, 5)}
_ALL_PASS_BID_RANGE = {Game.AUCTION: (4, 13), Game.PARTNERSHIP: (7, 13)}
_DEFAULT_MIN_BID = {Game.AUCTION: 4, Game.PARTNERSHIP: 7, Game.SPADES: 4}
_DEFAULT_ALL_PASS_BID = {Game.AUCTION: 4, Game.PARTNERSHIP: 7}
DEFAULT_OVERTRICK_LIMIT = 3


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class TableRules:
    """The rules a match is played with. Build with `TableRules.create`, which fills game defaults.

    Options that do not apply to the game hold ``None`` (auction options in Koz Maça) or their
    "off" value, and setting them is an error rather than silently ignored.
    """

    game: Game = Game.AUCTION
    direction: Direction = Direction.ANTICLOCKWISE
    min_bid: int = 4
    all_pass: AllPass | None = AllPass.DEALER_TAKES
    all_pass_bid: int | None = 4
    trump_lead: TrumpLead = TrumpLead.AFTER_BROKEN
    akq_trump_lead: bool = False
    must_beat_in_suit: bool = True
    must_beat_after_trumped: bool = False
    must_trump: bool = True
    must_overtrump: bool = True
    must_trump_when_cannot_overtrump: bool = True
    scoring: Scoring = Scoring.STANDARD
    partnership_dummy: bool = False
    spades_announcements: bool = False
    spades_overtrick_limit: int | None = None
    weak_hand_redeal: bool = False

    @classmethod
    def create(cls, game: Game | str = Game.AUCTION, **overrides: Any) -> TableRules:
        """The preset for ``game`` with ``overrides`` applied and validated."""
        try:
            game = Game(game)
        except ValueError:
            raise RuleError(
                "game", gettext_noop("is not a game of this service"), [g.value for g in Game]
            ) from None
        unknown = sorted(set(overrides) - set(RULE_NAMES))
        if unknown:
            raise RuleError(unknown[0], gettext_noop("is not a table rule"), list(RULE_NAMES))
        values: dict[str, Any] = {
            "game": game,
            "min_bid": _DEFAULT_MIN_BID[game],
            "all_pass": AllPass.DEALER_TAKES if game != Game.SPADES else None,
            "all_pass_bid": _DEFAULT_ALL_PASS_BID.get(game),
        }
        if overrides.get("spades_announcements") and "spades_overtrick_limit" not in overrides:
            values["spades_overtrick_limit"] = DEFAULT_OVERTRICK_LIMIT
        values.update(overrides)
        return cls(**_coerce(values))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableRules:
        data = dict(data)
        return cls.create(data.pop("game", Game.AUCTION), **data)

    def to_dict(self) -> dict[str, Any]:
        return {
            field.name: _plain(getattr(self, field.name)) for field in dataclasses.fields(self)
        }

    def replace(self, **overrides: Any) -> TableRules:
        """These rules with ``overrides``; defaults that depend on other rules are derived
        again (turning announcements on brings the default overtrick limit)."""
        preset = TableRules.create(self.game).to_dict()
        changed = {k: v for k, v in self.to_dict().items() if preset[k] != v and k != "game"}
        if "spades_announcements" in overrides and "spades_overtrick_limit" not in overrides:
            changed.pop("spades_overtrick_limit", None)
        return TableRules.create(overrides.pop("game", self.game), **{**changed, **overrides})

    @property
    def has_auction(self) -> bool:
        return self.game != Game.SPADES

    @property
    def is_partnership(self) -> bool:
        return self.game == Game.PARTNERSHIP

    def __post_init__(self) -> None:
        _validate(self)


RULE_NAMES: tuple[str, ...] = tuple(
    field.name for field in dataclasses.fields(TableRules) if field.name != "game"
)

_ENUM_FIELDS: dict[str, type[enum.StrEnum]] = {
    "game": Game,
    "direction": Direction,
    "all_pass": AllPass,
    "trump_lead": TrumpLead,
    "scoring": Scoring,
}
_BOOL_FIELDS = (
    "akq_trump_lead",
    "must_beat_in_suit",
    "must_beat_after_trumped",
    "must_trump",
    "must_overtrump",
    "must_trump_when_cannot_overtrump",
    "partnership_dummy",
    "spades_announcements",
    "weak_hand_redeal",
)


def _coerce(values: dict[str, Any]) -> dict[str, Any]:
    """Turn wire values (strings for enums) into typed ones, refusing wrong types by name."""
    coerced = dict(values)
    for name, enum_type in _ENUM_FIELDS.items():
        value = coerced.get(name)
        if value is None:
            continue
        try:
            coerced[name] = enum_type(value)
        except ValueError:
            choices = [m.value for m in enum_type]
            raise RuleError(
                name, gettext_noop("must be one of %(choices)s"), choices,
                choices=", ".join(choices),
            ) from None
    for name in _BOOL_FIELDS:
        if name in coerced and not isinstance(coerced[name], bool):
            raise RuleError(name, gettext_noop("must be true or false"), [True, False])
    for name in ("min_bid", "all_pass_bid", "spades_overtrick_limit"):
        value = coerced.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise RuleError(name, gettext_noop("must be a whole number"))
    return coerced


# Options that apply to one game only, with what is said when another game sets them.
_ONE_GAME_OPTIONS = (
    ("partnership_dummy", Game.PARTNERSHIP, gettext_noop("applies only to the partnership game")),
    (
        "spades_announcements", Game.SPADES,
        gettext_noop("applies only to the spades game (Koz Maça)"),
    ),
)


def _validate(rules: TableRules) -> None:
    """Refuse a combination of values the game does not allow, naming the first wrong field."""
    _validate_min_bid(rules)
    if rules.has_auction:
        _validate_all_pass(rules)
    else:
        for name in ("all_pass", "all_pass_bid"):
            if getattr(rules, name) is not None:
                raise RuleError(name, AUCTION_ONLY, [None])
    for name, game, message in _ONE_GAME_OPTIONS:
        if getattr(rules, name) and rules.game != game:
            raise RuleError(name, message, [False])
    if rules.spades_overtrick_limit is not None:
        _validate_overtrick_limit(rules.spades_overtrick_limit, rules.spades_announcements)


def _validate_min_bid(rules: TableRules) -> None:
    allowed = _MIN_BIDS[rules.game]
    if rules.min_bid not in allowed:
        raise RuleError(
            "min_bid", gettext_noop("must be one of %(choices)s in the %(game)s game"),
            list(allowed), choices=", ".join(map(str, allowed)), game=rules.game.value,
        )


def _validate_all_pass(rules: TableRules) -> None:
    """A game with an auction says what happens when all four pass."""
    if rules.all_pass is None:
        raise RuleError("all_pass", gettext_noop("is required"), [m.value for m in AllPass])
    low, high = _ALL_PASS_BID_RANGE[rules.game]
    if rules.all_pass_bid is None or not low <= rules.all_pass_bid <= high:
        raise RuleError(
            "all_pass_bid",
            gettext_noop("must be between %(low)d and %(high)d in the %(game)s game"),
            list(range(low, high + 1)), low=low, high=high, game=rules.game.value,
        )


def _validate_overtrick_limit(limit: int, announcements: bool) -> None:
    if not announcements:
        raise RuleError(
            "spades_overtrick_limit",
            gettext_noop("applies only with spades_announcements"),
            [None],
        )
    if not 1 <= limit <= 13:
        raise RuleError(
            "spades_overtrick_limit",
            gettext_noop("must be between 1 and 13, or null to disable"),
            [None, *range(1, 14)],
        )


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


PRESETS: dict[Game, TableRules] = {game: TableRules.create(game) for game in Game}
