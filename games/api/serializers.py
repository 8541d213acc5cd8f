"""Input and output shapes of the API. Outputs are rendered through these serializers, so the
OpenAPI schema generated from them is exactly what clients receive."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from games import clock, engine
from games.engine.cards import ALL_CARDS
from games.engine.rules import AllPass, Direction, Scoring, TrumpLead
from games.models import ActionOrigin, BotLevel, DealStatus, GameChoice, MatchStatus, Visibility

CARD_CHOICES = [str(card) for card in sorted(ALL_CARDS, key=lambda c: (c.suit, -c.rank))]
SUIT_CHOICES = [suit.letter for suit in engine.Suit]
# Value lists of the engine's enums: the serializers use them and the schema names them
# (ENUM_NAME_OVERRIDES in settings).
ACTION_KINDS = [kind.value for kind in engine.ActionKind]
PHASES = [phase.value for phase in engine.Phase]
REASONS = [reason.value for reason in engine.Reason]
OUTCOMES = [outcome.value for outcome in engine.Outcome]
DIRECTIONS = [direction.value for direction in Direction]
ALL_PASS_RULES = [rule.value for rule in AllPass]
TRUMP_LEADS = [rule.value for rule in TrumpLead]
SCORINGS = [scoring.value for scoring in Scoring]


class _Bounds(TypedDict):
    min_value: int
    max_value: int


SEAT: _Bounds = {"min_value": 0, "max_value": 3}
# What a card may be written as in a request: rank then suit, `10` for a ten, either case.
CARD_PATTERN = r"^(10|[2-9TJQKAtjqka])[SHDCshdc]$"
# Names are text without control characters.
NAME_PATTERN = r"^[^\u0000-\u001f\u007f]*$"
USERNAME_PATTERN = r"^[A-Za-z0-9_.@+-]{3,150}$"
# A password may hold any character but NUL.
PASSWORD_PATTERN = r"^[^\u0000]*$"
MAX_TRICKS = 13


# --- strict input ------------------------------------------------------------------------------
# A request is read exactly as the schema describes it: a field the API does not know is refused
# (400 unknown_field) rather than ignored, and a value of the wrong JSON type is refused rather
# than converted ("5" is no integer, "true" no boolean, 0 no string).


class StrictInputSerializer(serializers.Serializer):
    # An input object that refuses fields it does not declare. (A comment, not a docstring:
    # the schema would give it as the description of every request.)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(str(name) for name in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({
                    name: [ErrorDetail(str(_("This field is not part of the API.")),
                                       code="unknown_field")]
                    for name in unknown
                })
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        if isinstance(data, float) and not data.is_integer():
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictRegexField(serializers.RegexField):
    def __init__(self, regex: str, **kwargs: Any) -> None:
        # The pattern is the whole contract: no whitespace trimmed before it is applied.
        super().__init__(regex, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        # JSON may spell a lone surrogate (\ud800), which is no text a database can store.
        if any("\ud800" <= char <= "\udfff" for char in data):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictChoiceField(serializers.ChoiceField):
    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


def name_field() -> StrictRegexField:
    return StrictRegexField(NAME_PATTERN, max_length=64, required=False, allow_blank=True)


def card_field(**kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=CARD_CHOICES, **kwargs)


def seat_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(**SEAT, **kwargs)


def seat_input(**kwargs: Any) -> StrictIntegerField:
    return StrictIntegerField(**SEAT, **kwargs)


def seat_list(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(), min_length=4, max_length=4,
                                 **kwargs)


# --- table rules -------------------------------------------------------------------------------


class TableRulesSerializer(serializers.Serializer):
    """Every table rule of the match (see the README's table of rules and defaults)."""

    game = serializers.ChoiceField(choices=GameChoice.choices)
    direction = serializers.ChoiceField(choices=DIRECTIONS)
    min_bid = serializers.IntegerField()
    all_pass = serializers.ChoiceField(choices=ALL_PASS_RULES, allow_null=True)
    all_pass_bid = serializers.IntegerField(allow_null=True)
    trump_lead = serializers.ChoiceField(choices=TRUMP_LEADS)
    akq_trump_lead = serializers.BooleanField()
    must_beat_in_suit = serializers.BooleanField()
    must_beat_after_trumped = serializers.BooleanField()
    must_trump = serializers.BooleanField()
    must_overtrump = serializers.BooleanField()
    must_trump_when_cannot_overtrump = serializers.BooleanField()
    scoring = serializers.ChoiceField(choices=SCORINGS)
    partnership_dummy = serializers.BooleanField()
    spades_announcements = serializers.BooleanField()
    spades_overtrick_limit = serializers.IntegerField(allow_null=True)
    weak_hand_redeal = serializers.BooleanField()


class RuleOverridesSerializer(StrictInputSerializer):
    """Table rules to change from the game's preset; omitted rules keep their default. Each
    game allows only some values (see the presets and the README's table of rules): a value
    outside them is refused with 400 `invalid_rules`, naming the rule and what it allows."""

    direction = StrictChoiceField(choices=DIRECTIONS, required=False)
    min_bid = StrictIntegerField(min_value=4, max_value=8, required=False,
                                 help_text="4 or 5 (auction, spades); 7 or 8 (partnership).")
    all_pass = StrictChoiceField(choices=ALL_PASS_RULES, required=False)
    all_pass_bid = StrictIntegerField(min_value=4, max_value=MAX_TRICKS, required=False,
                                      help_text="min_bid..13 of the game.")
    trump_lead = StrictChoiceField(choices=TRUMP_LEADS, required=False)
    akq_trump_lead = StrictBooleanField(required=False)
    must_beat_in_suit = StrictBooleanField(required=False)
    must_beat_after_trumped = StrictBooleanField(required=False)
    must_trump = StrictBooleanField(required=False)
    must_overtrump = StrictBooleanField(required=False)
    must_trump_when_cannot_overtrump = StrictBooleanField(required=False)
    scoring = StrictChoiceField(choices=SCORINGS, required=False)
    partnership_dummy = StrictBooleanField(required=False)
    spades_announcements = StrictBooleanField(required=False)
    spades_overtrick_limit = StrictIntegerField(
        min_value=1, max_value=MAX_TRICKS, required=False, allow_null=True,
        help_text="With spades_announcements: 1..13, or null for no limit.",
    )
    weak_hand_redeal = StrictBooleanField(required=False)


# --- matches -----------------------------------------------------------------------------------


class SeatSpecSerializer(StrictInputSerializer):
    kind = StrictChoiceField(
        choices=[("me", "me"), ("open", "open"), ("bot", "bot")],
        help_text="`me`: the creator sits here; `open`: another person may join; "
        "`bot`: a computer player.",
    )
    bot_level = StrictChoiceField(choices=BotLevel.choices, required=False,
                                  help_text="Required for `bot`, refused otherwise.")
    display_name = name_field()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["kind"] == "bot" and not attrs.get("bot_level"):
            raise serializers.ValidationError({"bot_level": ["A computer player needs a level."]})
        if attrs["kind"] != "bot" and attrs.get("bot_level"):
            raise serializers.ValidationError({"bot_level": ["Only computer players have one."]})
        return attrs


def default_seats() -> list[dict[str, str]]:
    return [{"kind": "me"}, *({"kind": "bot", "bot_level": "medium"} for _ in range(3))]


class ClockSerializer(StrictInputSerializer):
    """Seconds a person has for each action before a computer player makes it for them."""

    bid = StrictIntegerField(
        min_value=clock.MIN_SECONDS, max_value=clock.MAX_SECONDS,
        help_text="For a bid, a pass, naming trumps, an announcement or asking for a redeal.",
    )
    card = StrictIntegerField(min_value=clock.MIN_SECONDS, max_value=clock.MAX_SECONDS,
                              help_text="For a card.")


class MatchCreateSerializer(StrictInputSerializer):
    game = StrictChoiceField(choices=GameChoice.choices, default=GameChoice.AUCTION)
    visibility = StrictChoiceField(
        choices=Visibility.choices, default=Visibility.PRIVATE,
        help_text="`public`: listed in the lobby, anyone may join an open seat and watch; "
        "`private`: joined only with the invitation code (`GET /matches/{id}/invitation`).",
    )
    clock = ClockSerializer(
        required=False, allow_null=True,
        help_text="Turn clock; null for none. Default: 20 s a call and 30 s a card when more "
        "than one person may sit at the match (`me` and `open` seats), none otherwise.",
    )
    rules = RuleOverridesSerializer(required=False)
    deals = StrictIntegerField(
        min_value=1, max_value=engine.MAX_DEALS, default=4,
        help_text="Number of deals: 4, 8 or 12 let every seat deal equally often; 1..52 accepted.",
    )
    # many=True hands min_length/max_length to the ListSerializer, which the stubs' serializer
    # signature does not list.
    seats = SeatSpecSerializer(  # type: ignore[call-arg]
        many=True, required=False, min_length=4, max_length=4,
        help_text="Seats 0..3 in order, at most one `me`. Default: you in seat 0 and three "
        "Medium computer players.",
    )

    def validate_seats(self, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if len(value) != 4:
            raise serializers.ValidationError("Give exactly four seats.")
        if sum(seat["kind"] == "me" for seat in value) > 1:
            raise serializers.ValidationError("You can take only one seat.")
        return value


class SeatSerializer(serializers.Serializer):
    index = seat_field()
    kind = serializers.ChoiceField(choices=[("person", "person"), ("bot", "bot"),
                                            ("open", "open")])
    display_name = serializers.CharField()
    bot_level = serializers.ChoiceField(choices=BotLevel.choices, allow_null=True)
    connected = serializers.BooleanField(
        allow_null=True,
        help_text="A person's seat: seen in the last 45 seconds (any request about the match, "
        "or a wait on its event feed). Null for computer and open seats.",
    )
    last_seen = serializers.DateTimeField(allow_null=True,
                                          help_text="A person's last request about the match.")
    left_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When the person left: a computer player plays the seat from then on and "
        "the person's result counts as abandoned.",
    )
    autopilot = serializers.BooleanField(
        help_text="A computer player plays the person's seat after timeouts in a row, until "
        "the person acts again or posts `return`."
    )


class ClockOutSerializer(serializers.Serializer):
    bid = serializers.IntegerField(help_text="Seconds for a call.")
    card = serializers.IntegerField(help_text="Seconds for a card.")


class TableFactsSerializer(serializers.Serializer):
    visibility = serializers.ChoiceField(choices=Visibility.choices)
    clock = ClockOutSerializer(allow_null=True, help_text="Null: no turn clock.")
    turn_deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="When the person to act runs out of time and a computer player moves for "
        "them; null while no person is on the clock.",
    )


