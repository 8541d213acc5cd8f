"""The platform API under `/api/v1/platform/`: a partner platform's server, with its key."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import access, presenters
from games import services as games_services
from games.api import examples
from games.api.base import (
    MAX_PAGE,
    MatchPagination,
    TimeCursorPagination,
    errors,
    valid_input,
    valid_query,
)
from games.api.matches import MatchListQuerySerializer, match_table
from games.api.problems import problem_type
from games.models import Match
from platforms import services, webhooks
from platforms.api import serializers as ps
from platforms.authentication import PlatformKeyAuthentication, scoped
from platforms.errors import (
    DeliveryNotFound,
    InvalidExternalId,
    PlatformMatchNotFound,
    WebhookNotFound,
)
from platforms.models import (
    Platform,
    PlatformKey,
    PlatformPlayer,
    Scope,
    WebhookDelivery,
    WebhookSubscription,
)
from ratings import history
from ratings.api import player_serializers as rs
from ratings.api import players
from ratings.api.leaderboard_serializers import PageQuerySerializer
from ratings.api.leaderboards import ENTRY, GAME_PARAMETER, PLACES, LeaderboardPage, entry_body
from ratings.models import Privacy

EXTERNAL_ID = re.compile(ps.EXTERNAL_ID_PATTERN)
EXTERNAL_ID_PARAMETER = OpenApiParameter(
    "external_id", OpenApiTypes.STR, OpenApiParameter.PATH, pattern=ps.EXTERNAL_ID_PATTERN,
    description="The platform's own id of the player: 1 to 128 of A-Z a-z 0-9 `_ . : @ + -`.",
)


PLATFORM_MATCH = {**examples.MATCH, "invitation_code": None}
SUBSCRIPTION = {"id": 3, "url": "https://games.example/batak/hooks",
                "event_types": ["deal.ended", "match.finished", "turn.started"],
                "active": True, "created_at": "2026-12-01T10:00:00Z"}
DELIVERY = {"id": 41, "event_id": "msg_6f1c2d3e4b5a69788796a5b4c3d2e1f0",
            "event_type": "turn.started", "match_id": "0b7e3c52-6a43-4b8e-9d0a-3f1f7c2a9e11",
            "sequence": 12, "status": "succeeded", "attempts": 1,
            "last_status_code": 204, "last_latency_ms": 12, "last_error": "",
            "next_attempt_at": None, "delivered_at": "2026-12-01T10:02:03Z",
            "created_at": "2026-12-01T10:02:03Z"}
WEBHOOK_NOT_FOUND = OpenApiExample(
    "No such subscription", status_codes=["404"], response_only=True,
    value={"type": problem_type("not_found"), "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "Your platform has no such webhook."},
)


class PlatformEndpoint(APIView):
    authentication_classes: Sequence[type[BaseAuthentication]] = [PlatformKeyAuthentication]

    @property
    def platform(self) -> Platform:
        key = self.request.auth
        assert isinstance(key, PlatformKey)
        return key.platform


def platform_match(match: Match) -> dict[str, Any]:
    """The match's summary with the platform's external id of each seat's player."""
    summary = presenters.match_summary(match)
    users = {seat.index: seat.user_id for seat in match.seats.all()}
    assert match.circle_id is not None, "a platform's match is of its circle"
    # Keyed for lookups by a seat's user id, None for a computer or an open seat (no entry).
    ids: dict[int | None, str] = dict(
        PlatformPlayer.objects.filter(
            platform__user_id=match.circle_id, user_id__in=[u for u in users.values() if u]
        ).values_list("user_id", "external_id")
    )
    return {**summary, "players": [ids.get(users.get(index)) for index in range(4)],
            "invitation_code": match.invitation_code}


PLAYER = {"external_id": "user-42", "display_name": "Ayşe", "language": "tr",
          "created_at": "2026-12-01T10:00:00Z", "updated_at": "2026-12-02T08:30:00Z",
          "active_tokens": 1, "matches_in_play": ["6990c34b-402a-4832-b7a0-91140a5b4ddf"]}
