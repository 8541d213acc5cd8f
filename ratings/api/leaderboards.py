"""The leaderboards' endpoints: a board's pages by cursor, the board around me, one player.
Each reads the board of the caller's circle (games/circles.py)."""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import parse_qsl, urlencode

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from games.api.base import errors, example, path_and_query, signed_in, valid_query
from games.api.problems import problem_type
from games.errors import InvalidCursor
from games.models import GameChoice
from ratings import leaderboards
from ratings.api import leaderboard_serializers as rs
from ratings.leaderboards import ALL_TIME, Board, Entry, Key
from ratings.model import PROVISIONAL_MATCHES
from ratings.models import Rating

# The database's integer range (a score, a user id): a cursor beyond it is not one we gave.
_INT_RANGE = range(-(2**31), 2**31)

GAME_PARAMETER = OpenApiParameter(
    "game", OpenApiTypes.STR, OpenApiParameter.PATH, enum=GameChoice.values,
    description="The game whose board to read.",
)
USERNAME_PARAMETER = OpenApiParameter(
    "username", OpenApiTypes.STR, OpenApiParameter.PATH, description="The player's username.",
)
ENTRY = {"place": 1, "player": "ayse", "display_name": "Ayşe", "rating": 1712,
         "deviation": 71, "matches": 64, "wins": 23}
NOT_ON_BOARD = OpenApiExample(
    "Provisional", status_codes=["404"], response_only=True,
    value={"type": problem_type("not_on_leaderboard"), "title": "Not Found",
           "status": 404, "code": "not_on_leaderboard",
           "detail": "Your rating is on this leaderboard once you have played 10 rated matches "
           "of this game; 3 to go."},
)
PLACES = (
    "Places are standard competition ranking: 1 + the players with a higher rating (points), "
    "so a tie shares a place and the next place skips as many (1, 2, 2, 4); within a tie the "
    "older account comes first. The all-time board ranks by rating and lists established "
    f"players only ({PROVISIONAL_MATCHES} rated matches or more: a provisional rating moves "
    "too fast to rank); a "
    "season's board (`season` week or month, the current one unless `starts` names a past "
    "one) ranks by the rating points won in it and lists everyone who played a rated match "
    "in it. You see your circle's boards: a partner platform's players see their platform's "
    "players only, everyone else the people of no platform."
)


def encode_cursor(key: Key) -> str:
    return base64.urlsafe_b64encode(
        urlencode({"s": key.score, "u": key.user_id}).encode()
    ).decode()


def decode_cursor(cursor: str) -> Key:
    """The key a `next` link holds; InvalidCursor for anything else."""
    try:
        fields = dict(parse_qsl(base64.urlsafe_b64decode(cursor.encode()).decode(),
                                strict_parsing=True))
        key = Key(int(fields["s"]), int(fields["u"]))
    except (binascii.Error, UnicodeError, ValueError, KeyError):
        raise InvalidCursor(field="cursor") from None
    if key.score not in _INT_RANGE or key.user_id not in _INT_RANGE:
        raise InvalidCursor(field="cursor")
    return key


def entry_body(entry: Entry) -> dict[str, Any]:
    row = entry.row
    body = {"place": entry.place, "player": row.user.username,
            "display_name": row.user.first_name}
    if isinstance(row, Rating):
        body.update(rating=row.rating, deviation=row.deviation)
    else:
        body.update(points=row.points)
    return {**body, "matches": row.matches, "wins": row.wins}


def board_body(board: Board) -> dict[str, Any]:
    return {"game": board.game, "season": board.period or ALL_TIME, "starts": board.starts,
            "min_rated_matches": 1 if board.period else PROVISIONAL_MATCHES}


def board_of(request: Request, game: str, query: dict[str, Any]) -> Board:
    return leaderboards.board(signed_in(request), game, query["season"], query.get("starts"))


