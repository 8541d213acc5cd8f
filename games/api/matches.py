"""Matches: list, create, read; the table rule presets."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import access, engine, presenters, selectors, services
from games.api import examples
from games.api.base import (
    ETAG_PARAMETERS,
    MAX_PAGE,
    NOT_MODIFIED,
    PLATFORM_MATCH_READS,
    MatchEndpoint,
    MatchPagination,
    created_match_response,
    errors,
    etag_response,
    example,
    signed_in,
    valid_input,
    valid_query,
)
from games.api.problems import problem_type
from games.api.serializers.matches import (
    MatchCreateSerializer,
    MatchSerializer,
    TableRulesSerializer,
    default_seats,
)
from games.models import Match, MatchStatus

logger = logging.getLogger(__name__)


class MatchListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=MatchStatus.choices, required=False)
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=MatchPagination.max_page_size,
        default=MatchPagination.page_size,
    )


@extend_schema(tags=["matches"])
class MatchListCreateView(generics.GenericAPIView):
    pagination_class = MatchPagination
    serializer_class = MatchSerializer

    def get_queryset(self) -> QuerySet[Match]:
        user = signed_in(self.request)
        return access.summaries_for(selectors.matches_for(user), user)

    @extend_schema(
        operation_id="listMatches",
        summary="List my matches",
        description=(
            "Matches you sit at or created, newest first, `page_size` a page (a private match "
            "you left is no longer yours to read). A page past the last answers 404 "
            "`not_found`."
        ),
        parameters=[MatchListQuerySerializer],
        responses={200: MatchSerializer(many=True), **errors(400, 401, 404)},
        examples=[example("A match", examples.MATCH)],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(MatchListQuerySerializer, request)
        queryset = self.get_queryset()
        if "status" in query:
            queryset = queryset.filter(status=query["status"])
        page = self.paginate_queryset(queryset)
        data = [presenters.match_summary(match) for match in page or []]
        return self.get_paginated_response(MatchSerializer(data, many=True).data)

    @extend_schema(
        operation_id="createMatch",
        summary="Create a match",
        description=(
            "Creates a match of `game` with table `rules` changed from the game's preset, "
            "`deals` deals and four seats. When no seat is open the match starts at once: the "
            "first dealer is drawn at random and the first deal is dealt. The answer describes "
            "the match at the `version` it names: computer players may already have moved. "
            "A match needs a seat for a person (`me` or `open`) unless your account may play "
            "computer players alone (403 `person_seat_required`); an account keeps at most "
            f"{settings.MAX_UNFINISHED_MATCHES} matches waiting or in play and "
            f"{settings.MAX_BOT_SEAT_DEALS} computer players' deals in them (a "
            "computer seat counts its match's deals): beyond, 409 `too_many_matches` or "
            "`too_many_bot_deals`. The body is optional, as is each of its fields: with no "
            "body (or `{}`) the match is the default one, a private auction game of 4 deals, "
            "you against three medium computer players. With `deal` (a deal's notation) the "
            "first deal is dealt with the cards it names, by its dealer: its game and rules "
            "are the match's (400 `invalid_deal`, `deal_rules_differ`, "
            "`imported_deal_not_rated`)."
        ),
        request=MatchCreateSerializer,
        responses={201: MatchSerializer, **errors(400, 401, 403, 409)},
        examples=[
            OpenApiExample(
                "Me against three bots", request_only=True,
                value={"game": "auction", "deals": 4, "rules": {"min_bid": 5},
                       "seats": [{"kind": "me"}, {"kind": "bot", "bot_level": "easy"},
                                 {"kind": "bot", "bot_level": "medium"},
                                 {"kind": "bot", "bot_level": "hard"}]},
            ),
            OpenApiExample(
                "Invalid rule", status_codes=["400"], response_only=True,
                value={"type": problem_type("invalid_rules"),
                       "title": "Bad Request", "status": 400, "code": "invalid_rules",
                       "detail": "spades_announcements: applies only to the spades game "
                       "(Koz Maça)", "field": "spades_announcements", "allowed": [False]},
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(MatchCreateSerializer, request.data)
        game, rules, deal = match_table(data, request.data)
        seats = [
            services.SeatSpec(kind=services.SeatKind(seat["kind"]),
                              bot_level=seat.get("bot_level", ""),
                              display_name=seat.get("display_name", ""))
            for seat in data.get("seats") or default_seats()
        ]
        match = services.create_match(
            user=signed_in(request),
            table=services.NewTable(
                game=game,
                rules=rules,
                deal_count=data["deals"],
                seats=seats,
                visibility=data["visibility"],
                clock_seconds=data.get("clock", services.DefaultClock.FOR_THE_SEATS),
                rated=data["rated"],
                hints=data["hints"],
                deal=deal,
            ),
        )
        match.refresh_from_db(fields=selectors.MATCH_STATE)
        return created_match_response(match)


def match_table(
    data: dict[str, Any], sent: Any
) -> tuple[str, dict[str, Any], engine.DealStart | None]:
    """The game, rule overrides and imported first deal of a request that creates a match
    (``data`` validated from the body ``sent``): a `deal`'s notation gives the game and rules
    the body leaves out."""
    deal = services.deal_from_notation(data["deal"]) if "deal" in data else None
    game, rules = data["game"], data.get("rules") or {}
    if deal is not None:
        game = game if "game" in sent else deal.rules.game.value
        if "rules" not in sent and game == deal.rules.game:
            rules = {k: v for k, v in deal.rules.to_dict().items() if k != "game"}
    return game, rules, deal


class MatchDetailView(MatchEndpoint):
    permission = access.Permission.SUMMARY
    platform_key_scope = PLATFORM_MATCH_READS

    @extend_schema(
        operation_id="getMatch", tags=["matches"], summary="Get a match",
        description=(
            "A match's rules, seats, status, totals and ranking. Anyone signed in may read a "
            "public match; a private one only its seated people, its creator and staff (403 "
            "`not_your_seat`, as to a person who left it: an invited person joins with the "
            "code, `joinByInvitation`, whose answer holds the match). Carries an ETag like the "
            "seat view."
        ),
        parameters=ETAG_PARAMETERS,
        responses={200: MatchSerializer, 304: NOT_MODIFIED, **errors(401, 403, 404)},
        examples=[example("A match", examples.MATCH)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        return etag_response(request, MatchSerializer(presenters.match_summary(self.match)).data)


class RulePresetsView(APIView):
    @extend_schema(operation_id="listRulePresets", tags=["rules"], summary="Table rule presets",
                   description="The default table rules of each game.",
                   responses={200: TableRulesSerializer(many=True), **errors(401)},
                   examples=[example("The auction game", examples.RULES)])
    def get(self, request: Request) -> Response:
        presets = [engine.PRESETS[game].to_dict() for game in engine.Game]
        return Response(TableRulesSerializer(presets, many=True).data)