TOKEN = {"token": "4c1f0b2e…", "token_expiry": "2026-12-01T21:21:39Z"}
PLAYER_NOT_FOUND = OpenApiExample(
    "No such player", status_codes=["404"], response_only=True,
    value={"type": problem_type("not_found"), "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "Your platform has no such player."},
)
READ_PLAYERS = scoped(Scope.PLAYERS_READ, Scope.PLAYERS_WRITE)
WRITE_PLAYERS = scoped(Scope.PLAYERS_WRITE)


def checked(external_id: str) -> str:
    if not EXTERNAL_ID.fullmatch(external_id):
        raise InvalidExternalId(field="external_id")
    return external_id


def player_body(player: PlatformPlayer) -> dict[str, Any]:
    """A player of `services.players_with_facts`, as the API shows it."""
    active_tokens, matches_in_play = services.player_facts(player)
    return {"external_id": player.external_id, "display_name": player.user.first_name,
            "language": player.language, "created_at": player.created_at,
            "updated_at": player.updated_at, "active_tokens": active_tokens,
            "matches_in_play": matches_in_play}


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


class PlatformMatchPagination(MatchPagination):
    example_path = "/api/v1/platform/matches"


class PlatformMatchesView(PlatformEndpoint, generics.GenericAPIView):
    pagination_class = PlatformMatchPagination
    serializer_class = ps.PlatformMatchSerializer

    def get_permissions(self) -> list[Any]:
        scope = Scope.MATCHES_WRITE if self.request.method == "POST" else Scope.MATCHES_READ
        return [scoped(scope)()]

    @extend_schema(
        operation_id="listPlatformMatches", tags=["platform"], summary="The platform's matches",
        description="Matches the platform created, newest first; `status` filters. Scope "
        "`matches:read`.",
        parameters=[MatchListQuerySerializer],
        responses={200: ps.PlatformMatchSerializer(many=True), **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("A match", response_only=True, status_codes=["200"],
                                 value={**PLATFORM_MATCH, "players": ["user-42", None, None,
                                                                      None]})],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(MatchListQuerySerializer, request)
        matches = Match.objects.filter(circle=self.platform.user).prefetch_related(
            "seats").order_by("-created_at")
        if "status" in query:
            matches = matches.filter(status=query["status"])
        page = self.paginate_queryset(matches)
        data = [platform_match(match) for match in page or []]
        return self.get_paginated_response(ps.PlatformMatchSerializer(data, many=True).data)

    @extend_schema(
        operation_id="createPlatformMatch", tags=["platform"], summary="Create a match",
        description=(
            "A match of the platform's players (seats by `external_id`) and computer players; "
            "it starts at once, or with `start: when_ready` once each player has posted "
            "`POST /matches/{id}/ready` (at `ready_by` at the latest). The players then play "
            "with their player tokens on the ordinary endpoints. Counted against the "
            "platform's limits (409 `too_many_matches`, `too_many_bot_deals`); an unknown "
            "player is 400 `unknown_player`. With `deal` (a deal's notation) the first deal is "
            "dealt with its cards, as `createMatch` does. Scope `matches:write`."
        ),
        request=ps.PlatformMatchInputSerializer,
        responses={201: ps.PlatformMatchSerializer, **errors(400, 401, 403, 409)},
        examples=[
            OpenApiExample(
                "Two players and two computer players", request_only=True,
                value={"game": "auction", "deals": 4, "seats": [
                    {"kind": "player", "external_id": "user-42"},
                    {"kind": "bot", "bot_level": "medium"},
                    {"kind": "player", "external_id": "user-7"},
                    {"kind": "bot", "bot_level": "hard"}]},
            ),
            OpenApiExample("The match", response_only=True, status_codes=["201"],
                           value={**PLATFORM_MATCH, "players": ["user-42", None, "user-7",
                                                                None]}),
        ],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(ps.PlatformMatchInputSerializer, request.data)
        game, rules, deal = match_table(data, request.data)
        match = services.create_match(
            platform=self.platform, game=game, rules=rules, deal=deal,
            deal_count=data["deals"], seats=data["seats"], visibility=data["visibility"],
            clock_seconds=data.get("clock", games_services.DEFAULT_CLOCK),
            ready_within=(
                data.get("ready_within", ps.READY_WITHIN_DEFAULT)
                if data["start"] == "when_ready" else None
            ),
            rated=data["rated"], hints=data["hints"],
        )
        match = Match.objects.prefetch_related("seats").get(pk=match.pk)
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data,
                        status=status.HTTP_201_CREATED)


class PlatformLeaderboardView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [READ_PLAYERS]

    @extend_schema(
        operation_id="getPlatformLeaderboard", tags=["platform"],
        summary="A game's leaderboard of the platform's players",
        description=(
            "The board your players see (`GET /leaderboards/{game}`), with your id of each: "
            "best first, 50 a page (1 to 100 with `page_size`), by cursor. " + PLACES
            + " Scope `players:read` or `players:write`."
        ),
        parameters=[GAME_PARAMETER, PageQuerySerializer],
        responses={200: ps.PlatformLeaderboardSerializer, **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("The all-time board", response_only=True, status_codes=["200"],
                                 value={"game": "auction", "season": "all", "starts": None,
                                        "results": [{**ENTRY, "external_id": "user-42"}],
                                        "next": None})],
    )
    def get(self, request: Request, game: str) -> Response:
        board = LeaderboardPage(request, game)
        ids = dict(PlatformPlayer.objects.filter(
            platform=self.platform, user_id__in=[entry.row.user_id for entry in board.entries]
        ).values_list("user_id", "external_id"))
        results = [{**entry_body(entry), "external_id": ids.get(entry.row.user_id)}
                   for entry in board.entries]
        return Response(ps.PlatformLeaderboardSerializer(board.body(results)).data)


class PlatformMatchView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_READ)]

    @extend_schema(
        operation_id="getPlatformMatch", tags=["platform"], summary="One of the platform's matches",
        description="Its seats with the players' external ids, status, totals and, once "
        "finished, the ranking. Another platform's match is 404. Scope `matches:read`.",
        responses={200: ps.PlatformMatchSerializer, **errors(401, 403, 404)},
        examples=[OpenApiExample("A finished match", response_only=True, status_codes=["200"],
                                 value={**PLATFORM_MATCH, "status": "finished",
                                        "ranking": [1, 3, 2, 4],
                                        "players": ["user-42", None, "user-7", None]})],
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
        if match is None or not access.access(match, self.platform.user).allows(
            access.Permission.MANAGE
        ):
            raise PlatformMatchNotFound()
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data)


