"""Thin API views: parse, authorise the seat, call one service or selector, render."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any, ClassVar

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db.models import QuerySet
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from knox.models import AuthToken
from rest_framework import generics, serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import access, engine, seating, selectors, services
from games.api import examples, streams
from games.api import serializers as s
from games.errors import (
    ActionRefused,
    DealNotFound,
    HandInPlay,
    InvalidIdempotencyKey,
    InvalidLastEventId,
    InvitationNotFound,
    MatchNotActive,
    MatchNotFound,
    MatchNotPublic,
    NotMatchCreator,
    NotYourSeat,
)
from games.models import GameChoice, Match, MatchStatus, Seat, Visibility

logger = logging.getLogger(__name__)

# --- documentation helpers ---------------------------------------------------------------------

PROBLEM = s.ProblemSerializer


def errors(*codes: int) -> dict[int, Any]:
    return {code: PROBLEM for code in codes}


def example(name: str, value: Any) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=["200"])


VERSION_EXAMPLE = OpenApiExample(
    "Stale version", status_codes=["409"], response_only=True,
    value={"type": "https://batak.example/problems/stale_version", "title": "Conflict",
           "status": 409, "code": "stale_version",
           "detail": "The match has changed since the version you sent; reload and retry.",
           "current_version": 17},
)
ILLEGAL_EXAMPLE = OpenApiExample(
    "Must follow suit", status_codes=["422"], response_only=True,
    value={"type": "https://batak.example/problems/must_follow_suit",
           "title": "Unprocessable Entity", "status": 422, "code": "must_follow_suit",
           "detail": "You must follow suit.", "reason": "must_follow_suit",
           "legal_actions": [{"kind": "play", "card": "QC"}], "legal_cards": ["QC"]},
)
NOT_CREATOR_EXAMPLE = OpenApiExample(
    "Not the creator", status_codes=["403"], response_only=True,
    value={"type": "https://batak.example/problems/not_match_creator", "title": "Forbidden",
           "status": 403, "code": "not_match_creator",
           "detail": "Only the match's creator may do this."},
)
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,255}$"
IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    pattern=IDEMPOTENCY_KEY_PATTERN,
    description="A unique string of 1 to 255 printable ASCII characters (e.g. a UUID). "
    "Repeating a request with the same key returns the first result instead of applying the "
    "action twice; a key used for a different request is 422 `idempotency_key_reused`; a key "
    "whose first request is still being processed is 409 `idempotency_key_in_use`; a key "
    "outside the pattern is 400 `invalid_idempotency_key`.",
)


# --- base classes ------------------------------------------------------------------------------


class MatchEndpoint(APIView):
    """Loads the match named in the URL and decides the caller's access to it before the
    handler runs (games/access.py), so no handler can forget the check: ``permission`` is what
    the endpoint needs. Every request of a seated person counts as their presence, and on
    endpoints with ``counts_spectators`` every request about a public match of anyone else
    signed in as watching it."""

    permission: ClassVar[access.Permission] = access.Permission.READ
    counts_spectators: ClassVar[bool] = False

    match: Match
    access: access.Access

    @property
    def seat(self) -> Seat | None:
        return self.access.seat

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        try:
            self.match = Match.objects.prefetch_related("seats").get(pk=kwargs["match_id"])
        except Match.DoesNotExist:
            raise MatchNotFound() from None
        self.access = access.require(self.match, request.user, self.permission)
        if self.seat is not None:
            services.seen(self.seat)
        elif self.counts_spectators and self.match.visibility == Visibility.PUBLIC:
            seating.watching(self.match, request.user)


def etag_response(request: Request, data: Any) -> Response:
    """200 with a strong ETag of the body, or 304 when the client already has it."""
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    etag = f'"{digest[:32]}"'
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    return Response(data, headers={"ETag": etag})


# Far beyond any list a person has; bounds the offset a page number asks the database for.
MAX_PAGE = 100_000

# --- matches -----------------------------------------------------------------------------------


class MatchPagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


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
    serializer_class = s.MatchSerializer

    def get_queryset(self) -> QuerySet[Match]:
        return selectors.matches_for(self.request.user)

    @extend_schema(
        operation_id="listMatches",
        summary="List my matches",
        description=(
            "Matches you sit at or created, newest first, `page_size` a page. A page past the "
            "last answers 404 `not_found`."
        ),
        parameters=[MatchListQuerySerializer],
        responses={200: s.MatchSerializer(many=True), **errors(400, 401, 404)},
        examples=[example("A match", examples.MATCH)],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(MatchListQuerySerializer, request)
        queryset = self.get_queryset()
        if "status" in query:
            queryset = queryset.filter(status=query["status"])
        page = self.paginate_queryset(queryset)
        data = [selectors.match_summary(match) for match in page or []]
        return self.get_paginated_response(s.MatchSerializer(data, many=True).data)

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
            "10 matches waiting or in play and 156 computer players' deals in them (a "
            "computer seat counts its match's deals): beyond, 409 `too_many_matches` or "
            "`too_many_bot_deals`."
        ),
        request=s.MatchCreateSerializer,
        responses={201: s.MatchSerializer, **errors(400, 401, 403, 409)},
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
                value={"type": "https://batak.example/problems/invalid_rules",
                       "title": "Bad Request", "status": 400, "code": "invalid_rules",
                       "detail": "spades_announcements: applies only to the spades game "
                       "(Koz Maça)", "field": "spades_announcements", "allowed": [False]},
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(s.MatchCreateSerializer, request.data)
        seats = [
            services.SeatSpec(kind=seat["kind"], bot_level=seat.get("bot_level", ""),
                              display_name=seat.get("display_name", ""))
            for seat in data.get("seats") or s.default_seats()
        ]
        match = services.create_match(
            user=request.user, game=data["game"], rules=data.get("rules") or {},
            deal_count=data["deals"], seats=seats, visibility=data["visibility"],
            clock_seconds=data.get("clock", services.DEFAULT_CLOCK),
        )
        match.refresh_from_db(fields=selectors.MATCH_STATE)
        body = s.MatchSerializer(selectors.match_summary(match)).data
        return Response(body, status=status.HTTP_201_CREATED)


class MatchDetailView(MatchEndpoint):
    permission = access.Permission.FACTS

    @extend_schema(
        operation_id="getMatch", tags=["matches"], summary="Get a match",
        description="Public facts of a match: rules, seats, status, totals, ranking.",
        responses={200: s.MatchSerializer, **errors(401, 404)},
        examples=[example("A match", examples.MATCH)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        return etag_response(request, s.MatchSerializer(selectors.match_summary(self.match)).data)


class JoinMatchView(MatchEndpoint):
    permission = access.Permission.FACTS

    @extend_schema(
        operation_id="joinMatch", tags=["matches"], summary="Join an open seat",
        description=(
            "Takes an open seat (`seat`, or the lowest open one) of a public match and answers "
            "with the seat you took and the match; the match starts when the last seat is "
            "taken. A private match is joined with its invitation code instead (403 "
            "`invitation_required`)."
        ),
        request=s.JoinSerializer,
        responses={200: s.JoinedSerializer, **errors(400, 401, 403, 404, 409)},
        examples=[OpenApiExample("Take seat 2", value={"seat": 2}, request_only=True),
                  example("Seat 2 taken", {"seat": 2, "match": examples.MATCH})],
    )
    def post(self, request: Request, match_id: str) -> Response:
        data = valid_input(s.JoinSerializer, request.data)
        seat = services.join_match(match_id=self.match.id, user=request.user,
                                   seat=data.get("seat"))
        return _joined(seating.Seated(self.match, seat))


def _joined(seated: seating.Seated) -> Response:
    match = Match.objects.prefetch_related("seats").get(pk=seated.match.pk)
    body = {"seat": seated.seat.index, "match": selectors.match_summary(match)}
    return Response(s.JoinedSerializer(body).data)


class InvitationView(MatchEndpoint):
    """The creator's invitation code of a private match waiting for people."""

    permission = access.Permission.FACTS

    def _code(self, request: Request) -> str:
        if self.match.created_by_id != request.user.pk:
            raise NotMatchCreator()
        if self.match.invitation_code is None:
            raise InvitationNotFound()
        return self.match.invitation_code

    @extend_schema(
        operation_id="getInvitation", tags=["tables"], summary="The invitation code",
        description=(
            "The creator's code for a private match with open seats: whoever holds it may join "
            "with `POST /invitations/{code}/join`. 404 once revoked or the match has started."
        ),
        responses={200: s.InvitationSerializer, **errors(401, 403, 404)},
        examples=[example("A code", examples.INVITATION)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        code = self._code(request)
        return Response(s.InvitationSerializer({"match_id": self.match.id, "code": code}).data)

    @extend_schema(
        operation_id="renewInvitation", tags=["tables"], summary="A new invitation code",
        description="A new code for the creator's private waiting match; the old one stops "
        "working.",
        request=None, responses={200: s.InvitationSerializer, **errors(401, 403, 404, 409)},
        examples=[example("A new code", examples.INVITATION)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        code = seating.renew_invitation(match_id=self.match.id, user=request.user)
        return Response(s.InvitationSerializer({"match_id": self.match.id, "code": code}).data)

    @extend_schema(
        operation_id="revokeInvitation", tags=["tables"], summary="Revoke the invitation",
        description="Nobody can join with the code any more (a new one can be made).",
        responses={204: None, **errors(401, 403, 404, 409)},
        examples=[NOT_CREATOR_EXAMPLE],
    )
    def delete(self, request: Request, match_id: str) -> Response:
        seating.revoke_invitation(match_id=self.match.id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationJoinView(APIView):
    @extend_schema(
        operation_id="joinByInvitation", tags=["tables"], summary="Join with an invitation",
        description="Takes an open seat (`seat`, or the lowest open one) of the private match "
        "the code belongs to; 404 when the code is unknown or revoked.",
        request=s.JoinSerializer, responses={200: s.JoinedSerializer, **errors(400, 401, 404, 409)},
        examples=[example("Seat 2 taken", {"seat": 2, "match": examples.MATCH})],
    )
    def post(self, request: Request, code: str) -> Response:
        data = valid_input(s.JoinSerializer, request.data)
        seated = seating.join_by_invitation(code=code, user=request.user, seat=data.get("seat"))
        return _joined(seated)


class CancelMatchView(MatchEndpoint):
    permission = access.Permission.FACTS

    @extend_schema(
        operation_id="cancelMatch", tags=["tables"], summary="Cancel a match",
        description="The creator calls off a match that has not started (status `cancelled`).",
        request=None, responses={200: s.MatchSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Cancelled", {**examples.MATCH, "status": "cancelled"})],
    )
    def post(self, request: Request, match_id: str) -> Response:
        match = seating.cancel_match(match_id=self.match.id, user=request.user)
        return Response(s.MatchSerializer(selectors.match_summary(match)).data)


class LeaveMatchView(MatchEndpoint):
    permission = access.Permission.ACT

    @extend_schema(
        operation_id="leaveMatch", tags=["tables"], summary="Leave the match",
        description=(
            "Before the start, your seat opens again (a match nobody sits at any more is "
            "cancelled). In play, a Medium computer player plays your seat to the end "
            "(`left_at` on the seat, `stand_in` in the feed) and your result counts as "
            "abandoned. A Tour of Tables match is forfeited (status `abandoned`), as is a match "
            "that no person is left at."
        ),
        request=None, responses={200: s.MatchSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Left", examples.MATCH)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        match = seating.leave_match(match_id=self.match.id, user=request.user)
        return Response(s.MatchSerializer(selectors.match_summary(match)).data)


class ReturnView(MatchEndpoint):
    permission = access.Permission.ACT

    @extend_schema(
        operation_id="returnToSeat", tags=["tables"], summary="Take my seat back",
        description=(
            "Ends the autopilot of your seat (after timeouts in a row a computer player plays "
            "it): you play again from the next turn. Any action of yours does the same."
        ),
        request=None, responses={200: s.SeatViewSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Back at seat 0", examples.SEAT_VIEW)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        assert self.seat is not None
        match = seating.return_to_seat(match_id=self.match.id, user=request.user)
        return Response(s.SeatViewSerializer(selectors.seat_view(match, self.seat.index)).data)


class SpectateView(MatchEndpoint):
    permission = access.Permission.FACTS
    counts_spectators = True

    @extend_schema(
        operation_id="spectateMatch", tags=["tables"], summary="Watch a public match",
        description=(
            "What anyone may see of a public match: seats, auction, trump, every trick, hand "
            "sizes and a face-up dummy, but no hand until its deal has ended (then the deal "
            "list shows them). Follow it with the event feed, which public matches open to "
            "every signed-in user. Carries an ETag like the seat view. 403 `match_not_public` "
            "for a private match."
        ),
        responses={200: s.SpectatorViewSerializer, 304: None, **errors(401, 403, 404)},
        examples=[example("Watching", examples.SPECTATOR_VIEW)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        if self.match.visibility != Visibility.PUBLIC:
            raise MatchNotPublic()
        return etag_response(
            request, s.SpectatorViewSerializer(selectors.spectator_view(self.match)).data
        )


class SeatQuerySerializer(serializers.Serializer):
    seat = serializers.IntegerField(
        min_value=0, max_value=3, required=False,
        help_text="Staff only, once the match is over: the seat to view.",
    )


class SeatViewView(MatchEndpoint):
    @extend_schema(
        operation_id="getSeatView", tags=["play"], summary="My seat's view",
        description=(
            "Everything your seat may see: your hand, a face-up dummy, the auction, trump, "
            "current and last trick, tricks and scores, whose turn it is, what you may do now "
            "and why each other card is refused. Carries an ETag; send `If-None-Match` to get "
            "304 when nothing changed. Once a match is over, staff may pass `seat` to see any "
            "seat (each such read is logged); while it is in play nobody, staff included, reads "
            "a seat but their own (403 `hand_in_play`)."
        ),
        parameters=[SeatQuerySerializer],
        responses={200: s.SeatViewSerializer, 304: None, **errors(400, 401, 403, 404)},
        examples=[example("Seat 0 to play", examples.SEAT_VIEW)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        seat = self.seat.index if self.seat is not None else None
        query = valid_query(SeatQuerySerializer, request)
        if "seat" in query and query["seat"] != seat:
            if not request.user.is_staff:
                raise NotYourSeat()
            if not access.may_view_seat(self.match, self.access, query["seat"],
                                        is_staff=True):
                raise HandInPlay()
            seat = query["seat"]
            logger.info(
                "staff read another seat",
                extra={"match_id": str(self.match.id), "seat": seat, "staff_user": request.user.pk},
            )
        if seat is None:
            raise NotYourSeat()
        return etag_response(
            request, s.SeatViewSerializer(selectors.seat_view(self.match, seat)).data
        )


class BidEstimateView(MatchEndpoint):
    permission = access.Permission.SEAT

    @extend_schema(
        operation_id="getBidEstimate", tags=["play"], summary="Bid estimate",
        description=(
            "How many tricks your hand should take with each trump (your team's, in the "
            "partnership game), from play-outs of random layouts of the other cards with you "
            "leading (in Koz Maça: spades, from the first leader). Only before play starts."
        ),
        responses={200: s.BidEstimateSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Hearts look best", {
            "hand": ["AS", "JS", "TS", "KH", "QH", "9H", "7H", "4H", "AD", "5D", "8C", "3C",
                     "2C"],
            "estimates": [{"trump": "S", "tricks": 4.1}, {"trump": "H", "tricks": 5.6},
                          {"trump": "D", "tricks": 3.2}, {"trump": "C", "tricks": 3.0}],
            "best_trump": "H", "team": False})],
    )
    def get(self, request: Request, match_id: str) -> Response:
        assert self.seat is not None
        if self.match.status != MatchStatus.ACTIVE:
            raise MatchNotActive()
        try:
            data = selectors.bid_estimate(self.match, self.seat.index)
        except engine.IllegalAction as error:
            raise ActionRefused(error) from None
        return Response(s.BidEstimateSerializer(data).data)


# --- actions -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ActionEndpoint:
    """One kind of action as the API takes it: its path, its body and its documentation."""

    kind: str
    operation_id: str
    summary: str
    description: str
    input_serializer: type[serializers.Serializer]
    example: dict[str, Any]
    to_action: Callable[[dict[str, Any]], engine.Action]


ACTIONS = [
    ActionEndpoint(
        "bid", "placeBid", "Bid", "Bid a number of tricks in the auction.",
        s.BidInputSerializer, {"tricks": 5, "expected_version": 3},
        lambda data: engine.Bid(data["tricks"]),
    ),
    ActionEndpoint(
        "pass", "passAuction", "Pass", "Pass in the auction; you may not bid again in this deal.",
        s.ActionInputSerializer, {"expected_version": 3}, lambda data: engine.Pass(),
    ),
    ActionEndpoint(
        "trump", "chooseTrump", "Name trumps", "The declarer names the trump suit.",
        s.TrumpInputSerializer, {"suit": "H", "expected_version": 7},
        lambda data: engine.ChooseTrump(engine.Suit.parse(data["suit"])),
    ),
    ActionEndpoint(
        "announce", "announceTricks", "Announce",
        "Koz Maça with announcements: the tricks you will take.",
        s.AnnounceInputSerializer, {"tricks": 3, "expected_version": 0},
        lambda data: engine.Announce(data["tricks"]),
    ),
    ActionEndpoint(
        "play", "playCard", "Play a card",
        "Play a card (the declarer also plays a face-up dummy's).",
        s.PlayInputSerializer, {"card": "QC", "expected_version": 12},
        lambda data: engine.Play(data["card"]),
    ),
    ActionEndpoint(
        "redeal", "requestRedeal", "Ask for a redeal",
        "With `weak_hand_redeal`, a hand with no card above a ten may ask for a new deal before "
        "its own first call or card.", s.ActionInputSerializer, {"expected_version": 0},
        lambda data: engine.RequestRedeal(),
    ),
]

ACTION_ANSWER = (
    " Answers your seat's view right after your action, at the `version` it names; the "
    "computer players' moves that follow come through the event feed."
)


class ActionView(MatchEndpoint):
    """Submits one action for the caller's seat through `services.submit_action`: one class
    per `ActionEndpoint`, made by `action_view`."""

    permission = access.Permission.ACT
    endpoint: ClassVar[ActionEndpoint]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # The action's own transaction loads and locks the match and asks the access policy
        # for the caller's seat (`access.acting_seat`; their presence noted, or refused): the
        # match is read once.
        APIView.initial(self, request, *args, **kwargs)

    def post(self, request: Request, match_id: str) -> Response:
        data = valid_input(self.endpoint.input_serializer, request.data)
        key = request.headers.get("Idempotency-Key")
        idempotency = None
        if key is not None:
            if not IDEMPOTENCY_KEY.fullmatch(key):
                raise InvalidIdempotencyKey()
            idempotency = services.Idempotency.for_request(
                request.user.pk, key, request.method or "POST", request.path, request.data
            )
        result = services.submit_action(
            match_id=match_id,
            action=self.endpoint.to_action(data),
            user=request.user,
            expected_version=data.get("expected_version"),
            idempotency=idempotency,
        )
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        # Built to the schema's `SeatView` (tests/api/test_move_state.py), so answered as is.
        return Response(result.view, headers=headers)


def action_view(endpoint: ActionEndpoint) -> type[ActionView]:
    """The view of one kind of action, documented from its `ActionEndpoint`."""

    @extend_schema(
        operation_id=endpoint.operation_id, tags=["play"], summary=endpoint.summary,
        description=endpoint.description + ACTION_ANSWER, request=endpoint.input_serializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: s.SeatViewSerializer, **errors(400, 401, 403, 404, 409, 422)},
        examples=[OpenApiExample(endpoint.summary, value=endpoint.example, request_only=True),
                  VERSION_EXAMPLE, ILLEGAL_EXAMPLE],
    )
    def post(self: ActionView, request: Request, match_id: str) -> Response:
        return ActionView.post(self, request, match_id)

    name = f"{endpoint.kind.capitalize()}View"
    return type(name, (ActionView,), {"endpoint": endpoint, "post": post, "__module__": __name__})


ACTION_VIEWS = {endpoint.kind: action_view(endpoint) for endpoint in ACTIONS}


# --- history and events ------------------------------------------------------------------------


class DealListView(MatchEndpoint):
    @extend_schema(
        operation_id="listDeals", tags=["history"], summary="Ended deals",
        description="Every ended deal with its revealed deck, salt, hands, log and tricks.",
        responses={200: s.DealRecordSerializer(many=True), **errors(401, 403, 404)},
        examples=[example("An ended deal", examples.DEAL_RECORD)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        records = [selectors.deal_record(self.match, deal)
                   for deal in selectors.ended_deals(self.match)]
        return Response(s.DealRecordSerializer(records, many=True).data)


class DealDetailView(MatchEndpoint):
    @extend_schema(
        operation_id="getDeal", tags=["history"], summary="One ended deal",
        description="An ended deal by its shuffle `sequence` (see the deal list).",
        responses={200: s.DealRecordSerializer, **errors(401, 403, 404)},
        examples=[example("An ended deal", examples.DEAL_RECORD)],
    )
    def get(self, request: Request, match_id: str, sequence: int) -> Response:
        deal = selectors.ended_deals(self.match).filter(sequence=sequence).first()
        if deal is None:
            raise DealNotFound()
        return Response(s.DealRecordSerializer(selectors.deal_record(self.match, deal)).data)


MAX_WAIT_SECONDS = 30
EVENT_PAGE_SIZE = 200
MAX_EVENT_PAGE_SIZE = 500


class EventQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, max_value=s.MAX_VERSION, default=0,
        help_text="List actions after this version: 0 at first, then the page's `next_after`.",
    )
    wait = serializers.IntegerField(
        min_value=0, max_value=MAX_WAIT_SECONDS, default=20,
        help_text="Seconds to wait when nothing is after `after` yet.",
    )
    limit = serializers.IntegerField(
        min_value=1, max_value=MAX_EVENT_PAGE_SIZE, default=EVENT_PAGE_SIZE,
        help_text="Most actions on one page.",
    )


class EventsView(MatchEndpoint):
    permission = access.Permission.WATCH
    counts_spectators = True

    @extend_schema(
        operation_id="listEvents", tags=["play"], summary="Event feed (long poll)",
        description=(
            "Actions applied after version `after`, oldest first, at most `limit` "
            f"(default {EVENT_PAGE_SIZE}, at most {MAX_EVENT_PAGE_SIZE}) a page. To follow "
            "the match, pass each page's `next_after` as the next `after`: you see every "
            "action exactly once, in order. `has_more` says the next page is already "
            "waiting. When nothing is after `after` yet, the request waits up to `wait` "
            f"seconds (default 20, at most {MAX_WAIT_SECONDS}) for the next action, so a client "
            "learns of other seats' moves without polling hard. Every action is public; a card "
            "of a face-up dummy names the dummy as `seat` and the declarer as `submitted_by`; "
            "`origin` tells moves a computer player made for a person. Open to its seated "
            "people, its creator and staff, and to every signed-in user for a public match."
        ),
        parameters=[EventQuerySerializer],
        responses={200: s.EventPageSerializer, **errors(400, 401, 403, 404)},
        examples=[example("Two moves", examples.EVENT_PAGE)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        params = valid_query(EventQuerySerializer, request)
        after = params["after"]
        deadline = time.monotonic() + params["wait"]
        while (
            self.match.version <= after
            and self.match.status == MatchStatus.ACTIVE
            and (left := deadline - time.monotonic()) > 0
        ):
            selectors.wait_for_move(self.match, after, left)
            self.match.refresh_from_db(fields=["version", "status"])
        if self.seat is not None:  # a wait on the feed is presence all along
            services.seen(self.seat)
        page = selectors.event_page(self.match, after, params["limit"])
        return Response(s.EventPageSerializer(page).data)


class StreamQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, max_value=s.MAX_VERSION, default=0,
        help_text="Stream actions after this version (0: from the start). A `Last-Event-ID` "
        "header, which a reconnecting client sends, takes its place.",
    )


class AnyAccept(DefaultContentNegotiation):
    """The stream answers whatever the client accepts (EventSource sends `text/event-stream`):
    its events are written by games/api/streams.py, and its errors stay problem documents."""

    def select_renderer(self, request, renderers, format_suffix=None):  # type: ignore[no-untyped-def]
        return renderers[0], renderers[0].media_type


STREAM_DESCRIPTION = (
    "The event feed as Server-Sent Events (`text/event-stream`), pushed as each action is "
    "committed: the same events, the same visibility and access as `listEvents`. Each action "
    "is an SSE event `action` whose `id` is its version and whose `data` is an `Event` (JSON). "
    "It starts after `after`, or after the `Last-Event-ID` header's version when a client "
    "reconnects, so a client that resumes misses nothing and sees nothing twice. A comment "
    "line (`: heartbeat`) comes when nothing has happened for "
    f"{settings.STREAM_HEARTBEAT_SECONDS:g} s, and counts as the caller's presence. Once the "
    "match has ended (or is cancelled) and every action is sent, an `end` event (data: "
    "`{\"version\": N, \"status\": \"finished\"}`) closes the stream. The server may also "
    "close a stream at any time (at the latest after "
    f"{settings.STREAM_MAX_SECONDS:g} s, or 30 s on a server that holds a thread per request); "
    "reconnect with `Last-Event-ID` (EventSource does, after the `retry` interval). Once "
    "the match is over, a request with nothing after its cursor is answered 204, which tells "
    "EventSource to stop. The stream looks again every heartbeat interval whether its caller "
    "may still read the match, as every request to the feed does, and ends when not (a "
    "revoked or lapsed token, a seat given up): the reconnection then gets the feed's answer "
    "(401, 403). An "
    f"account has at most {settings.STREAM_MAX_PER_ACCOUNT} streams open on one server "
    f"process ({streams.MAX_WSGI_PER_ACCOUNT} on a server that holds a thread per request; "
    "429 `too_many_streams`)."
)

STREAM_EXAMPLE = (
    "retry: 1000\n\n"
    f"id: {examples.EVENT_PAGE['events'][0]['version']}\nevent: action\n"
    f"data: {json.dumps(examples.EVENT_PAGE['events'][0])}\n\n"
    ": heartbeat\n\n"
    "id: 212\nevent: end\ndata: {\"version\": 212, \"status\": \"finished\"}\n\n"
)


class StreamView(MatchEndpoint):
    permission = access.Permission.WATCH
    counts_spectators = True
    content_negotiation_class = AnyAccept
    http_method_names: ClassVar[list[str]] = ["get"]

    @extend_schema(
        operation_id="streamEvents", tags=["play"], summary="Event stream (Server-Sent Events)",
        description=STREAM_DESCRIPTION,
        parameters=[
            StreamQuerySerializer,
            OpenApiParameter(
                "Last-Event-ID", OpenApiTypes.STR, OpenApiParameter.HEADER,
                pattern=r"^[0-9]{1,10}$",
                description="The `id` of the last event received: the stream resumes after "
                "it. Sent by EventSource when it reconnects.",
            ),
        ],
        responses={
            (200, streams.CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.STR, description="The stream of events.",
                examples=[OpenApiExample("A short match", STREAM_EXAMPLE)],
            ),
            204: OpenApiResponse(
                description="The match has ended and nothing is after the cursor: no stream "
                "(EventSource stops reconnecting)."
            ),
            **errors(400, 401, 403, 404),
        },
    )
    def get(self, request: Request, match_id: str) -> HttpResponse | StreamingHttpResponse:
        params = valid_query(StreamQuerySerializer, request)
        after = params["after"]
        resume = request.headers.get("Last-Event-ID")
        if resume is not None:
            if not LAST_EVENT_ID.fullmatch(resume) or int(resume) > s.MAX_VERSION:
                raise InvalidLastEventId()
            after = int(resume)
        if self.match.status not in streams.LIVE and after >= self.match.version:
            # Over, and nothing left to send: 204 tells EventSource to stop reconnecting.
            return HttpResponse(status=status.HTTP_204_NO_CONTENT)
        token = request.auth if isinstance(request.auth, AuthToken) else None
        follower = streams.Follower(self.match, after, request.user, token)
        # Served on an event loop (batak_api/asgi.py) the stream holds no thread.
        asynchronous = isinstance(request._request, ASGIRequest)
        return streams.EventStreamResponse(follower, asynchronous=asynchronous)


LAST_EVENT_ID = re.compile(r"[0-9]{1,10}")


class LobbyQuerySerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=GameChoice.choices, required=False)
    deals = serializers.IntegerField(min_value=1, max_value=engine.MAX_DEALS, required=False)
    preset = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="true: only tables with the game's preset rules; false: only changed ones.",
    )
    min_bid = serializers.IntegerField(min_value=4, max_value=8, required=False)
    direction = serializers.ChoiceField(choices=s.DIRECTIONS, required=False)
    scoring = serializers.ChoiceField(choices=s.SCORINGS, required=False)
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


@extend_schema(tags=["tables"])
class LobbyView(generics.GenericAPIView):
    pagination_class = MatchPagination
    serializer_class = s.LobbyTableSerializer

    @extend_schema(
        operation_id="listLobby", summary="Open public tables",
        description=(
            "Public matches with a seat to take, oldest first, `page_size` a page, filtered by "
            "game, deals and table rules. Join one with `POST /matches/{id}/join`, or let "
            "`POST /quick-match` choose."
        ),
        parameters=[LobbyQuerySerializer],
        responses={200: s.LobbyTableSerializer(many=True), **errors(400, 401, 404)},
        examples=[example("A table waiting", examples.LOBBY_TABLE)],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(LobbyQuerySerializer, request)
        tables = selectors.lobby(
            game=query.get("game"), deals=query.get("deals"), preset=query["preset"],
            rules={name: query[name] for name in RULE_FILTERS if query.get(name) is not None},
        )
        page = self.paginate_queryset(tables)
        data = [selectors.lobby_entry(match) for match in page or []]
        return self.get_paginated_response(s.LobbyTableSerializer(data, many=True).data)


class QuickMatchView(APIView):
    @extend_schema(
        operation_id="quickMatch", tags=["tables"], summary="Quick match",
        description=(
            "A seat at the oldest public table of this game, rules and deals that has one "
            "open, or at a new public table of yours. A new table's open seats go to computer "
            "players of `bot_level` after `fill_with_bots_after` seconds (null: wait for people "
            "only). Asking again while your table waits answers the same seat. New tables "
            "count towards your account's limits as created matches do."
        ),
        request=s.QuickMatchSerializer,
        responses={200: s.JoinedSerializer, **errors(400, 401, 403, 409)},
        examples=[OpenApiExample("Koz Maça, bots after 30 s", request_only=True,
                                 value={"game": "spades", "deals": 4,
                                        "fill_with_bots_after": 30})],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(s.QuickMatchSerializer, request.data)
        seated = seating.quick_match(
            user=request.user, game=data["game"], rules=data.get("rules") or {},
            deal_count=data["deals"], fill_with_bots_after=data["fill_with_bots_after"],
            bot_level=data["bot_level"],
            clock_seconds=data["clock"] if "clock" in data else dict(settings.CLOCK_DEFAULT),
        )
        return _joined(seated)


class RulePresetsView(APIView):
    @extend_schema(operation_id="listRulePresets", tags=["rules"], summary="Table rule presets",
                   description="The default table rules of each game.",
                   responses={200: s.TableRulesSerializer(many=True), **errors(401)},
                   examples=[example("The auction game", examples.RULES)])
    def get(self, request: Request) -> Response:
        presets = [engine.PRESETS[game].to_dict() for game in engine.Game]
        return Response(s.TableRulesSerializer(presets, many=True).data)


def valid_query(
    serializer_class: type[serializers.Serializer], request: Request
) -> dict[str, Any]:
    # As a plain dict: DRF reads a QueryDict as a form, where an empty value counts as absent,
    # and `?status=` must be refused, not ignored.
    return valid_input(serializer_class, request.query_params.dict())


def valid_input(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data

