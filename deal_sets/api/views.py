"""The deal sets' endpoints: the deal of the day, a set, playing it, and its results."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deal_sets import services
from deal_sets.api import serializers as ds
from deal_sets.models import DealSet
from games import selectors
from games import services as game_services
from games.api import examples
from games.api.base import (
    created_match_response,
    errors,
    example,
    signed_in,
    valid_input,
    valid_query,
)
from games.api.serializers.matches import MatchSerializer
from games.models import GameChoice

GAME_PARAMETER = OpenApiParameter(
    "game", OpenApiTypes.STR, OpenApiParameter.PATH, enum=GameChoice.values,
    description="The game whose deal of the day to read.",
)
ABOUT = (
    "A deal set is one deal that any number of people play, each at a table of their own, "
    "from the same seat against the same computer players: they choose from what their seat "
    "sees and a seed of the set, so the same plays meet the same answers at every table. "
    "Results are compared within your circle. The cards are committed when the set is made "
    "(`commitment`) and shown (`revealed`) when it closes; until then nobody sees them but at "
    "their own table, as they play: a set's table stays sealed once over (its deal records "
    "show your own hand and the cards played, its notation and analysis are 403 "
    "`cards_sealed`), staff and platforms included."
)
SET_EXAMPLE = {
    "id": "0b8f6a0e-52ad-4a3c-9f59-6f7d34d1f1a2", "kind": "daily", "game": "auction",
    "rules": {"game": "auction", "min_bid": 4}, "day": "2026-12-04", "dealer": 2, "seat": 0,
    "bot_level": "hard",
    "commitment": "3f7c1e0b5a3b9d2e4f6a8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
    "closes_at": "2026-12-05T00:00:00Z", "closed": False, "players": 41,
    "mine": None, "revealed": None,
}


def set_body(deal_set: DealSet, user: User) -> dict[str, Any]:
    entry = services.entry_of(deal_set, user)
    closed = services.is_closed(deal_set)
    revealed = None
    if closed:
        start = services.deal_start(deal_set)
        revealed = {"deck": deal_set.deck, "salt": deal_set.salt,
                    "hands": start.to_dict()["hands"]}
    return {
        "id": deal_set.pk, "kind": deal_set.kind, "game": deal_set.game, "rules": deal_set.rules,
        "day": deal_set.day, "dealer": deal_set.dealer, "seat": deal_set.seat,
        "bot_level": deal_set.bot_level, "commitment": deal_set.commitment,
        "closes_at": deal_set.closes_at, "closed": closed,
        "players": services.players(deal_set, user),
        "mine": None if entry is None else {
            "match_id": entry.match_id, "status": entry.match.status, "points": entry.points,
            "tricks": entry.tricks,
        },
        "revealed": revealed,
    }


class DailyDealSetView(APIView):
    @extend_schema(
        operation_id="getDailyDealSet", tags=["deal sets"], summary="The deal of the day",
        description=(
            "Today's deal set of a game (UTC days; it closes at midnight): one deal of the "
            "game's default rules, you at seat 0 against three Hard computer players. " + ABOUT
        ),
        parameters=[GAME_PARAMETER],
        responses={200: ds.DealSetSerializer, **errors(401, 403, 404)},
        examples=[example("Today's", SET_EXAMPLE)],
    )
    def get(self, request: Request, game: str) -> Response:
        user = signed_in(request)
        return Response(ds.DealSetSerializer(set_body(services.daily(game), user)).data)


class DealSetsView(APIView):
    @extend_schema(
        operation_id="createDealSet", tags=["deal sets"], summary="Import a deal set",
        description=(
            "A set of your own from a deal's notation, for friends, a class or a club to play "
            "and compare: open for `hours` (1 to 168), its people at `seat` against computer "
            "players of `bot_level`. You know its cards, so you cannot play it; share its id. "
            f"An account may have {services.MAX_OPEN_IMPORTED_SETS} open sets (409 "
            "`too_many_deal_sets`). Rules that may throw a deal in (`weak_hand_redeal`, "
            "`all_pass: redeal`) are refused (400 `deal_set_throw_in`): the deal dealt after it "
            "would be another. " + ABOUT
        ),
        request=ds.DealSetCreateSerializer,
        responses={201: ds.DealSetSerializer, **errors(400, 401, 403, 409)},
        examples=[OpenApiExample("Imported", value={
            **SET_EXAMPLE, "kind": "imported", "day": None, "players": 0,
            "closes_at": "2026-12-05T18:00:00Z"}, response_only=True, status_codes=["201"])],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(ds.DealSetCreateSerializer, request.data)
        user = signed_in(request)
        deal_set = services.imported(
            user, game_services.deal_from_notation(data["deal"]), hours=data["hours"],
            bot_level=data["bot_level"], seat=data["seat"],
        )
        body = ds.DealSetSerializer(set_body(deal_set, user)).data
        return Response(body, status=status.HTTP_201_CREATED)


class DealSetView(APIView):
    @extend_schema(
        operation_id="getDealSet", tags=["deal sets"], summary="A deal set",
        description=ABOUT, responses={200: ds.DealSetSerializer, **errors(401, 403, 404)},
        examples=[example("A deal set", SET_EXAMPLE)],
    )
    def get(self, request: Request, deal_set_id: str) -> Response:
        deal_set = services.get(deal_set_id)
        return Response(ds.DealSetSerializer(set_body(deal_set, signed_in(request))).data)


class PlayDealSetView(APIView):
    @extend_schema(
        operation_id="playDealSet", tags=["deal sets"], summary="Play a deal set",
        description=(
            "Your table of the set: a private match of one deal, at the set's seat, its cards "
            "dealt, its computer players at the other seats; never rated. Play it as any "
            "match. Each person plays a set once (409 `deal_set_played`), not after it closes "
            "(409 `deal_set_closed`), and not a set they imported (409 `own_deal_set`); it "
            "counts towards your unfinished matches (409 `too_many_matches`, "
            "`too_many_bot_deals`). " + ABOUT
        ),
        request=None,
        responses={201: MatchSerializer, **errors(401, 403, 404, 409)},
        examples=[OpenApiExample("Your table", value={**examples.MATCH, "deal_count": 1},
                                 response_only=True, status_codes=["201"])],
    )
    def post(self, request: Request, deal_set_id: str) -> Response:
        deal_set = services.get(deal_set_id)
        match = services.play(signed_in(request), deal_set)
        match.refresh_from_db(fields=selectors.MATCH_STATE)
        return created_match_response(match)


class DealSetResultsView(APIView):
    @extend_schema(
        operation_id="getDealSetResults", tags=["deal sets"], summary="A deal set's results",
        description=(
            "The results of your circle's people who finished the set, best first (up to "
            "`limit`), with each one's place and matchpoint percentage. Until the set closes "
            "only those who have finished it may read them (403 `deal_set_play_first`). "
            + ABOUT
        ),
        parameters=[ds.ResultsQuerySerializer],
        responses={200: ds.ResultsSerializer, **errors(400, 401, 403, 404)},
        examples=[example("Results", {
            "deal_set": SET_EXAMPLE["id"], "closed": False, "finished": 3,
            "results": [
                {"place": 1, "player": "ayse", "display_name": "Ayşe", "points": 70,
                 "tricks": 7, "percent": 100.0},
                {"place": 2, "player": "mehmet", "display_name": "Mehmet", "points": 30,
                 "tricks": 3, "percent": 25.0},
                {"place": 2, "player": "deniz", "display_name": "Deniz", "points": 30,
                 "tricks": 3, "percent": 25.0},
            ]})],
    )
    def get(self, request: Request, deal_set_id: str) -> Response:
        query = valid_query(ds.ResultsQuerySerializer, request)
        deal_set = services.get(deal_set_id)
        found, finished = services.results(deal_set, signed_in(request), query["limit"])
        body = {
            "deal_set": deal_set.pk, "closed": services.is_closed(deal_set),
            "finished": finished,
            "results": [
                {"place": result.place, "player": result.entry.user.username,
                 "display_name": result.entry.user.first_name, "points": result.entry.points,
                 "tricks": result.entry.tricks, "percent": result.percent}
                for result in found
            ],
        }
        return Response(ds.ResultsSerializer(body).data)