class MatchSerializer(TableFactsSerializer):
    id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    rules = TableRulesSerializer()
    deal_count = serializers.IntegerField()
    deals_played = serializers.IntegerField()
    version = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    totals = seat_list(help_text="Match points per seat.")
    ranking = seat_list(allow_null=True, help_text="Place per seat (1 = first; ties share).")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    fill_with_bots_at = serializers.DateTimeField(
        allow_null=True,
        help_text="A quick-match table: when computer players take the seats still open.",
    )
    spectators = serializers.IntegerField(help_text="People watching (public matches).")


class JoinSerializer(StrictInputSerializer):
    seat = seat_input(required=False, help_text="Seat to take; default the lowest open one.")


class JoinedSerializer(serializers.Serializer):
    seat = seat_field(help_text="The seat you took.")
    match = MatchSerializer()


# --- a seat's view -----------------------------------------------------------------------------


class PlayedCardSerializer(serializers.Serializer):
    seat = seat_field()
    card = card_field()


class TrickSerializer(serializers.Serializer):
    leader = seat_field()
    cards = PlayedCardSerializer(many=True, help_text="In play order.")
    winner = seat_field(allow_null=True, help_text="Null while the trick is in play.")


class AuctionCallSerializer(serializers.Serializer):
    seat = seat_field()
    bid = serializers.IntegerField(allow_null=True, help_text="Null for a pass.")


