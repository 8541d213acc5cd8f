"""The leaderboards' query and answer shapes."""

from __future__ import annotations

from rest_framework import serializers

from games.models import GameChoice
from ratings.leaderboards import ALL_TIME
from ratings.model import PROVISIONAL_MATCHES
from ratings.models import Period

SEASONS = [ALL_TIME, *Period.values]
MAX_PAGE_SIZE = 100
PAGE_SIZE = 50
MAX_AROUND = 50
AROUND = 10


class BoardQuerySerializer(serializers.Serializer):
    season = serializers.ChoiceField(
        choices=SEASONS, default=ALL_TIME,
        help_text="`all`: by rating, established players only; `week`, `month`: by the rating "
        "points won in the season.",
    )
    starts = serializers.DateField(
        required=False, help_text="A past season's first day (a Monday for `week`, the 1st for "
        "`month`); left out: the current season. Not with `season=all`.",
    )


class PageQuerySerializer(BoardQuerySerializer):
    page_size = serializers.IntegerField(min_value=1, max_value=MAX_PAGE_SIZE, default=PAGE_SIZE)
    cursor = serializers.CharField(
        required=False, help_text="From a `next` link; left out: the first page. One this "
        "board did not give is 400 `invalid_cursor`.",
    )


class AroundQuerySerializer(BoardQuerySerializer):
    size = serializers.IntegerField(
        min_value=1, max_value=MAX_AROUND, default=AROUND,
        help_text="How many entries above and below yours.",
    )


class LeaderboardEntrySerializer(serializers.Serializer):
    place = serializers.IntegerField(
        help_text="1 + the players with a higher rating (points): a tie shares a place, and the "
        "next place skips as many (1, 2, 2, 4).",
    )
    player = serializers.CharField(help_text="The username.")
    display_name = serializers.CharField()
    rating = serializers.IntegerField(required=False, help_text="All-time board only.")
    deviation = serializers.IntegerField(required=False, help_text="All-time board only.")
    points = serializers.IntegerField(
        required=False, help_text="Season boards only: the rating points won in the season.",
    )
    matches = serializers.IntegerField(help_text="Rated matches played (in the season).")
    wins = serializers.IntegerField(help_text="Rated matches finished first (in the season).")


class LeaderboardSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=GameChoice.choices)
    season = serializers.ChoiceField(choices=SEASONS)
    starts = serializers.DateField(allow_null=True, help_text="The season's first day; null "
                                   "for the all-time board.")
    min_rated_matches = serializers.IntegerField(
        help_text="The rated matches of this game a player needs to be on this board: "
        f"{PROVISIONAL_MATCHES} on the all-time board (a provisional rating moves too fast to "
        "rank; a new platform's board stays empty until one of its players has played as "
        "many), 1 on a season's.",
    )


class LeaderboardPageSerializer(LeaderboardSerializer):
    results = LeaderboardEntrySerializer(many=True)
    next = serializers.CharField(
        allow_null=True, help_text="The next page's path and query, relative to the server "
        "(null on the last page).",
    )


class LeaderboardAroundSerializer(LeaderboardSerializer):
    place = serializers.IntegerField(help_text="Your place.")
    results = LeaderboardEntrySerializer(
        many=True, help_text="Up to `size` entries above yours, yours, and up to `size` below.",
    )


class LeaderboardPlayerSerializer(LeaderboardSerializer, LeaderboardEntrySerializer):
    """The board and the player's entry on it."""
