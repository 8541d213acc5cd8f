"""Players' pages: profile, finished matches and rating history by username (`me`: yours),
and your privacy setting. Signed in only; another circle's people are not found."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.base import (
    TimeCursorPagination,
    errors,
    example,
    signed_in,
    valid_input,
    valid_query,
)
from games.api.problems import problem_type
from games.models import GameChoice
from ratings import history
from ratings.api import player_serializers as rs

USERNAME = OpenApiParameter(
    "username", OpenApiTypes.STR, OpenApiParameter.PATH,
    description="The player's username, in any case; `me` for yours.",
)
PLAYER_NOT_FOUND = OpenApiExample(
    "No such player", status_codes=["404"], response_only=True,
    value={"type": problem_type("not_found"), "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "No such player."},
)
HISTORY_HIDDEN = OpenApiExample(
    "Hidden", status_codes=["403"], response_only=True,
    value={"type": problem_type("history_hidden"), "title": "Forbidden",
           "status": 403, "code": "history_hidden",
           "detail": "This player keeps their match history private."},
)
STATISTICS = {"matches": 12, "wins": 4, "deals": 48, "points": 1210, "declared": 14,
              "made": 10, "batak": 9, "win_percent": 33.3, "average_points": 25.21,
              "made_percent": 71.4, "batak_percent": 18.8}
PROFILE = {
    "username": "ayse", "display_name": "Ayşe", "joined": "2026-11-02T18:00:00Z",
    "statistics_hidden": False, "history_hidden": False,
    "games": [
        {"game": "auction", "rating": {"rating": 1562, "deviation": 141, "provisional": False,
                                       "matches": 11, "wins": 4}, "statistics": STATISTICS},
        {"game": "partnership", "rating": None, "statistics": {
            **dict.fromkeys(("matches", "wins", "deals", "points", "declared", "made",
                             "batak"), 0),
            **dict.fromkeys(("win_percent", "average_points", "made_percent",
                             "batak_percent"), None)}},
    ],
}
PLAYED_MATCH: dict[str, Any] = {
    "id": "0b7e3c52-6a43-4b8e-9d0a-3f1f7c2a9e11", "game": "auction",
    "finished_at": "2026-12-03T20:41:07Z", "deal_count": 4, "rated": True, "seat": 0,
    "place": 1, "score": 320,
    "others": [
        {"seat": 1, "display_name": "Easy", "username": None, "bot_level": "easy"},
        {"seat": 2, "display_name": "Ali", "username": "ali", "bot_level": None},
        {"seat": 3, "display_name": "Hard", "username": None, "bot_level": "hard"},
    ],
    "rating_change": {"before": 1540, "after": 1562, "delta": 22},
}
RATING_POINT = {"match_id": "0b7e3c52-6a43-4b8e-9d0a-3f1f7c2a9e11", "rating": 1562,
                "deviation": 141, "delta": 22, "place": 1, "at": "2026-12-03T20:41:07Z"}


class NewestFirstPagination(TimeCursorPagination):
    """Newest first (a list names its `ordering`): a walk sees each row once while new ones
    arrive (they come before it)."""

    page_size = 20
    max_page_size = 100
    example_path = "/api/v1/players/ayse/matches"


class MatchPagination(NewestFirstPagination):
    ordering = ("-finished_at", "-match_id")  # the index `played_newest`


class RatingPagination(NewestFirstPagination):
    page_size = 50
    max_page_size = 200
    ordering = ("-created_at", "-id")  # the index `rating_history`
    example_path = "/api/v1/players/ayse/ratings/auction"


class PageQuerySerializer(serializers.Serializer):
    cursor = serializers.CharField(
        required=False, help_text="From a `next` or `previous` link; left out: the first page. "
        "One this list did not give is 400 `invalid_cursor`.",
    )


class MatchesQuerySerializer(PageQuerySerializer):
    game = serializers.ChoiceField(choices=GameChoice.choices, required=False)
    rated = serializers.BooleanField(required=False, help_text="Only rated, or only casual.")
    page_size = serializers.IntegerField(min_value=1, max_value=MatchPagination.max_page_size,
                                         default=MatchPagination.page_size)


class RatingsQuerySerializer(PageQuerySerializer):
    page_size = serializers.IntegerField(min_value=1, max_value=RatingPagination.max_page_size,
                                         default=RatingPagination.page_size)


class GameSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=GameChoice.choices)


class PlayerView(APIView):
    @extend_schema(
        operation_id="getPlayer", tags=["players"], summary="A player's profile",
        description=(
            "Name, when they joined, and per game their rating (null until rated) and "
            "statistics over every finished match, rated or casual (docs/ratings.md gives "
            "each number's definition; a rate of nothing is null). Statistics are null, and "
            "`statistics_hidden` true, when the player hides them from others. A player of "
            "another circle (a partner platform's, or not) is 404, as an unknown one is."
        ),
        parameters=[USERNAME],
        responses={200: rs.ProfileSerializer, **errors(401, 404)},
        examples=[example("A player", PROFILE), PLAYER_NOT_FOUND],
    )
    def get(self, request: Request, username: str) -> Response:
        requester = signed_in(request)
        user = history.find_player(requester, username)
        body = history.profile(user, history.shows(requester, user))
        return Response(rs.ProfileSerializer(body).data)


class PlayerMatchesView(generics.GenericAPIView):
    pagination_class = MatchPagination
    serializer_class = rs.PlayedMatchSerializer

    @extend_schema(
        operation_id="listPlayerMatches", tags=["players"], summary="A player's finished matches",
        description=(
            "Newest first, 20 a page (up to 100 with `page_size`), by cursor: follow `next`. "
            "`game` and `rated` filter. Each with the player's seat, place and score, the "
            "other seats (a person who keeps their own matches private as `A player`, with no "
            "username, to all but the player and themselves), and for a rated match the "
            "player's rating change. 403 "
            "`history_hidden` when the player hides their matches from others; 404 for an "
            "unknown player or one of another circle."
        ),
        parameters=[USERNAME, MatchesQuerySerializer],
        responses={200: rs.PlayedMatchSerializer(many=True), **errors(400, 401, 403, 404)},
        examples=[example("A rated match", PLAYED_MATCH), PLAYER_NOT_FOUND, HISTORY_HIDDEN],
    )
    def get(self, request: Request, username: str) -> Response:
        query = valid_query(MatchesQuerySerializer, request)
        requester = signed_in(request)
        user = history.find_player(requester, username)
        matches = history.finished_matches(
            user, history.shows(requester, user), game=query.get("game"),
            rated=query.get("rated"),
        )
        page = self.paginate_queryset(matches) or []
        unnamed = history.unnamed(requester, user, page)
        data = [history.match_line(row, unnamed) for row in page]
        return self.get_paginated_response(rs.PlayedMatchSerializer(data, many=True).data)


class PlayerRatingsView(generics.GenericAPIView):
    pagination_class = RatingPagination
    serializer_class = rs.RatingPointSerializer

    @extend_schema(
        operation_id="listPlayerRatings", tags=["players"], summary="A player's rating history",
        description=(
            "The player's rating after each rated match of `game`, newest first, 50 a page "
            "(up to 200 with `page_size`), by cursor: follow `next`. Public, as ratings are; "
            "but of a player who hides their match history, each point's `match_id` and `place` "
            "are null to anyone else. An unknown game is 400; an unknown player, or "
            "one of another circle, 404."
        ),
        parameters=[
            USERNAME,
            OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH,
                             enum=GameChoice.values),
            RatingsQuerySerializer,
        ],
        responses={200: rs.RatingPointSerializer(many=True), **errors(400, 401, 404)},
        examples=[example("After a win", RATING_POINT), PLAYER_NOT_FOUND],
    )
    def get(self, request: Request, username: str, game: str) -> Response:
        game = valid_input(GameSerializer, {"game": game})["game"]
        valid_query(RatingsQuerySerializer, request)
        user = history.find_player(signed_in(request), username)
        page = self.paginate_queryset(history.rating_history(user, game)) or []
        requester = signed_in(request)
        with_match = user.pk == requester.pk or history.privacy_of(user).history_public
        data = [history.rating_line(change, with_match=with_match) for change in page]
        return self.get_paginated_response(rs.RatingPointSerializer(data, many=True).data)


class PrivacyView(APIView):
    @extend_schema(
        operation_id="getPrivacy", tags=["players"], summary="My privacy",
        description=(
            "Whether others may see your finished matches and your statistics. Both are "
            "public until you hide them; with your matches hidden, another player's list of "
            "matches shows you as `A player`, with no username, to all but them and you. Your "
            "rating and its history are always public (they are on the leaderboards), and you "
            "always see all of yours."
        ),
        responses={200: rs.PrivacySerializer, **errors(401)},
        examples=[example("The defaults", {"history_public": True, "statistics_public": True})],
    )
    def get(self, request: Request) -> Response:
        privacy = history.privacy_of(signed_in(request))
        return Response(rs.PrivacySerializer(privacy).data)

    @extend_schema(
        operation_id="patchPrivacy", tags=["players"], summary="Change my privacy",
        description="Changes what is sent, leaving the rest as it was; answers the setting.",
        request=rs.PrivacyChangesSerializer,
        responses={200: rs.PrivacySerializer, **errors(400, 401)},
        examples=[
            OpenApiExample("Hide my matches", request_only=True, value={"history_public": False}),
            example("Matches hidden", {"history_public": False, "statistics_public": True}),
        ],
    )
    def patch(self, request: Request) -> Response:
        changes = valid_input(rs.PrivacyChangesSerializer, request.data)
        privacy = history.set_privacy(signed_in(request), **changes)
        return Response(rs.PrivacySerializer(privacy).data)
