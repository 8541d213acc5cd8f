"""The Batak rules engine: pure Python, no Django. See RULES.md for the rules it implements."""

from .actions import (
    Action,
    ActionKind,
    ActionParseError,
    Announce,
    Bid,
    ChooseTrump,
    Pass,
    Play,
    RequestRedeal,
    action_from_dict,
    parse_action,
)
from .cards import Card, CardParseError, Rank, Suit, cards_of, mask_of, parse_cards
from .deal import Deal, DealStart
from .errors import IllegalAction, Reason
from .match import MAX_DEALS, Match, following_deal
from .observation import Observation
from .public import Phase, Trick
from .rules import (
    PRESETS,
    AllPass,
    Direction,
    Game,
    RuleError,
    Scoring,
    TableRules,
    TrumpLead,
)
from .scoring import DealScore, Outcome, ranking, score_deal

__all__ = [
    "MAX_DEALS",
    "PRESETS",
    "Action",
    "ActionKind",
    "ActionParseError",
    "AllPass",
    "Announce",
    "Bid",
    "Card",
    "CardParseError",
    "ChooseTrump",
    "Deal",
    "DealScore",
    "DealStart",
    "Direction",
    "Game",
    "IllegalAction",
    "Match",
    "Observation",
    "Outcome",
    "Pass",
    "Phase",
    "Play",
    "Rank",
    "Reason",
    "RequestRedeal",
    "RuleError",
    "Scoring",
    "Suit",
    "TableRules",
    "Trick",
    "TrumpLead",
    "action_from_dict",
    "cards_of",
    "following_deal",
    "mask_of",
    "parse_action",
    "parse_cards",
    "ranking",
    "score_deal",
]