class LeaderboardPage:
    """A page of a board, with entries as ``entry_body`` makes them (a subclass may add to
    them) and the relative link to the next page, as the API's other cursor lists give it."""

    def __init__(self, request: Request, game: str) -> None:
        query = valid_query(rs.PageQuerySerializer, request)
        after = decode_cursor(query["cursor"]) if "cursor" in query else None
        self.board = board_of(request, game, query)
        self.entries, key = leaderboards.page(self.board, query["page_size"], after)
        self.next = None if key is None else path_and_query(
            replace_query_param(request.build_absolute_uri(), "cursor", encode_cursor(key))
        )

    def body(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        return {**board_body(self.board), "results": results, "next": self.next}


class LeaderboardView(APIView):
    @extend_schema(
        operation_id="getLeaderboard", tags=["leaderboards"], summary="A game's leaderboard",
        description=(
            "Best first, 50 a page (1 to 100 with `page_size`), by cursor: follow `next` to "
            "the end to see each entry once, however many tie. " + PLACES + " A `starts` that "
            "is no season's first day, or with `season=all`, is 400 `invalid_season_start`; an "
            "unknown game 404 `not_found`."
        ),
        parameters=[GAME_PARAMETER, rs.PageQuerySerializer],
        responses={200: rs.LeaderboardPageSerializer, **errors(400, 401, 403, 404)},
        examples=[example("The all-time board", {
            "game": "auction", "season": "all", "starts": None, "min_rated_matches": 10,
            "results": [ENTRY, {**ENTRY, "place": 2, "player": "mehmet",
                                "display_name": "Mehmet", "rating": 1690}],
            "next": "/api/v1/leaderboards/auction?cursor=cz0xNjkwJnU9NDI%3D"})],
    )
    def get(self, request: Request, game: str) -> Response:
        board = LeaderboardPage(request, game)
        results = [entry_body(entry) for entry in board.entries]
        return Response(rs.LeaderboardPageSerializer(board.body(results)).data)


class AroundMeView(APIView):
    @extend_schema(
        operation_id="getLeaderboardAroundMe", tags=["leaderboards"],
        summary="My place on a game's leaderboard",
        description=(
            "Your entry with up to `size` entries (1 to 50, default 10) above and below it, "
            "and your place. " + PLACES + " Not on the board (never rated in this game or "
            "season, or still provisional on the all-time board: the sentence says how many "
            "rated matches are to go): 404 `not_on_leaderboard`."
        ),
        parameters=[GAME_PARAMETER, rs.AroundQuerySerializer],
        responses={200: rs.LeaderboardAroundSerializer, **errors(400, 401, 403, 404)},
        examples=[example("Around me", {
            "game": "auction", "season": "all", "starts": None, "min_rated_matches": 10,
            "place": 2,
            "results": [ENTRY, {**ENTRY, "place": 2, "player": "mehmet",
                                "display_name": "Mehmet", "rating": 1690}]}),
            NOT_ON_BOARD],
    )
    def get(self, request: Request, game: str) -> Response:
        query = valid_query(rs.AroundQuerySerializer, request)
        board = board_of(request, game, query)
        entries, own = leaderboards.around(board, signed_in(request).pk, query["size"])
        body = {**board_body(board), "place": own.place,
                "results": [entry_body(entry) for entry in entries]}
        return Response(rs.LeaderboardAroundSerializer(body).data)


class PlayerEntryView(APIView):
    @extend_schema(
        operation_id="getLeaderboardEntry", tags=["leaderboards"],
        summary="A player's place on a game's leaderboard",
        description=(
            "The player's entry and place. " + PLACES + " A player not on the board, or not "
            "of your circle, is 404 `not_on_leaderboard`."
        ),
        parameters=[GAME_PARAMETER, USERNAME_PARAMETER, rs.BoardQuerySerializer],
        responses={200: rs.LeaderboardPlayerSerializer, **errors(400, 401, 403, 404)},
        examples=[example("A player", {"game": "auction", "season": "all", "starts": None,
                                       "min_rated_matches": 10, **ENTRY})],
    )
    def get(self, request: Request, game: str, username: str) -> Response:
        query = valid_query(rs.BoardQuerySerializer, request)
        board = board_of(request, game, query)
        entry = leaderboards.player(board, username)
        body = {**board_body(board), **entry_body(entry)}
        return Response(rs.LeaderboardPlayerSerializer(body).data)
