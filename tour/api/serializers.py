"""Output shapes of the tour's API (it takes no input beyond its paths)."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers.fields import seat_field
from games.api.serializers.matches import MatchSerializer, TableRulesSerializer
from games.models import BotLevel, GameChoice


class TableCharacterSerializer(serializers.Serializer):
    seat = seat_field()
    role = serializers.ChoiceField(
        choices=[("opponent", "opponent"), ("partner", "partner")],
        help_text="At the partnership table the character in seat 2 is your partner.",
    )
    slug = serializers.CharField()
    name = serializers.CharField()
    personality = serializers.CharField()
    bot_level = serializers.ChoiceField(choices=BotLevel.choices)


class TableProgressSerializer(serializers.Serializer):
    played = serializers.IntegerField(help_text="Finished matches at this table.")
    won = serializers.IntegerField(
        help_text="Of those, finished first (a shared first place counts)."
    )
    best_place = serializers.IntegerField(allow_null=True, help_text="Null until played.")
    best_total = serializers.IntegerField(allow_null=True, help_text="Null until played.")


class TourTableSerializer(serializers.Serializer):
    slug = serializers.CharField()
    number = serializers.IntegerField(help_text="1 (the corner café) to 5 (the city final).")
    name = serializers.CharField()
    place = serializers.CharField()
    intro = serializers.CharField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    rules = TableRulesSerializer()
    deal_count = serializers.IntegerField()
    characters = TableCharacterSerializer(many=True, help_text="Seats 1, 2 and 3; you sit in 0.")
    open = serializers.BooleanField(
        help_text="The first table is open; each other opens once the one before it is won."
    )
    progress = TableProgressSerializer()


class TourMatchSerializer(serializers.Serializer):
    table = serializers.CharField(help_text="Slug of the table the match was played at.")
    match = MatchSerializer()
    place = serializers.IntegerField(
        allow_null=True, help_text="Your place (1 to 4; tied seats share one); null until over."
    )
    won = serializers.BooleanField(allow_null=True, help_text="Finished first; null until over.")
    next_table = serializers.CharField(
        allow_null=True, help_text="The table this win opens; null otherwise (and after the final)."
    )
