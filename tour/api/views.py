"""Thin views of the Tour of Tables: the tables, starting one, and what a tour match came to.

Reading the tour (or a tour match) first counts any finished match not counted yet, so progress
is up to date in every answer without the game's services knowing of the tour.
"""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.base import created_match_response, errors, example
from games.api.problems import problem_type
from games.api.serializers.matches import MatchSerializer
from tour import content, selectors, services
from tour.api import examples
from tour.api.serializers import TourMatchSerializer, TourTableSerializer
from tour.errors import TableNotFound

TABLE_PARAMETER = OpenApiParameter(
    "table", str, OpenApiParameter.PATH, enum=[table.slug for table in content.TABLES],
    description="The table's slug, from the corner café to the city final.",
)
TABLE_NOT_FOUND = OpenApiExample(
    "No such table", status_codes=["404"], response_only=True,
    value={"type": problem_type("not_found"), "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "No such table in the Tour of Tables."},
)


class TourTablesView(APIView):
    @extend_schema(
        operation_id="listTourTables", tags=["tour"], summary="The Tour of Tables",
        description=(
            "The story mode's five tables in order, each with its table rules, its three "
            "characters, whether it is open to you and your results there. The first table is "
            "open; finishing first at a table (a shared first place counts) opens the next. "
            "Finished tour matches are counted into the results when this is read."
        ),
        responses={200: TourTableSerializer(many=True), **errors(401)},
        examples=[example("The first table", examples.TABLE)],
    )
    def get(self, request: Request) -> Response:
        assert request.user.is_authenticated  # IsAuthenticated, the default permission
        services.record_results(user=request.user)
        return Response(TourTableSerializer(selectors.tables(request.user), many=True).data)


class TourTableView(APIView):
    @extend_schema(
        operation_id="getTourTable", tags=["tour"], summary="One table of the tour",
        description="A table as in the tour's list, with your results there.",
        parameters=[TABLE_PARAMETER],
        responses={200: TourTableSerializer, **errors(401, 404)},
        examples=[example("The first table", examples.TABLE), TABLE_NOT_FOUND],
    )
    def get(self, request: Request, table: str) -> Response:
        found = content.table(table)
        if found is None:
            raise TableNotFound()
        assert request.user.is_authenticated  # IsAuthenticated, the default permission
        services.record_results(user=request.user)
        return Response(TourTableSerializer(selectors.table_for(request.user, found)).data)


class StartTableView(APIView):
    @extend_schema(
        operation_id="startTourTable", tags=["tour"], summary="Play a table",
        description=(
            "Starts a match at an open table, as `POST /matches` would: the table's rules and "
            f"{content.DEALS} deals, you in seat 0 and the table's characters in seats 1 to 3, "
            "each playing at their level in their own style. Any open table may be played "
            "again; `GET /tour/matches/{match_id}` tells how it went."
        ),
        parameters=[TABLE_PARAMETER],
        request=None,
        responses={201: MatchSerializer, **errors(401, 404, 409)},
        examples=[
            OpenApiExample("The match", value=examples.MATCH, response_only=True,
                           status_codes=["201"]),
            OpenApiExample(
                "Table locked", status_codes=["409"], response_only=True,
                value={"type": problem_type("table_locked"),
                       "title": "Conflict", "status": 409, "code": "table_locked",
                       "detail": "This table opens once you finish first at the table "
                       "before it."},
            ),
            TABLE_NOT_FOUND,
        ],
    )
    def post(self, request: Request, table: str) -> Response:
        assert request.user.is_authenticated  # IsAuthenticated, the default permission
        match = services.start_table(user=request.user, slug=table)
        return created_match_response(match)


class TourMatchView(APIView):
    @extend_schema(
        operation_id="getTourMatch", tags=["tour"], summary="A tour match's result",
        description=(
            "One of your tour matches: the match, and once it is over your place, whether you "
            "won and the table that opens. Reading it counts the finished match into your "
            "results at the table (once, however often it is read)."
        ),
        responses={200: TourMatchSerializer, **errors(401, 404)},
        examples=[example("Won the first table", examples.RESULT)],
    )
    def get(self, request: Request, match_id: uuid.UUID) -> Response:
        assert request.user.is_authenticated  # IsAuthenticated, the default permission
        tour_match = selectors.tour_match(request.user, match_id)
        services.record_results(user=request.user, match_id=tour_match.match_id)
        return Response(TourMatchSerializer(selectors.match_result(tour_match)).data)