class ActionSerializer(serializers.Serializer):
    """An action as in the log: `kind` plus the one argument that kind takes."""

    kind = serializers.ChoiceField(choices=ACTION_KINDS)
    tricks = serializers.IntegerField(required=False, help_text="`bid` and `announce`.")
    suit = serializers.ChoiceField(choices=SUIT_CHOICES, required=False, help_text="`trump`.")
    card = card_field(required=False, help_text="`play`.")


class RefusalSerializer(serializers.Serializer):
    card = card_field()
    reason = serializers.ChoiceField(choices=REASONS)
    message = serializers.CharField()


class DealScoreSerializer(serializers.Serializer):
    points = seat_list()
    outcomes = serializers.ListField(
        child=serializers.ChoiceField(choices=OUTCOMES)
    )


class DealViewSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="Deal number within the match, from 1.")
    sequence = serializers.IntegerField(help_text="Shuffle number; differs after a redeal.")
    dealer = seat_field()
    phase = serializers.ChoiceField(choices=PHASES)
    turn = seat_field(allow_null=True, help_text="Seat whose call or card is next.")
    to_act = seat_field(allow_null=True, help_text="Seat that must submit it (declarer for dummy).")
    hand = serializers.ListField(child=card_field(), help_text="Your cards.")
    hand_sizes = seat_list()
    dummy = seat_field(allow_null=True)
    dummy_hand = serializers.ListField(child=card_field(), allow_null=True)
    auction = AuctionCallSerializer(many=True)
    high_bid = serializers.IntegerField(allow_null=True)
    declarer = seat_field(allow_null=True)
    bid = serializers.IntegerField(allow_null=True, help_text="The contract's bid.")
    trump = serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True)
    announcements = serializers.ListField(child=serializers.IntegerField(allow_null=True))
    trump_broken = serializers.BooleanField()
    tricks = TrickSerializer(many=True, help_text="Completed tricks, in order.")
    current_trick = TrickSerializer(allow_null=True)
    last_trick = TrickSerializer(allow_null=True)
    tricks_won = seat_list()
    legal_actions = ActionSerializer(many=True, help_text="What you may submit now.")
    legal_cards = serializers.ListField(child=card_field())
    refusals = RefusalSerializer(many=True, help_text="Why each other card may not be played.")
    redeal_requested_by = seat_field(allow_null=True)
    score = DealScoreSerializer(allow_null=True)
    commitment = serializers.CharField(
        help_text="SHA-256 of the deck order and a secret salt; both are revealed when the deal "
        "ends (see the deal record)."
    )


class EndedDealSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    sequence = serializers.IntegerField()
    status = serializers.ChoiceField(choices=[DealStatus.FINISHED, DealStatus.REDEALT])
    declarer = seat_field(allow_null=True)
    bid = serializers.IntegerField(allow_null=True)
    trump = serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True)
    tricks_won = seat_list(allow_null=True)
    scores = seat_list(allow_null=True)
    outcomes = serializers.ListField(
        child=serializers.ChoiceField(choices=OUTCOMES), allow_null=True
    )
    last_trick = TrickSerializer(allow_null=True)


class SeatViewSerializer(TableFactsSerializer):
    match_id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    version = serializers.IntegerField(help_text="Send back as `expected_version`.")
    seat = seat_field()
    seats = SeatSerializer(many=True)
    rules = TableRulesSerializer()
    deal_count = serializers.IntegerField()
    totals = seat_list()
    ranking = seat_list(allow_null=True)
    deal = DealViewSerializer(allow_null=True, help_text="The deal in play, if any.")
    previous_deal = EndedDealSerializer(allow_null=True, help_text="The last ended deal.")


class PublicDealSerializer(serializers.Serializer):
    """A deal in play as anyone may see it: no hand but a face-up dummy."""

    number = serializers.IntegerField()
    sequence = serializers.IntegerField()
    dealer = seat_field()
    phase = serializers.ChoiceField(choices=PHASES)
    turn = seat_field(allow_null=True)
    to_act = seat_field(allow_null=True)
    hand_sizes = seat_list()
    dummy = seat_field(allow_null=True)
    dummy_hand = serializers.ListField(child=card_field(), allow_null=True)
    auction = AuctionCallSerializer(many=True)
    high_bid = serializers.IntegerField(allow_null=True)
    declarer = seat_field(allow_null=True)
    bid = serializers.IntegerField(allow_null=True)
    trump = serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True)
    announcements = serializers.ListField(child=serializers.IntegerField(allow_null=True))
    trump_broken = serializers.BooleanField()
    tricks = TrickSerializer(many=True)
    current_trick = TrickSerializer(allow_null=True)
    last_trick = TrickSerializer(allow_null=True)
    tricks_won = seat_list()
    redeal_requested_by = seat_field(allow_null=True)
    score = DealScoreSerializer(allow_null=True)
    commitment = serializers.CharField()


