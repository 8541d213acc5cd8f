"""Playing: a seat's view, the bid estimate, a hint, and the one endpoint every action goes
to."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import access, engine, hints, presenters, rematch, services
from games.api import examples
from games.api.base import (
    ETAG_PARAMETERS,
    IDEMPOTENCY_HEADER,
    IDEMPOTENCY_KEY,
    ILLEGAL_EXAMPLE,
    NOT_MODIFIED,
    VERSION_EXAMPLE,
    MatchEndpoint,
    errors,
    etag_response,
    example,
    signed_in,
    valid_input,
    valid_query,
)
from games.api.serializers.play import (
    ActionInputSerializer,
    BidEstimateSerializer,
    HintSerializer,
    SeatViewSerializer,
)
from games.errors import (
    ActionRefused,
    CardsSealed,
    HandInPlay,
    InvalidIdempotencyKey,
    NotYourSeat,
    OtherSeat,
)
from games.models import MatchStatus

logger = logging.getLogger(__name__)


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
            "a seat but their own (403 `hand_in_play`), nor at a deal set's table until the set "
            "closes (403 `cards_sealed`). A player asking for another seat than "
            "their own is refused 403 `other_seat`."
        ),
        parameters=[SeatQuerySerializer, *ETAG_PARAMETERS],
        responses={200: SeatViewSerializer, 304: NOT_MODIFIED, **errors(400, 401, 403, 404)},
        examples=[example("Seat 0 to play", examples.SEAT_VIEW)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        seat = self.seat.index if self.seat is not None else None
        query = valid_query(SeatQuerySerializer, request)
        if "seat" in query and query["seat"] != seat:
            if not request.user.is_staff:
                raise NotYourSeat() if seat is None else OtherSeat(seat)
            if not access.may_view_seat(self.match, self.access, query["seat"],
                                        is_staff=True):
                raise CardsSealed() if access.cards_sealed(self.match) else HandInPlay()
            seat = query["seat"]
            logger.info(
                "staff read another seat",
                extra={"match_id": str(self.match.id), "seat": seat, "staff_user": request.user.pk},
            )
        if seat is None:
            raise NotYourSeat()
        view = presenters.seat_view(self.match, seat)
        if view["status"] == MatchStatus.FINISHED:
            view["rematch"] = rematch.offer_view_of(self.match)
        return etag_response(request, SeatViewSerializer(view).data)


class BidEstimateView(MatchEndpoint):
    permission = access.Permission.SEAT

    @extend_schema(
        operation_id="getBidEstimate", tags=["play"], summary="Bid estimate",
        description=(
            "How many tricks your hand should take with each trump (your team's, in the "
            "partnership game), from play-outs of random layouts of the other cards with you "
            "leading (in Koz Maça: spades, from the first leader). Only before play starts. "
            "A computer's aid, so never at a rated table (403 `hints_off`, as a hint)."
        ),
        responses={200: BidEstimateSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Hearts look best", {
            "hand": ["AS", "JS", "TS", "KH", "QH", "9H", "7H", "4H", "AD", "5D", "8C", "3C",
                     "2C"],
            "estimates": [{"trump": "S", "tricks": 4.1}, {"trump": "H", "tricks": 5.6},
                          {"trump": "D", "tricks": 3.2}, {"trump": "C", "tricks": 3.0}],
            "best_trump": "H", "team": False})],
    )
    def get(self, request: Request, match_id: str) -> Response:
        assert self.seat is not None
        try:
            data = hints.bid_estimate(self.match, self.seat.index)
        except engine.IllegalAction as error:
            raise ActionRefused(error) from None
        return Response(BidEstimateSerializer(data).data)


class HintView(MatchEndpoint):
    permission = access.Permission.SEAT

    @extend_schema(
        operation_id="getHint", tags=["play"], summary="A hint",
        description=(
            "At a table with the `hints` rule, on your turn: the call or card the computer "
            "players suggest, what each legal choice is expected to bring (points for the deal "
            "and, for a call, tricks) and one sentence why, in your language. Worked out from "
            "your seat's view alone (the cards you hold and have seen), so it tells nothing of "
            "the hidden cards, and the same view always gets the same hint. Not your turn: 409 "
            "`not_your_turn`; a match not in play: 409 `match_not_active`; a table without "
            "hints: 403 `hints_off`; no seat of yours (a spectator): 403 `not_your_seat`. A "
            "hint asked again for the same view is answered from the cache; an account has at "
            f"most {settings.HINT_RATE} hints worked out (the service's HINT_RATE; beyond, 429 "
            "`too_many_hints` with `Retry-After`), one at a time (429 `hint_in_progress`)."
        ),
        responses={200: HintSerializer, **errors(401, 403, 404, 409, 429)},
        examples=[example("Play the queen", examples.HINT)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        assert self.seat is not None
        data = hints.hint(self.match, self.seat.index, signed_in(request).pk)
        return Response(HintSerializer(data).data)


# --- acting ------------------------------------------------------------------------------------


ACTION_EXAMPLES = [
    ("A bid", {"kind": "bid", "tricks": 5, "expected_version": 3}),
    ("A pass", {"kind": "pass", "expected_version": 3}),
    ("Naming trumps", {"kind": "trump", "suit": "H", "expected_version": 7}),
    ("An announcement", {"kind": "announce", "tricks": 3, "expected_version": 0}),
    ("A card", {"kind": "play", "card": "QC", "expected_version": 12}),
    ("Asking for a redeal", {"kind": "redeal", "expected_version": 0}),
]


class ActionView(MatchEndpoint):
    """Submits one action for the caller's seat through `services.submit_action`."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # The action's own transaction loads and locks the match and asks the access policy
        # for the caller's seat (`access.acting_seat`; their presence noted, or refused): the
        # match is read once.
        APIView.initial(self, request, *args, **kwargs)

    @extend_schema(
        operation_id="submitAction", tags=["play"], summary="Act: a call or a card",
        description=(
            "Submit one of your seat's `legal_actions` exactly as the seat view or your "
            "seat's stream gave it (`kind` and its one argument), with the `version` it was "
            "given at as `expected_version`: a bid, a pass, naming trumps, an announcement "
            "(Koz Maça with announcements), a card (the declarer also plays a face-up "
            "dummy's) or, with `weak_hand_redeal`, asking for a redeal before your own first "
            "call or card. Answers your seat's view right after your action, at the `version` "
            "it names; the computer players' moves that follow come through the stream (and "
            "the event feed). The turn clock is exact: an action that arrives once your "
            "turn's `turn_deadline` has passed is refused 409 `turn_timed_out`, the stand-in "
            "having moved for you (as it does at the deadline when no action comes). An "
            "action the rules refuse is 422 with the reason's code and sentence."
        ),
        request=ActionInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: SeatViewSerializer, **errors(400, 401, 403, 404, 409, 422)},
        examples=[
            *(OpenApiExample(summary, value=value, request_only=True)
              for summary, value in ACTION_EXAMPLES),
            VERSION_EXAMPLE, ILLEGAL_EXAMPLE,
        ],
    )
    def post(self, request: Request, match_id: uuid.UUID) -> Response:
        data = valid_input(ActionInputSerializer, request.data)
        key = request.headers.get("Idempotency-Key")
        idempotency = None
        if key is not None:
            if not IDEMPOTENCY_KEY.fullmatch(key):
                raise InvalidIdempotencyKey()
            idempotency = services.Idempotency.for_request(
                signed_in(request).pk, key, request.method or "POST", request.path, request.data
            )
        result = services.submit_action(
            match_id=match_id,
            action=data["action"],
            user=signed_in(request),
            expected_version=data["expected_version"],
            idempotency=idempotency,
        )
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        # Built to the schema's `SeatView` (tests/api/test_move_state.py), so answered as is.
        return Response(result.view, headers=headers)
