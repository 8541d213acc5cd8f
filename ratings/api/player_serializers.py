"""Players' profiles, finished matches and rating histories, as the API shows them
(ratings/history.py makes their bodies)."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers.fields import StrictBooleanField, StrictInputSerializer
from games.models import BotLevel, GameChoice


class RatingSerializer(serializers.Serializer):
    rating = serializers.IntegerField()
    deviation = serializers.IntegerField()
    provisional = serializers.BooleanField(
        help_text="Fewer rated matches than it takes to be on the leaderboards."
    )
    matches = serializers.IntegerField(help_text="Rated matches played.")
    wins = serializers.IntegerField(help_text="Rated matches finished first.")


class StatisticsSerializer(serializers.Serializer):
    matches = serializers.IntegerField(help_text="Finished matches, rated or casual.")
    wins = serializers.IntegerField(help_text="Of those, finished first.")
    deals = serializers.IntegerField(help_text="Finished deals of those matches.")
    points = serializers.IntegerField(help_text="Points scored in those deals.")
    declared = serializers.IntegerField(
        help_text="Contracts: deals won at auction, and in Koz Maça deals announced."
    )
    made = serializers.IntegerField(help_text="Contracts made.")
    batak = serializers.IntegerField(
        help_text="Deals gone batak: the seat's side failed its contract or announcement, or "
        "the seat took no trick as a defender."
    )
    win_percent = serializers.FloatField(allow_null=True, help_text="100 wins / matches.")
    average_points = serializers.FloatField(allow_null=True, help_text="points / deals.")
    made_percent = serializers.FloatField(allow_null=True, help_text="100 made / declared.")
    batak_percent = serializers.FloatField(allow_null=True, help_text="100 batak / deals.")


class GameProfileSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=GameChoice.choices)
    rating = RatingSerializer(allow_null=True, help_text="Null: not rated in this game yet.")
    statistics = StatisticsSerializer(
        allow_null=True, help_text="Null when the player hides them (`statistics_hidden`)."
    )


class ProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    joined = serializers.DateTimeField()
    statistics_hidden = serializers.BooleanField(
        help_text="The player shows their statistics to nobody else."
    )
    history_hidden = serializers.BooleanField(
        help_text="The player shows their finished matches to nobody else."
    )
    games = GameProfileSerializer(many=True)


class OtherSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    display_name = serializers.CharField(
        help_text="As the seat was taken; `A player` for a person who keeps their matches "
        "private (to all but the player and themselves).",
    )
    username = serializers.CharField(
        allow_null=True, help_text="Null for a computer player, and for a person who keeps "
        "their matches private (`display_name` `A player`).",
    )
    bot_level = serializers.ChoiceField(choices=BotLevel.choices, allow_null=True)


class RatingChangeSerializer(serializers.Serializer):
    before = serializers.IntegerField()
    after = serializers.IntegerField()
    delta = serializers.IntegerField()


class PlayedMatchFields(serializers.Serializer):
    # A match of a player's history but its other seats, which the people's API and the
    # platform API name differently.
    id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    finished_at = serializers.DateTimeField()
    deal_count = serializers.IntegerField()
    rated = serializers.BooleanField()
    seat = serializers.IntegerField(help_text="The player's seat, 0 to 3.")
    place = serializers.IntegerField(
        help_text="1-based, shared on a tie; in a rated match as rated (a leaver last)."
    )
    score = serializers.IntegerField(help_text="The seat's total.")
    rating_change = RatingChangeSerializer(allow_null=True, help_text="Null: a casual match.")


class PlayedMatchSerializer(PlayedMatchFields):
    others = OtherSeatSerializer(many=True)


class RatingPointSerializer(serializers.Serializer):
    match_id = serializers.UUIDField(
        allow_null=True, help_text="Null when the player hides their match history.",
    )
    rating = serializers.IntegerField(help_text="After the match.")
    deviation = serializers.IntegerField(help_text="After the match.")
    delta = serializers.IntegerField()
    place = serializers.IntegerField(
        allow_null=True, help_text="Null when the player hides their match history.",
    )
    at = serializers.DateTimeField()


class PrivacySerializer(serializers.Serializer):
    history_public = serializers.BooleanField(
        help_text="Others may list your finished matches, and see your name in other players' "
        "lists of theirs (default true)."
    )
    statistics_public = serializers.BooleanField(
        help_text="Others may see your statistics (default true)."
    )


class PrivacyChangesSerializer(StrictInputSerializer):
    history_public = StrictBooleanField(required=False)
    statistics_public = StrictBooleanField(required=False)