class CancelPlatformMatchView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_WRITE)]

    @extend_schema(
        operation_id="cancelPlatformMatch", tags=["platform"], summary="Cancel a match",
        description=(
            "Calls the platform's match off. A match still waiting (for its players to be "
            "ready, or for open seats) becomes `cancelled`; a match in play stops at once as "
            "`abandoned`, its deals and log kept for review. A match already over (`finished`, "
            "`cancelled`, `abandoned`) is 409 `match_over`, its status in `match_status`: a "
            "retried cancel changes nothing and says how the match ended. Another platform's "
            "match is 404. Scope `matches:write`."
        ),
        request=None,
        responses={200: ps.PlatformMatchSerializer, **errors(401, 403, 404, 409)},
        examples=[
            OpenApiExample("Cancelled before the start", response_only=True,
                           status_codes=["200"],
                           value={**PLATFORM_MATCH, "status": "cancelled",
                                  "players": ["user-42", None, "user-7", None]}),
            OpenApiExample(
                "Already over", status_codes=["409"], response_only=True,
                value={"type": problem_type("match_over"),
                       "title": "Conflict", "status": 409, "code": "match_over",
                       "detail": "This match is already over: there is nothing left to "
                       "cancel.", "match_status": "cancelled"},
            ),
        ],
    )
    def post(self, request: Request, match_id: uuid.UUID) -> Response:
        match = services.cancel_match(platform=self.platform, match_id=match_id)
        match = Match.objects.prefetch_related("seats").get(pk=match.pk)
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data)


