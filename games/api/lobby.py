"""The lobby of public tables, and quick match."""

from __future__ import annotations

import logging

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import circles, engine, presenters, seating, selectors
from games.api import examples
from games.api.base import (
    MAX_PAGE,
    MatchPagination,
    errors,
    example,
    signed_in,
    valid_input,
    valid_query,
)
from games.api.serializers.fields import DIRECTIONS, SCORINGS
from games.api.serializers.matches import (
    JoinedSerializer,
    LobbyTableSerializer,
    QuickMatchSerializer,
)
from games.api.tables import joined_response
from games.models import GameChoice

logger = logging.getLogger(__name__)


class LobbyQuerySerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=GameChoice.choices, required=False)
    deals = serializers.IntegerField(min_value=1, max_value=engine.MAX_DEALS, required=False)
    preset = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="true: only tables with the game's preset rules; false: only changed ones.",
    )
    min_bid = serializers.IntegerField(min_value=4, max_value=8, required=False)
    direction = serializers.ChoiceField(choices=DIRECTIONS, required=False)
    scoring = serializers.ChoiceField(choices=SCORINGS, required=False)
    partnership_dummy = serializers.BooleanField(required=False, allow_null=True, default=None)
    spades_announcements = serializers.BooleanField(required=False, allow_null=True,
                                                    default=None)
    weak_hand_redeal = serializers.BooleanField(required=False, allow_null=True, default=None)
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=MatchPagination.max_page_size,
        default=MatchPagination.page_size,
    )


RULE_FILTERS = ("min_bid", "direction", "scoring", "partnership_dummy", "spades_announcements",
                "weak_hand_redeal")


class LobbyPagination(MatchPagination):
    example_path = "/api/v1/lobby"


@extend_schema(tags=["tables"])
class LobbyView(generics.GenericAPIView):
    pagination_class = LobbyPagination
    serializer_class = LobbyTableSerializer

    @extend_schema(
        operation_id="listLobby", summary="Open public tables",
        description=(
            "Public matches with a seat to take, oldest first, `page_size` a page, filtered by "
            "game, deals and table rules. A partner platform's player sees only their "
            "platform's tables, and nobody else sees them. Join one with "
            "`POST /matches/{id}/join`, or let `POST /quick-match` choose."
        ),
        parameters=[LobbyQuerySerializer],
        responses={200: LobbyTableSerializer(many=True), **errors(400, 401, 404)},
        examples=[example("A table waiting", examples.LOBBY_TABLE)],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(LobbyQuerySerializer, request)
        tables = selectors.lobby(
            circle=circles.circle_of(signed_in(request)), game=query.get("game"),
            deals=query.get("deals"), preset=query["preset"],
            rules={name: query[name] for name in RULE_FILTERS if query.get(name) is not None},
        )
        page = self.paginate_queryset(tables)
        data = [presenters.lobby_entry(match) for match in page or []]
        return self.get_paginated_response(LobbyTableSerializer(data, many=True).data)


class QuickMatchView(APIView):
    @extend_schema(
        operation_id="quickMatch", tags=["tables"], summary="Quick match",
        description=(
            "A seat at the oldest public table of this game, rules and deals that has one "
            "open, or at a new public table of yours. A partner platform's player is matched "
            "only with the same platform's players, and anyone else never with them. A new "
            "table's open seats go to computer players of `bot_level` after "
            "`fill_with_bots_after` seconds (null: wait for people only). Asking again while "
            "your table waits answers the same seat. New tables count towards your account's "
            "limits as created matches do."
        ),
        request=QuickMatchSerializer,
        responses={200: JoinedSerializer, **errors(400, 401, 403, 409)},
        examples=[OpenApiExample("Koz Maça, bots after 30 s", request_only=True,
                                 value={"game": "spades", "deals": 4,
                                        "fill_with_bots_after": 30})],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(QuickMatchSerializer, request.data)
        seated = seating.quick_match(
            user=signed_in(request), game=data["game"], rules=data.get("rules") or {},
            deal_count=data["deals"], fill_with_bots_after=data["fill_with_bots_after"],
            bot_level=data["bot_level"],
            clock_seconds=data["clock"] if "clock" in data else dict(settings.CLOCK_DEFAULT),
            rated=data["rated"], hints=data["hints"],
        )
        return joined_response(seated)