class SpectatorViewSerializer(TableFactsSerializer):
    match_id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    version = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    rules = TableRulesSerializer()
    deal_count = serializers.IntegerField()
    totals = seat_list()
    ranking = seat_list(allow_null=True)
    spectators = serializers.IntegerField(help_text="People watching, you among them.")
    deal = PublicDealSerializer(allow_null=True, help_text="The deal in play, if any.")
    previous_deal = EndedDealSerializer(allow_null=True)


# --- lobby and quick match -----------------------------------------------------------------------


class LobbyTableSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    deal_count = serializers.IntegerField()
    rules = TableRulesSerializer()
    preset = serializers.BooleanField(help_text="The game's preset rules, unchanged.")
    rule_changes = serializers.DictField(
        child=serializers.JSONField(allow_null=True),
        help_text="The rules that differ from the game's preset, with their values.",
    )
    clock = ClockOutSerializer(allow_null=True)
    seats = SeatSerializer(many=True)
    seats_taken = serializers.IntegerField()
    open_seats = serializers.IntegerField()
    created_by = serializers.CharField(help_text="The creator's display name.")
    created_at = serializers.DateTimeField()
    fill_with_bots_at = serializers.DateTimeField(allow_null=True)


class QuickMatchSerializer(StrictInputSerializer):
    game = StrictChoiceField(choices=GameChoice.choices)
    rules = RuleOverridesSerializer(required=False)
    deals = StrictIntegerField(min_value=1, max_value=engine.MAX_DEALS, default=4)
    fill_with_bots_after = StrictIntegerField(
        min_value=0, max_value=3600, required=False, allow_null=True, default=60,
        help_text="Seconds after a new table opens when computer players take its seats still "
        "open (default 60); null to wait for people only.",
    )
    bot_level = StrictChoiceField(choices=BotLevel.choices, default=BotLevel.MEDIUM,
                                  help_text="Level of those computer players.")
    clock = ClockSerializer(
        required=False, allow_null=True,
        help_text="The table's turn clock; null for none. Default: 20 s a call, 30 s a card. "
        "Only tables of the same clock are joined.",
    )


class InvitationSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    code = serializers.CharField(
        help_text="Give it to the people you invite: `POST /invitations/{code}/join`."
    )


class DealRecordSerializer(EndedDealSerializer):
    dealer = seat_field()
    hands = serializers.ListField(child=serializers.ListField(child=card_field()),
                                  help_text="Initial hands, seats 0..3.")
    deck = serializers.ListField(child=card_field(), help_text="The shuffled deck order.")
    salt = serializers.CharField()
    commitment = serializers.CharField()
    announcements = serializers.ListField(child=serializers.IntegerField(allow_null=True),
                                          allow_null=True)
    auction = AuctionCallSerializer(many=True)
    actions = serializers.ListField(child=serializers.DictField(), help_text="The action log.")
    tricks = TrickSerializer(many=True)
    redeal_requested_by = seat_field(allow_null=True)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class EventSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The match version this action made.")
    deal_number = serializers.IntegerField()
    deal_sequence = serializers.IntegerField()
    seat = seat_field(help_text="Whose call or card it is (for a face-up dummy's card, the "
                      "dummy's seat).")
    submitted_by = seat_field(help_text="The seat that submitted it (the declarer for a dummy).")
    origin = serializers.ChoiceField(
        choices=ActionOrigin.choices,
        help_text="`player`: the seat's own player; `timeout`: a computer player, as the "
        "person's clock ran out; `autopilot`: a computer player, the seat being on autopilot; "
        "`stand_in`: a computer player, the person having left.",
    )
    kind = serializers.ChoiceField(choices=ACTION_KINDS)
    tricks = serializers.IntegerField(required=False)
    suit = serializers.ChoiceField(choices=SUIT_CHOICES, required=False)
    card = card_field(required=False)
    created_at = serializers.DateTimeField()


class EventPageSerializer(serializers.Serializer):
    events = EventSerializer(many=True, help_text="Oldest first, at most `limit`.")
    next_after = serializers.IntegerField(
        help_text="Pass as `after` for the next page: the page's `version` when the page holds "
        "every action up to it (versions without an action, such as the match's end by "
        "abandonment, are passed too), else the last event's version."
    )
    has_more = serializers.BooleanField(
        help_text="More actions after `next_after` already exist: ask again without waiting."
    )
    version = serializers.IntegerField(help_text="The match version this page was read at.")
    status = serializers.ChoiceField(choices=MatchStatus.choices)