class WebhooksView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.WEBHOOKS_MANAGE)]

    @extend_schema(
        operation_id="listPlatformWebhooks", tags=["platform"], summary="Webhook subscriptions",
        description="The platform's subscriptions. Scope `webhooks:manage`.",
        responses={200: ps.SubscriptionSerializer(many=True), **errors(401, 403)},
        examples=[OpenApiExample("One subscription", response_only=True, status_codes=["200"],
                                 value=SUBSCRIPTION)],
    )
    def get(self, request: Request) -> Response:
        rows = WebhookSubscription.objects.filter(platform=self.platform, deleted_at__isnull=True)
        return Response(ps.SubscriptionSerializer(rows, many=True).data)

    @extend_schema(
        operation_id="createPlatformWebhook", tags=["platform"], summary="Subscribe to events",
        description=(
            "Events of the chosen types are POSTed to `url` as JSON `{type, timestamp, sequence, "
            "data}` and signed as the Standard Webhooks specification says (`webhook-id`, "
            "`webhook-timestamp`, `webhook-signature`: HMAC-SHA256 with the `secret`, shown "
            "only in this answer). A delivery is retried until the receiver answers 2xx, after "
            "5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h and 8 h (about a day), every "
            "attempt with the same `webhook-id`. A match's events come in order: while one is "
            "retried, the later ones of its match wait (`sequence` orders them). The payloads "
            "are the schema's `webhooks`. Scope `webhooks:manage`."
        ),
        request=ps.SubscriptionInputSerializer,
        responses={201: ps.NewSubscriptionSerializer, **errors(400, 401, 403)},
        examples=[OpenApiExample("Subscribed", response_only=True, status_codes=["201"],
                                 value={**SUBSCRIPTION, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILP"
                                        "ZIcEtD4Rx5"})],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(ps.SubscriptionInputSerializer, request.data)
        subscription = webhooks.subscribe(platform=self.platform, url=data["url"],
                                          event_types=data["event_types"])
        body = {**ps.SubscriptionSerializer(subscription).data, "secret": subscription.secret}
        return Response(ps.NewSubscriptionSerializer(body).data, status=status.HTTP_201_CREATED)


class WebhookEndpoint(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.WEBHOOKS_MANAGE)]

    def subscription(self, webhook_id: int, deleted: bool = False) -> WebhookSubscription:
        """The platform's subscription; a deleted one only if ``deleted`` (its log)."""
        found = WebhookSubscription.objects.filter(pk=webhook_id, platform=self.platform)
        if not deleted:
            found = found.filter(deleted_at__isnull=True)
        subscription = found.first()
        if subscription is None:
            raise WebhookNotFound()
        return subscription


def delivery_data(row: WebhookDelivery) -> dict[str, Any]:
    return {
        "id": row.pk, "event_id": row.event_id, "event_type": row.event.type,
        "match_id": row.event.match_id, "sequence": row.event.sequence,
        "status": row.status, "attempts": row.attempts,
        "last_status_code": row.last_status_code, "last_latency_ms": row.last_latency_ms,
        "last_error": row.last_error,
        "next_attempt_at": row.next_attempt_at if row.status == "pending" else None,
        "delivered_at": row.delivered_at, "created_at": row.created_at,
    }


