"""Rematches of a finished match (games/rematch.py): offering one, reading it, answering it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from games import access, rematch
from games.api import examples
from games.api.base import PLATFORM_MATCH_READS, MatchEndpoint, errors, example, signed_in
from games.api.problems import problem_type
from games.api.serializers.play import RematchOfferSerializer
from games.models import RematchOffer

ANSWER_ERRORS = (
    "409 `rematch_expired` after `expires_at`, `rematch_declined` once someone declined, "
    "`rematch_started` once everyone accepted, `rematch_already_answered` when you did; 404 "
    "when nobody offered one; 403 `not_your_seat` when you have no seat at the match (or left "
    "it)."
)


def offer_response(offer: RematchOffer, code: int = status.HTTP_200_OK) -> Response:
    return Response(RematchOfferSerializer(rematch.offer_view(offer)).data, status=code)


def _conflict(code: str, detail: str) -> OpenApiExample:
    value: dict[str, Any] = {
        "type": problem_type(code), "title": "Conflict", "status": 409,
        "code": code, "detail": detail,
    }
    return OpenApiExample(code, value=value, status_codes=["409"], response_only=True)


class RematchView(MatchEndpoint):
    # Reading the offer is for whoever follows the match, a platform's key for its own matches
    # included; offering it, for its players only (the service's check under the lock: 403
    # `not_your_seat`; a key: 403 `platform_key_not_accepted`).
    permission = access.Permission.WATCH
    platform_key_scope = PLATFORM_MATCH_READS

    @extend_schema(
        operation_id="getRematch", tags=["tables"], summary="The rematch offer",
        description=(
            "The finished match's rematch offer, for whoever may follow the match: who offered "
            "it, each seat's answer (`asked` false for a computer player, who accepts at once), "
            "`expires_at`, the status (`open`, `accepted`, `declined`, `expired`) and, once "
            "it started, the rematch's id. 404 when nobody offered one."
        ),
        responses={200: RematchOfferSerializer, **errors(401, 403, 404)},
        examples=[example("Waiting for one answer", examples.REMATCH)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        return offer_response(rematch.offer_of(self.match))

    @extend_schema(
        operation_id="offerRematch", tags=["tables"], summary="Offer a rematch",
        description=(
            "After the match finished, a person seated at it (who did not leave) offers to play "
            "it again, accepting it themselves. The other people seated are asked (`accept` or "
            "`decline` within REMATCH_OFFER_SECONDS, 60 by default); computer players accept "
            "at once, and a Medium computer player takes the seat of a person who left. As the "
            "last person accepts, the rematch starts: the same game, rules, deal count, clock, "
            "visibility and rated flag (casual when the table may no longer be rated), the "
            "seats rotated by one (seat i's player at (i + 1) % 4), you its creator (your "
            "limit of unfinished matches applies). 409 `rematch_not_finished` before the end, "
            "`rematch_already_offered` while an offer is open, `rematch_declined` or "
            "`rematch_started` once one was answered, `too_many_matches` when you have as many "
            "unfinished matches as an account may (the rematch would be one more); an expired "
            "offer is replaced."
        ),
        request=None, responses={201: RematchOfferSerializer, **errors(401, 403, 404, 409)},
        examples=[
            OpenApiExample("Offered", value=examples.REMATCH, response_only=True,
                           status_codes=["201"]),
            _conflict("rematch_not_finished",
                      "A rematch can only be offered once the match has finished."),
        ],
    )
    def post(self, request: Request, match_id: str) -> Response:
        offer = rematch.offer_rematch(match_id=self.match.id, user=signed_in(request))
        return offer_response(offer, status.HTTP_201_CREATED)


class AcceptRematchView(MatchEndpoint):
    permission = access.Permission.ACT

    @extend_schema(
        operation_id="acceptRematch", tags=["tables"], summary="Accept the rematch",
        description=(
            "Your acceptance of the open offer; the last one starts the rematch (its id in "
            "`new_match_id`). Two last acceptances at once start one rematch. 409 "
            "`too_many_matches` when you have as many unfinished matches as an account may (the "
            "rematch would be one more). " + ANSWER_ERRORS
        ),
        request=None, responses={200: RematchOfferSerializer, **errors(401, 403, 404, 409)},
        examples=[
            example("Started", {**examples.REMATCH, "status": "accepted",
                                "new_match_id": "0b7c7d5e-93a8-4c1e-8d2b-5f0f7a9e6c41",
                                "seats": [{**seat, "answer": "accepted"}
                                          for seat in examples.REMATCH["seats"]]}),
            _conflict("rematch_expired", "The rematch offer has expired: offer a new one."),
        ],
    )
    def post(self, request: Request, match_id: str) -> Response:
        offer = rematch.answer_rematch(match_id=self.match.id, user=signed_in(request),
                                       accept=True)
        return offer_response(offer)


class DeclineRematchView(MatchEndpoint):
    permission = access.Permission.ACT

    @extend_schema(
        operation_id="declineRematch", tags=["tables"], summary="Decline the rematch",
        description="Your refusal closes the offer (status `declined`): no rematch of this "
        "match. " + ANSWER_ERRORS,
        request=None, responses={200: RematchOfferSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Declined", {
            **examples.REMATCH, "status": "declined",
            "seats": [{**seat, "answer": "declined" if seat["seat"] == 1 else seat["answer"]}
                      for seat in examples.REMATCH["seats"]],
        })],
    )
    def post(self, request: Request, match_id: str) -> Response:
        offer = rematch.answer_rematch(match_id=self.match.id, user=signed_in(request),
                                       accept=False)
        return offer_response(offer)