class TrumpEstimateSerializer(serializers.Serializer):
    trump = serializers.ChoiceField(choices=SUIT_CHOICES)
    tricks = serializers.FloatField(help_text="Expected tricks with this trump.")


class BidEstimateSerializer(serializers.Serializer):
    hand = serializers.ListField(child=card_field())
    estimates = TrumpEstimateSerializer(many=True)
    best_trump = serializers.ChoiceField(choices=SUIT_CHOICES)
    team = serializers.BooleanField(help_text="True when the figures count the partner's tricks.")


# --- submitting actions ------------------------------------------------------------------------


# Versions count a match's actions: far below this in any match.
MAX_VERSION = 2**31 - 1


class ActionInputSerializer(StrictInputSerializer):
    expected_version = StrictIntegerField(
        required=False, min_value=0, max_value=MAX_VERSION,
        help_text="The version your view showed; a different current version answers 409.",
    )


class BidInputSerializer(ActionInputSerializer):
    tricks = StrictIntegerField(
        min_value=1, max_value=MAX_TRICKS,
        help_text="Tricks you promise: at least min_bid and above the high bid, else 422.",
    )


class TrumpInputSerializer(ActionInputSerializer):
    suit = StrictRegexField(r"^[SHDCshdc]$", help_text="`S`, `H`, `D` or `C`; lowercase accepted.")

    def validate_suit(self, value: str) -> str:
        return value.upper()


class AnnounceInputSerializer(ActionInputSerializer):
    tricks = StrictIntegerField(
        min_value=0, max_value=MAX_TRICKS, help_text="Tricks you will take, 0 meaning none."
    )


class PlayInputSerializer(ActionInputSerializer):
    card = StrictRegexField(
        CARD_PATTERN,
        help_text="Rank then suit: `AS`, `TH`, `2C`; lowercase and `10` are accepted.",
    )

    def validate_card(self, value: str) -> engine.Card:
        return engine.Card.parse(value)


# --- accounts ----------------------------------------------------------------------------------


class GuestInputSerializer(StrictInputSerializer):
    display_name = name_field()


class RegisterInputSerializer(StrictInputSerializer):
    username = StrictRegexField(
        USERNAME_PATTERN, max_length=150,
        help_text="3 to 150 of the letters A-Z and a-z, digits and `_ . @ + -`.",
    )
    password = StrictRegexField(PASSWORD_PATTERN, min_length=8, max_length=128, write_only=True)
    display_name = name_field()


class LoginInputSerializer(StrictInputSerializer):
    username = StrictRegexField(USERNAME_PATTERN, max_length=150)
    password = StrictRegexField(PASSWORD_PATTERN, max_length=128, write_only=True)


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    is_guest = serializers.BooleanField()
    is_staff = serializers.BooleanField()


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")
    expiry = serializers.DateTimeField(
        help_text="When the token lapses if unused; each use moves it on (at most hourly)."
    )
    user = UserSerializer()


# --- errors ------------------------------------------------------------------------------------


class FieldErrorSerializer(serializers.Serializer):
    field = serializers.CharField()
    code = serializers.CharField()
    message = serializers.CharField()


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details; every error response has this shape."""

    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    code = serializers.CharField(help_text="Stable error code (for refused moves: the reason).")
    detail = serializers.CharField(help_text="A sentence in the request's language.")
    # A declared field, which DRF's metaclass takes out of the class body (the property
    # `Serializer.errors` stays); the stubs see it as overriding that property.
    errors = FieldErrorSerializer(many=True, required=False)  # type: ignore[assignment]
    reason = serializers.ChoiceField(choices=REASONS, required=False)
    legal_actions = ActionSerializer(many=True, required=False)
    legal_cards = serializers.ListField(child=card_field(), required=False)
    current_version = serializers.IntegerField(required=False)
    field = serializers.CharField(required=False)
    allowed = serializers.ListField(child=serializers.JSONField(), required=False,
                                    allow_null=True)
    limit = serializers.IntegerField(required=False, help_text="`request_too_large`: in bytes.")