class WebhookView(WebhookEndpoint):
    @extend_schema(
        operation_id="deletePlatformWebhook", tags=["platform"], summary="Unsubscribe",
        description="No more events are sent there: its pending deliveries are `cancelled` (an "
        "attempt under way may still arrive). Its deliveries stay readable for "
        "WEBHOOK_LOG_RETENTION_DAYS (30 days unless configured otherwise). Scope "
        "`webhooks:manage`.",
        responses={204: None, **errors(401, 403, 404)},
        examples=[WEBHOOK_NOT_FOUND],
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        webhooks.delete_subscription(self.subscription(webhook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryPagination(MatchPagination):
    page_size = 50
    example_path = "/api/v1/platform/webhooks/7/deliveries"


class DeliveryQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)


class DeliveriesView(WebhookEndpoint, generics.GenericAPIView):
    pagination_class = DeliveryPagination
    serializer_class = ps.DeliverySerializer

    @extend_schema(
        operation_id="listPlatformWebhookDeliveries", tags=["platform"],
        summary="Deliveries of a subscription",
        description="Newest first, 50 a page: status, attempts, the last response code and "
        "latency; also of a deleted subscription, for as long as its log is kept. Scope "
        "`webhooks:manage`.",
        parameters=[DeliveryQuerySerializer],
        responses={200: ps.DeliverySerializer(many=True), **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("Delivered", response_only=True, status_codes=["200"],
                                 value=DELIVERY)],
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        valid_query(DeliveryQuerySerializer, request)
        subscription = self.subscription(webhook_id, deleted=True)
        rows = subscription.deliveries.select_related("event").order_by("-created_at", "-pk")
        page = self.paginate_queryset(rows)
        data = [delivery_data(row) for row in page or []]
        return self.get_paginated_response(ps.DeliverySerializer(data, many=True).data)


class RedeliverView(WebhookEndpoint):
    @extend_schema(
        operation_id="redeliverPlatformWebhookDelivery", tags=["platform"],
        summary="Send a delivery again",
        description="One more attempt now, with the same `webhook-id`, whatever came of the "
        "earlier ones (an attempt under way is that one more). A delivery that was over is "
        "sent outside its match's order: it neither waits for nor holds back the match's live "
        "events (one still pending keeps its place). Answers the delivery. A deleted "
        "subscription's deliveries are 404. Scope `webhooks:manage`.",
        request=None,
        responses={202: ps.DeliverySerializer, **errors(401, 403, 404)},
        examples=[
            OpenApiExample("Sent again", response_only=True, status_codes=["202"],
                           value={**DELIVERY, "status": "pending", "attempts": 3,
                                  "last_status_code": 503, "last_error": "HTTP 503",
                                  "next_attempt_at": "2026-12-01T10:05:00Z",
                                  "delivered_at": None}),
            OpenApiExample(
                "No such delivery", status_codes=["404"], response_only=True,
                value={"type": problem_type("not_found"),
                       "title": "Not Found", "status": 404, "code": "not_found",
                       "detail": "This webhook of your platform has no such delivery."},
            ),
        ],
    )
    def post(self, request: Request, webhook_id: int, delivery_id: int) -> Response:
        subscription = self.subscription(webhook_id)
        delivery = subscription.deliveries.filter(pk=delivery_id).first()
        if delivery is None:
            raise DeliveryNotFound()
        delivery = webhooks.redeliver(delivery)
        return Response(ps.DeliverySerializer(delivery_data(delivery)).data,
                        status=status.HTTP_202_ACCEPTED)


class ReplayView(WebhookEndpoint):
    @extend_schema(
        operation_id="replayPlatformWebhook", tags=["platform"], summary="Replay events",
        description=(
            "Sends the platform's events created in [`since`, `until`) again to this "
            "subscription, oldest first: those of its types (or of `event_types` among them), "
            f"of `match_id` if given; at most {webhooks.REPLAY_MAX_EVENTS} a call (then "
            "`next_since` says where to go on). Each keeps its `webhook-id`, so a receiver "
            "that has it already drops it; a delivered or failed one is made pending again, "
            "with a fresh round of retries, and one still pending is left as it is (replaying "
            "twice sends nothing twice). Events are kept for WEBHOOK_LOG_RETENTION_DAYS (30 "
            "days unless configured otherwise). Answers how many were sent. Scope "
            "`webhooks:manage`."
        ),
        request=ps.ReplayInputSerializer,
        responses={202: ps.ReplaySerializer, **errors(400, 401, 403, 404)},
        examples=[
            OpenApiExample("Since the receiver went down", request_only=True,
                           value={"since": "2026-12-01T09:00:00Z",
                                  "until": "2026-12-01T10:00:00Z",
                                  "event_types": ["match.finished"]}),
            OpenApiExample("Replayed", response_only=True, status_codes=["202"],
                           value={"count": 37, "next_since": None}),
            WEBHOOK_NOT_FOUND,
        ],
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        subscription = self.subscription(webhook_id)
        data = valid_input(ps.ReplayInputSerializer, request.data)
        replayed = webhooks.replay(
            subscription, since=data["since"], until=data.get("until"),
            event_types=data.get("event_types"), match_id=data.get("match_id"),
        )
        body = {"count": replayed.count, "next_since": replayed.next_since}
        return Response(ps.ReplaySerializer(body).data, status=status.HTTP_202_ACCEPTED)

