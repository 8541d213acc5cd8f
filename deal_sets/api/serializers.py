"""The deal sets' answer and query shapes."""

from __future__ import annotations

from rest_framework import serializers

from deal_sets.models import DealSetKind
from games.api.serializers.fields import StrictChoiceField, StrictInputSerializer, card_field
from games.api.serializers.matches import deal_notation_field
from games.models import BotLevel, GameChoice, MatchStatus

MAX_RESULTS = 100
MAX_HOURS = 7 * 24


class DealSetCreateSerializer(StrictInputSerializer):
    deal = deal_notation_field(
        "One deal in Batak Deal Notation (docs/notation.md; `getDealNotation` answers one): "
        "its rules, dealer and hands are the set's; its moves, if any, must be legal and are "
        "not played. Unreadable or illegal text is 400 `invalid_deal` (with the `line`).",
        required=True,
    )
    hours = serializers.IntegerField(min_value=1, max_value=MAX_HOURS, default=24,
                                     help_text="How long the set is open to play.")
    seat = serializers.IntegerField(min_value=0, max_value=3, default=0,
                                    help_text="Where each person sits.")
    bot_level = StrictChoiceField(choices=BotLevel.choices, default=BotLevel.HARD,
                                  help_text="The computer players at the other seats.")


class RevealedSerializer(serializers.Serializer):
    deck = serializers.ListField(child=card_field(), min_length=52, max_length=52,
                                 help_text="The deck order the hands were dealt from.")
    salt = serializers.CharField(help_text="Hash `deck` (joined by spaces), `:` and this with "
                                 "SHA-256: `commitment`.")
    hands = serializers.ListField(
        child=serializers.ListField(child=card_field(), min_length=13, max_length=13),
        min_length=4, max_length=4, help_text="Each seat's 13 cards, seat 0 first.",
    )


class MyEntrySerializer(serializers.Serializer):
    match_id = serializers.UUIDField(help_text="Your table of this set.")
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    points = serializers.IntegerField(allow_null=True, help_text="Your seat's points, once over.")
    tricks = serializers.IntegerField(allow_null=True, help_text="Your seat's tricks, once over.")


class DealSetSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=DealSetKind.choices)
    game = serializers.ChoiceField(choices=GameChoice.choices)
    rules = serializers.DictField(help_text="The table rules, as a match's `rules`.")
    day = serializers.DateField(allow_null=True, help_text="The deal of the day's day (UTC).")
    dealer = serializers.IntegerField(min_value=0, max_value=3)
    seat = serializers.IntegerField(min_value=0, max_value=3, help_text="Where you sit.")
    bot_level = serializers.ChoiceField(choices=BotLevel.choices,
                                        help_text="The computer players at the other seats.")
    commitment = serializers.CharField(
        help_text="SHA-256 of the deck order and a salt, fixed before anyone played: check it "
        "against `revealed` once the set closes.",
    )
    closes_at = serializers.DateTimeField()
    closed = serializers.BooleanField()
    players = serializers.IntegerField(help_text="Tables of this set in your circle.")
    mine = MyEntrySerializer(allow_null=True, help_text="Your play of the set, if any.")
    revealed = RevealedSerializer(allow_null=True, help_text="The cards, once the set closes.")


class ResultsQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_RESULTS, default=50,
                                     help_text="How many results, best first.")


class ResultSerializer(serializers.Serializer):
    place = serializers.IntegerField(
        help_text="1 + the players with more points: a tie shares a place (1, 2, 2, 4).",
    )
    player = serializers.CharField(help_text="The username.")
    display_name = serializers.CharField()
    points = serializers.IntegerField(help_text="Their seat's points for the deal.")
    tricks = serializers.IntegerField(help_text="Their seat's tricks.")
    percent = serializers.FloatField(
        help_text="The share of the others' results this one beat, a tie counting half (as "
        "duplicate bridge's matchpoints): 100 is the best, alone.",
    )


class ResultsSerializer(serializers.Serializer):
    deal_set = serializers.UUIDField()
    closed = serializers.BooleanField()
    finished = serializers.IntegerField(help_text="People of your circle who finished it.")
    results = ResultSerializer(many=True)
