"""Input and output shapes of the platform API."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from games import engine
from games.api import serializers as s
from games.models import BotLevel, GameChoice, Visibility

EXTERNAL_ID_PATTERN = r"^[A-Za-z0-9_.:@+-]{1,128}$"


class PlayerInputSerializer(s.StrictInputSerializer):
    display_name = s.StrictRegexField(s.NAME_PATTERN, max_length=64, min_length=1)
    language = s.StrictChoiceField(
        choices=[code for code, _ in settings.LANGUAGES], required=False, default="",
        help_text="The player's language, for what is sent about them (webhooks).",
    )


class PlayerSerializer(serializers.Serializer):
    external_id = serializers.CharField()
    display_name = serializers.CharField()
    language = serializers.CharField()
    token = serializers.CharField(
        help_text="A player token for the platform's app: `Authorization: Token <token>` on "
        "the ordinary endpoints. It lapses at `token_expiry` (use does not extend it); PUT the "
        "player again for a new one."
    )
    token_expiry = serializers.DateTimeField()


class PlatformSeatSerializer(s.StrictInputSerializer):
    kind = s.StrictChoiceField(
        choices=[("player", "player"), ("bot", "bot"), ("open", "open")],
        help_text="`player`: the platform's player `external_id`; `bot`: a computer player; "
        "`open`: a seat another player may take.",
    )
    external_id = s.StrictRegexField(EXTERNAL_ID_PATTERN, required=False,
                                     help_text="Required for `player`, refused otherwise.")
    bot_level = s.StrictChoiceField(choices=BotLevel.choices, required=False,
                                    help_text="Required for `bot`, refused otherwise.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["kind"]
        if (kind == "player") != ("external_id" in attrs):
            raise serializers.ValidationError({"external_id": ["Only and always for `player`."]})
        if (kind == "bot") != ("bot_level" in attrs):
            raise serializers.ValidationError({"bot_level": ["Only and always for `bot`."]})
        return attrs


class PlatformMatchInputSerializer(s.StrictInputSerializer):
    game = s.StrictChoiceField(choices=GameChoice.choices)
    rules = s.RuleOverridesSerializer(required=False)
    deals = s.StrictIntegerField(min_value=1, max_value=engine.MAX_DEALS, default=4)
    seats = PlatformSeatSerializer(many=True, min_length=4, max_length=4)
    visibility = s.StrictChoiceField(choices=Visibility.choices, default=Visibility.PRIVATE)
    clock = s.ClockSerializer(
        required=False, allow_null=True,
        help_text="Turn clock; null for none. Default: 20 s a call and 30 s a card when more "
        "than one seat is a player's or open, none otherwise.",
    )


class PlatformMatchSerializer(s.MatchSerializer):
    players = serializers.ListField(
        child=serializers.CharField(allow_null=True), min_length=4, max_length=4,
        help_text="The external id of the platform's player at each seat (null: none).",
    )
