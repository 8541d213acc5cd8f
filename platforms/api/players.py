"""The platform API's players: `/api/v1/platform/players...` (their accounts, tokens,
profiles and matches)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.base import (
    TimeCursorPagination,
    errors,
    valid_input,
    valid_query,
)
from games.api.problems import problem_type
from games.models import Match
from platforms import services
from platforms.api import serializers as ps
from platforms.api.base import (
    EXTERNAL_ID_PARAMETER,
    READ_PLAYERS,
    WRITE_PLAYERS,
    PlatformEndpoint,
    checked,
    player_body,
)
from platforms.models import (
    PlatformPlayer,
)
from ratings import history
from ratings.api import player_serializers as rs
from ratings.api import players
from ratings.models import Privacy

PLAYER = {"external_id": "user-42", "display_name": "Ayşe", "language": "tr",
          "created_at": "2026-12-01T10:00:00Z", "updated_at": "2026-12-02T08:30:00Z",
          "active_tokens": 1, "matches_in_play": ["6990c34b-402a-4832-b7a0-91140a5b4ddf"]}
TOKEN = {"token": "4c1f0b2e…", "token_expiry": "2026-12-01T21:21:39Z"}
PLAYER_NOT_FOUND = OpenApiExample(
    "No such player", status_codes=["404"], response_only=True,
    value={"type": problem_type("not_found"), "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "Your platform has no such player."},
)


class PlayerPagination(TimeCursorPagination):
    """Oldest first: a walk through every player sees each once, however many are created
    meanwhile (they come at the end)."""

    page_size = 50
    max_page_size = 200
    ordering = ("created_at", "pk")
    example_path = "/api/v1/platform/players"


class PlayerListQuerySerializer(ps.PlayerListQuerySerializer):
    cursor = serializers.CharField(
        required=False, help_text="From a `next` or `previous` link; left out: the first page. "
        "One this list did not give is 400 `invalid_cursor`.",
    )
    page_size = serializers.IntegerField(min_value=1, max_value=PlayerPagination.max_page_size,
                                         default=PlayerPagination.page_size)


class PlayersView(PlatformEndpoint, generics.GenericAPIView):
    permission_classes: Sequence[type[BasePermission]] = [READ_PLAYERS]
    pagination_class = PlayerPagination
    serializer_class = ps.PlatformPlayerSerializer

    @extend_schema(
        operation_id="listPlatformPlayers", tags=["platform"], summary="The platform's players",
        description=(
            "Oldest first, 50 a page (up to 200 with `page_size`), by cursor: follow `next` to "
            "the end to see every player once, even while players are created. "
            "`external_id_prefix` and `updated_since` filter. Scope `players:read` or "
            "`players:write`."
        ),
        parameters=[PlayerListQuerySerializer],
        responses={200: ps.PlatformPlayerSerializer(many=True), **errors(400, 401, 403)},
        examples=[OpenApiExample("A player", response_only=True, status_codes=["200"],
                                 value=PLAYER)],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(PlayerListQuerySerializer, request)
        players = services.list_players(
            self.platform, external_id_prefix=query.get("external_id_prefix"),
            updated_since=query.get("updated_since"),
        )
        page = self.paginate_queryset(players)
        data = [player_body(player) for player in page or []]
        return self.get_paginated_response(ps.PlatformPlayerSerializer(data, many=True).data)


class PlayerView(PlatformEndpoint):
    def get_permissions(self) -> list[Any]:
        return [(READ_PLAYERS if self.request.method == "GET" else WRITE_PLAYERS)()]

    @extend_schema(
        operation_id="getPlatformPlayer", tags=["platform"],
        summary="One of the platform's players",
        description=(
            "The player as last PUT or PATCHed, with their tokens not yet lapsed (a count: a "
            "token is shown only when issued) and the matches they sit at, waiting or in play. "
            "Another platform's player, or an unknown id, is 404. Scope `players:read` or "
            "`players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        responses={200: ps.PlatformPlayerSerializer, **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("A player", response_only=True, status_codes=["200"],
                                 value=PLAYER), PLAYER_NOT_FOUND],
    )
    def get(self, request: Request, external_id: str) -> Response:
        player = services.get_player(self.platform, checked(external_id))
        return Response(ps.PlatformPlayerSerializer(player_body(player)).data)

    @extend_schema(
        operation_id="putPlatformPlayer", tags=["platform"], summary="Create or update a player",
        description=(
            "Creates the platform's player `external_id` (201) or updates it (200), and "
            "answers a new player token for the platform's app, valid for 60 minutes and not "
            "extended by use. The whole player is sent: `display_name` always; `language`, left "
            "out, stays as it was (a new player has none). Earlier tokens keep working until "
            "they lapse, unless `revoke_others` is true. To change a player without issuing a "
            "token, or without risking creating one, PATCH; for a token alone, POST …/token. "
            "Scope `players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        request=ps.PlayerInputSerializer,
        responses={200: ps.PlayerSerializer, 201: ps.PlayerSerializer,
                   **errors(400, 401, 403)},
        examples=[OpenApiExample("A player", response_only=True, status_codes=["200", "201"],
                                 value={"external_id": "user-42", "display_name": "Ayşe",
                                        "language": "tr", **TOKEN})],
    )
    def put(self, request: Request, external_id: str) -> Response:
        checked(external_id)
        data = valid_input(ps.PlayerInputSerializer, request.data)
        issued = services.put_player(
            platform=self.platform, external_id=external_id,
            display_name=data["display_name"], language=data.get("language"),
            revoke_others=data["revoke_others"],
        )
        body = {"external_id": external_id, "display_name": issued.player.user.first_name,
                "language": issued.player.language, "token": issued.token,
                "token_expiry": issued.expiry}
        return Response(ps.PlayerSerializer(body).data,
                        status=status.HTTP_201_CREATED if issued.created else status.HTTP_200_OK)

    @extend_schema(
        operation_id="patchPlatformPlayer", tags=["platform"], summary="Change a player",
        description=(
            "Changes what is sent of an existing player, leaving the rest as it was; issues no "
            "token and never creates a player (an unknown id is 404, where PUT would create "
            "it). A name changed takes effect at the seats taken from then on: a match keeps "
            "the name each seat was taken with. Scope `players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        request=ps.PlayerChangesSerializer,
        responses={200: ps.PlatformPlayerSerializer, **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("A new name", request_only=True,
                                 value={"display_name": "Ayşe K."}),
                  OpenApiExample("The player", response_only=True, status_codes=["200"],
                                 value={**PLAYER, "display_name": "Ayşe K."}),
                  PLAYER_NOT_FOUND],
    )
    def patch(self, request: Request, external_id: str) -> Response:
        checked(external_id)
        data = valid_input(ps.PlayerChangesSerializer, request.data)
        player = services.patch_player(
            platform=self.platform, external_id=external_id,
            display_name=data.get("display_name"), language=data.get("language"),
        )
        return Response(ps.PlatformPlayerSerializer(player_body(player)).data)

    @extend_schema(
        operation_id="deletePlatformPlayer", tags=["platform"], summary="Erase a player",
        description=(
            "The player is erased: every token of theirs stops at once; at each match waiting "
            "or in play they leave, as a person leaving does (in play a computer player takes "
            "the seat to the end, or the match is abandoned where leaving forfeits or nobody "
            "is left, but a rated one is finished as it stands and rated; a waiting seat "
            "opens again, or, at a match that waits for its players "
            "to be ready, a computer player takes it); their name becomes `Former player` "
            "everywhere, in finished matches too, and their account can never be used again. "
            "The external id is free: a later PUT of it makes a new player. Kept, under the "
            "neutral name: the moves and results of the matches they played, which are the "
            "other players' history too. An unknown id (one erased already) is 404. Scope "
            "`players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        responses={204: None, **errors(400, 401, 403, 404)},
        examples=[PLAYER_NOT_FOUND],
    )
    def delete(self, request: Request, external_id: str) -> Response:
        services.erase_player(platform=self.platform, external_id=checked(external_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerTokenView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [WRITE_PLAYERS]

    @extend_schema(
        operation_id="refreshPlatformPlayerToken", tags=["platform"],
        summary="A new token for a player",
        description=(
            "A new player token (60 minutes, not extended by use) of an existing player, "
            "changing nothing else of theirs. With `revoke_others` true it becomes their only "
            "one (a player's app signed in elsewhere stops at once); by default earlier tokens "
            "keep working until they lapse. The body may be left out. An unknown id is 404. "
            "Scope `players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        request=ps.NewTokenSerializer,
        responses={201: ps.PlayerTokenSerializer, **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("Only this one", request_only=True,
                                 value={"revoke_others": True}),
                  OpenApiExample("The token", response_only=True, status_codes=["201"],
                                 value=TOKEN),
                  PLAYER_NOT_FOUND],
    )
    def post(self, request: Request, external_id: str) -> Response:
        checked(external_id)
        data = valid_input(ps.NewTokenSerializer, request.data)
        token, expiry = services.refresh_token(
            platform=self.platform, external_id=external_id,
            revoke_others=data["revoke_others"],
        )
        return Response(ps.PlayerTokenSerializer({"token": token, "token_expiry": expiry}).data,
                        status=status.HTTP_201_CREATED)


class PlayerTokensView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [WRITE_PLAYERS]

    @extend_schema(
        operation_id="revokePlatformPlayerTokens", tags=["platform"],
        summary="Revoke a player's tokens",
        description=(
            "Every token of the player stops at once (401 on its next request); the player "
            "stays, and PUT or POST …/token issues a new one. An unknown id is 404. Scope "
            "`players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        responses={204: None, **errors(400, 401, 403, 404)},
        examples=[PLAYER_NOT_FOUND],
    )
    def delete(self, request: Request, external_id: str) -> Response:
        services.revoke_tokens(platform=self.platform, external_id=checked(external_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerProfileView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [READ_PLAYERS]

    @extend_schema(
        operation_id="getPlatformPlayerProfile", tags=["platform"],
        summary="A player's ratings and statistics",
        description=(
            "As `GET /players/{username}` answers it, whatever the player's privacy (they are "
            "your platform's): per game their rating among your platform's players (null until "
            "rated) and their statistics over every finished match (docs/ratings.md). An "
            "unknown id is 404. Scope `players:read` or `players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        responses={200: rs.ProfileSerializer, **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("A player", response_only=True, status_codes=["200"],
                                 value={**players.PROFILE, "username": "player-5f0c…",
                                        "display_name": "Ayşe"}),
                  PLAYER_NOT_FOUND],
    )
    def get(self, request: Request, external_id: str) -> Response:
        user = services.player_account(self.platform, checked(external_id))
        return Response(rs.ProfileSerializer(history.profile(user, Privacy(user=user))).data)


class PlayerMatchPagination(players.MatchPagination):
    example_path = "/api/v1/platform/players/user-42/matches"


class PlayerMatchesView(PlatformEndpoint, generics.GenericAPIView):
    permission_classes: Sequence[type[BasePermission]] = [READ_PLAYERS]
    pagination_class = PlayerMatchPagination
    serializer_class = ps.PlatformPlayedMatchSerializer

    @extend_schema(
        operation_id="listPlatformPlayerMatches", tags=["platform"],
        summary="A player's finished matches",
        description=(
            "As `GET /players/{username}/matches` answers it, whatever the player's privacy, "
            "with your platform's ids of the other seats' players: newest first, 20 a page (up "
            "to 100 with `page_size`), by cursor; `game` and `rated` filter. An unknown id is "
            "404. Scope `players:read` or `players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER, players.MatchesQuerySerializer],
        responses={200: ps.PlatformPlayedMatchSerializer(many=True),
                   **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("A rated match", response_only=True, status_codes=["200"],
                                 value={**players.PLAYED_MATCH, "others": [
                                     {"seat": other["seat"],
                                      "display_name": other["display_name"],
                                      "external_id": "user-7" if other["username"] else None,
                                      "bot_level": other["bot_level"]}
                                     for other in players.PLAYED_MATCH["others"]]}),
                  PLAYER_NOT_FOUND],
    )
    def get(self, request: Request, external_id: str) -> Response:
        query = valid_query(players.MatchesQuerySerializer, request)
        user = services.player_account(self.platform, checked(external_id))
        matches = history.finished_matches(
            user, Privacy(user=user), game=query.get("game"), rated=query.get("rated"))
        page = self.paginate_queryset(matches) or []
        ids: dict[int | None, str] = dict(PlatformPlayer.objects.filter(
            platform=self.platform,
            user_id__in={seat.user_id for row in page for seat in row.match.seats.all()},
        ).values_list("user_id", "external_id"))
        data = [_with_external_ids(row.match, history.match_line(row), ids) for row in page]
        return self.get_paginated_response(
            ps.PlatformPlayedMatchSerializer(data, many=True).data)


def _with_external_ids(
    match: Match, line: dict[str, Any], ids: dict[int | None, str]
) -> dict[str, Any]:
    """A match of a player's history with the other seats' players named by their external
    ids, rather than by usernames."""
    users = {seat.index: seat.user_id for seat in match.seats.all()}
    others = [{"seat": other["seat"], "display_name": other["display_name"],
               "external_id": ids.get(users[other["seat"]]), "bot_level": other["bot_level"]}
              for other in line["others"]]
    return {**line, "others": others}
