"""Matches and tables: the table rules, creating a match, its public facts and seats, joining
it, the lobby, quick match and invitations."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from games import clock, engine
from games.api.serializers.fields import (
    ALL_PASS_RULES,
    DIRECTIONS,
    MAX_TRICKS,
    SCORINGS,
    TRUMP_LEADS,
    StrictBooleanField,
    StrictChoiceField,
    StrictInputSerializer,
    StrictIntegerField,
    name_field,
    seat_field,
    seat_input,
    seat_list,
)
from games.models import BotLevel, GameChoice, MatchStatus, Visibility

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
                                      help_text=f"min_bid..{MAX_TRICKS} of the game.")
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
        help_text=f"With spades_announcements: 1..{MAX_TRICKS}, or null for no limit.",
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


RATED_HELP = (
    "A rated table: its people's ratings change as it finishes (docs/ratings.md). It needs the "
    "game's default rules and seats for at least two people (else 400 `rated_table_refused`); "
    "it starts casual (`rated` false) without two people with named accounts at its start, or "
    "when two of them have played "
    f"{settings.RATED_MATCHES_PER_PAIR_PER_DAY} rated matches together in the last 24 hours."
)

HINTS_HELP = (
    "A table for learners: a seated person may ask for a hint on their turn (`getHint`). "
    "Never on a rated table (400 `hints_not_rated`)."
)

# A deal's notation with every move is under 2 000 characters.
MAX_DEAL_NOTATION = 10_000
DEAL_HELP = (
    "One deal in Batak Deal Notation (docs/notation.md; `getDealNotation` answers one): the "
    "match's first deal is dealt with its hands by its dealer, later deals are shuffled. Its "
    "header gives the game and rules: leave out `game` and `rules`, or give the same (else 400 "
    "`deal_rules_differ`). Its moves, if any, must be legal and are not played. Unreadable or "
    "illegal text is 400 `invalid_deal` (with the `line`); such a match is never rated (400 "
    "`imported_deal_not_rated`) nor joined by quick match, and says `deal_imported`."
)


def deal_notation_field(help_text: str = DEAL_HELP, required: bool = False
                        ) -> serializers.CharField:
    """A request's `deal`: one deal's notation (by default, to deal a match's first deal
    from)."""
    return serializers.CharField(
        required=required, max_length=MAX_DEAL_NOTATION, trim_whitespace=False,
        help_text=help_text,
    )


class MatchCreateSerializer(StrictInputSerializer):
    game = StrictChoiceField(choices=GameChoice.choices, default=GameChoice.AUCTION)
    visibility = StrictChoiceField(
        choices=Visibility.choices, default=Visibility.PRIVATE,
        help_text="`public`: listed in the lobby, anyone may join an open seat and watch; "
        "`private`: joined only with the invitation code (`GET /matches/{id}/invitation`).",
    )
    clock = ClockSerializer(
        required=False, allow_null=True,
        help_text="Turn clock; null for none. Default: "
        f"{settings.CLOCK_DEFAULT['bid']} s a call and {settings.CLOCK_DEFAULT['card']} s a card "
        "when more than one person may sit at the match (`me` and `open` seats), none otherwise.",
    )
    rules = RuleOverridesSerializer(required=False)
    rated = StrictBooleanField(default=False, help_text=RATED_HELP)
    hints = StrictBooleanField(default=False, help_text=HINTS_HELP)
    deal = deal_notation_field()
    deals = StrictIntegerField(
        min_value=1, max_value=engine.MAX_DEALS, default=4,
        help_text="Number of deals: 4, 8 or 12 let every seat deal equally often; "
        f"1..{engine.MAX_DEALS} accepted.",
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
        help_text=f"A person's seat: seen in the last {settings.PRESENCE_SECONDS:g} seconds (any "
        "request about the match, or a wait on its event feed). Null for computer and open seats.",
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
    ready = serializers.BooleanField(
        help_text="False only for a person of a match that waits for its people (`ready_by`) "
        "who has not said they are ready (`POST /matches/{id}/ready`): still waited for, or "
        "not ready by the start (then on autopilot)."
    )


class ClockOutSerializer(serializers.Serializer):
    bid = serializers.IntegerField(help_text="Seconds for a call.")
    card = serializers.IntegerField(help_text="Seconds for a card.")


DEAL_IMPORTED_HELP = (
    "The first deal's cards were chosen by the match's creator (`createMatch` with `deal`), "
    "not shuffled: someone at the table may know them. Such a match is never rated."
)


class TableFactsSerializer(serializers.Serializer):
    visibility = serializers.ChoiceField(choices=Visibility.choices)
    rated = serializers.BooleanField(help_text=RATED_HELP)
    hints = serializers.BooleanField(help_text=HINTS_HELP)
    deal_imported = serializers.BooleanField(help_text=DEAL_IMPORTED_HELP)
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
    ready_by = serializers.DateTimeField(
        allow_null=True,
        help_text="A match that waits for its players to be ready (a platform's, `start: "
        "when_ready`): when it starts anyway, the seats not ready on autopilot. Null when it "
        "did not wait.",
    )
    spectators = serializers.IntegerField(help_text="People watching (public matches).")


class JoinSerializer(StrictInputSerializer):
    seat = seat_input(required=False, help_text="Seat to take; default the lowest open one.")


class JoinedSerializer(serializers.Serializer):
    seat = seat_field(help_text="The seat you took.")
    match = MatchSerializer()


# --- lobby, quick match and invitations --------------------------------------------------------


class LobbyTableSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    deal_count = serializers.IntegerField()
    rules = TableRulesSerializer()
    preset = serializers.BooleanField(help_text="The game's preset rules, unchanged.")
    # Any value, null included: `{}` in OpenAPI 3.1 (a nullable child was `oneOf: [{}, null]`,
    # which a null matches twice, so `oneOf` refused it, and typed generators choked on it).
    rule_changes = serializers.DictField(
        child=serializers.JSONField(),
        help_text="The rules that differ from the game's preset, with their values.",
    )
    clock = ClockOutSerializer(allow_null=True)
    seats = SeatSerializer(many=True)
    seats_taken = serializers.IntegerField()
    open_seats = serializers.IntegerField()
    rated = serializers.BooleanField(help_text="A rated table.")
    hints = serializers.BooleanField(help_text="A table for learners: hints on one's turn.")
    deal_imported = serializers.BooleanField(help_text=DEAL_IMPORTED_HELP)
    created_by = serializers.CharField(help_text="The creator's display name.")
    created_at = serializers.DateTimeField()
    fill_with_bots_at = serializers.DateTimeField(allow_null=True)


# How long a new quick-match table waits for people unless the request says otherwise.
DEFAULT_FILL_WITH_BOTS_SECONDS = 60


class QuickMatchSerializer(StrictInputSerializer):
    game = StrictChoiceField(choices=GameChoice.choices)
    rules = RuleOverridesSerializer(required=False)
    deals = StrictIntegerField(min_value=1, max_value=engine.MAX_DEALS, default=4)
    rated = StrictBooleanField(
        default=False,
        help_text="A seat at a rated table (the game's default rules; `rules` must leave them "
        "as they are): only rated tables are joined.",
    )
    hints = StrictBooleanField(
        default=False,
        help_text="A seat at a table for learners (`getHint`): only such tables are joined. "
        "Never with `rated` (400 `hints_not_rated`).",
    )
    fill_with_bots_after = StrictIntegerField(
        min_value=0, max_value=3600, required=False, allow_null=True,
        default=DEFAULT_FILL_WITH_BOTS_SECONDS,
        help_text="Seconds after a new table opens when computer players take its seats still "
        f"open (default {DEFAULT_FILL_WITH_BOTS_SECONDS}); null to wait for people only.",
    )
    bot_level = StrictChoiceField(choices=BotLevel.choices, default=BotLevel.MEDIUM,
                                  help_text="Level of those computer players.")
    clock = ClockSerializer(
        required=False, allow_null=True,
        help_text="The table's turn clock; null for none. Default: "
        f"{settings.CLOCK_DEFAULT['bid']} s a call, {settings.CLOCK_DEFAULT['card']} s a card. "
        "Only tables of the same clock are joined.",
    )


class InvitationSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    code = serializers.CharField(
        help_text="Give it to the people you invite: `POST /invitations/{code}/join`."
    )
