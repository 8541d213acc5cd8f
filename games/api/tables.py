"""Tables between people: joining, invitations, cancelling, leaving and coming back,
watching a public match."""

from __future__ import annotations

import logging

from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import access, presenters, seating, services
from games.api import examples
from games.api.base import (
    ETAG_PARAMETERS,
    NOT_CREATOR_EXAMPLE,
    NOT_MODIFIED,
    PLATFORM_MATCH_READS,
    MatchEndpoint,
    errors,
    etag_response,
    example,
    signed_in,
    valid_input,
)
from games.api.serializers.feed import SpectatorViewSerializer
from games.api.serializers.matches import (
    InvitationSerializer,
    JoinedSerializer,
    JoinSerializer,
    MatchSerializer,
)
from games.api.serializers.play import SeatViewSerializer
from games.errors import (
    InvitationNotFound,
    MatchNotPublic,
    NotMatchCreator,
)
from games.models import Match, Visibility

logger = logging.getLogger(__name__)


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
        request=JoinSerializer,
        responses={200: JoinedSerializer, **errors(400, 401, 403, 404, 409)},
        examples=[OpenApiExample("Take seat 2", value={"seat": 2}, request_only=True),
                  example("Seat 2 taken", {"seat": 2, "match": examples.MATCH})],
    )
    def post(self, request: Request, match_id: str) -> Response:
        data = valid_input(JoinSerializer, request.data)
        seat = services.join_match(match_id=self.match.id, user=signed_in(request),
                                   seat=data.get("seat"))
        return joined_response(seating.Seated(self.match, seat))


def joined_response(seated: seating.Seated) -> Response:
    match = Match.objects.prefetch_related("seats").get(pk=seated.match.pk)
    body = {"seat": seated.seat.index, "match": presenters.match_summary(match)}
    return Response(JoinedSerializer(body).data)


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
        responses={200: InvitationSerializer, **errors(401, 403, 404)},
        examples=[example("A code", examples.INVITATION)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        code = self._code(request)
        return Response(InvitationSerializer({"match_id": self.match.id, "code": code}).data)

    @extend_schema(
        operation_id="renewInvitation", tags=["tables"], summary="A new invitation code",
        description="A new code for the creator's private waiting match; the old one stops "
        "working.",
        request=None, responses={200: InvitationSerializer, **errors(401, 403, 404, 409)},
        examples=[example("A new code", examples.INVITATION)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        code = seating.renew_invitation(match_id=self.match.id, user=signed_in(request))
        return Response(InvitationSerializer({"match_id": self.match.id, "code": code}).data)

    @extend_schema(
        operation_id="revokeInvitation", tags=["tables"], summary="Revoke the invitation",
        description="Nobody can join with the code any more (a new one can be made).",
        responses={204: None, **errors(401, 403, 404, 409)},
        examples=[NOT_CREATOR_EXAMPLE],
    )
    def delete(self, request: Request, match_id: str) -> Response:
        seating.revoke_invitation(match_id=self.match.id, user=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationJoinView(APIView):
    @extend_schema(
        operation_id="joinByInvitation", tags=["tables"], summary="Join with an invitation",
        description="Takes an open seat (`seat`, or the lowest open one) of the private match "
        "the code belongs to; 404 when the code is unknown or revoked.",
        request=JoinSerializer, responses={200: JoinedSerializer, **errors(400, 401, 404, 409)},
        examples=[example("Seat 2 taken", {"seat": 2, "match": examples.MATCH})],
    )
    def post(self, request: Request, code: str) -> Response:
        data = valid_input(JoinSerializer, request.data)
        seated = seating.join_by_invitation(
            code=code, user=signed_in(request), seat=data.get("seat")
        )
        return joined_response(seated)


class CancelMatchView(MatchEndpoint):
    permission = access.Permission.FACTS

    @extend_schema(
        operation_id="cancelMatch", tags=["tables"], summary="Cancel a match",
        description="The creator calls off a match that has not started (status `cancelled`).",
        request=None, responses={200: MatchSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Cancelled", {**examples.MATCH, "status": "cancelled"})],
    )
    def post(self, request: Request, match_id: str) -> Response:
        match = seating.cancel_match(match_id=self.match.id, user=signed_in(request))
        return Response(MatchSerializer(presenters.match_summary(match)).data)


class LeaveMatchView(MatchEndpoint):
    permission = access.Permission.ACT

    @extend_schema(
        operation_id="leaveMatch", tags=["tables"], summary="Leave the match",
        description=(
            "Before the start, your seat opens again (a match nobody sits at any more is "
            "cancelled). In play, a Medium computer player plays your seat to the end "
            "(`left_at` on the seat, `stand_in` in the feed) and your result counts as "
            "abandoned. A Tour of Tables match is forfeited (status `abandoned`), as is a match "
            "that no person is left at, unless it is rated: a rated match is then finished as "
            "it stands and rated, its people ranked below the computer players in the order "
            "they left, the first lowest (docs/ratings.md). From then on you read what an "
            "outsider reads: of a private match nothing but what anyone may ask (403 "
            "`not_your_seat` on its view, feed, stream, deals and details; your open stream of "
            "it ends), of a public one what any spectator sees."
        ),
        request=None, responses={200: MatchSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Left", examples.MATCH)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        match = seating.leave_match(match_id=self.match.id, user=signed_in(request))
        return Response(MatchSerializer(presenters.match_summary(match)).data)


class ReturnView(MatchEndpoint):
    permission = access.Permission.ACT

    @extend_schema(
        operation_id="returnToSeat", tags=["tables"], summary="Take my seat back",
        description=(
            "Ends the autopilot of your seat (after timeouts in a row a computer player plays "
            "it): you play again from the next turn. Any action of yours does the same. A "
            "turn clock already running runs on: coming back gives no fresh turn time."
        ),
        request=None, responses={200: SeatViewSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Back at seat 0", examples.SEAT_VIEW)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        assert self.seat is not None
        match = seating.return_to_seat(match_id=self.match.id, user=signed_in(request))
        return Response(SeatViewSerializer(presenters.seat_view(match, self.seat.index)).data)


class ReadyView(MatchEndpoint):
    permission = access.Permission.ACT

    @extend_schema(
        operation_id="readyForMatch", tags=["tables"], summary="I am ready to play",
        description=(
            "For a match that waits for its players (a platform's, created with `start: "
            "when_ready`): your seat is ready (`ready` on the seat), and the match starts, "
            "turn clocks and all, once every player's seat is, or at `ready_by` without "
            "those who are not (their seats on autopilot until they move or post `return`). "
            "Saying it again answers the match as it is. 409 `not_waiting_for_ready` when the "
            "match did not wait for you, or no longer does; 403 `not_your_seat` when you have "
            "no seat at it."
        ),
        request=None, responses={200: MatchSerializer, **errors(401, 403, 404, 409)},
        examples=[example("Ready, the others not yet", {
            **examples.MATCH, "status": "waiting", "version": 0, "turn_deadline": None,
            "ready_by": "2026-11-29T20:23:39.197808+00:00",
            "seats": [{**seat, "ready": seat["index"] == 0 or seat["kind"] == "bot"}
                      for seat in examples.SEATS],
        })],
    )
    def post(self, request: Request, match_id: str) -> Response:
        match = seating.ready(match_id=self.match.id, user=signed_in(request))
        return Response(MatchSerializer(presenters.match_summary(match)).data)


class SpectateView(MatchEndpoint):
    permission = access.Permission.FACTS
    platform_key_scope = PLATFORM_MATCH_READS
    counts_spectators = True

    @extend_schema(
        operation_id="spectateMatch", tags=["tables"], summary="Watch a public match",
        description=(
            "What anyone may see of a public match: seats, auction, trump, every trick, hand "
            "sizes and a face-up dummy, but no hand until its deal has ended (then the deal "
            "list shows them). Follow it with the event feed, which public matches open to "
            "every signed-in user. Carries an ETag like the seat view. 403 `match_not_public` "
            "for a private match, but to its creator (a partner platform, with its key, "
            "following its own matches) and staff."
        ),
        parameters=ETAG_PARAMETERS,
        responses={200: SpectatorViewSerializer, 304: NOT_MODIFIED, **errors(401, 403, 404)},
        examples=[example("Watching", examples.SPECTATOR_VIEW)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        # A private match's creator (a platform following its own matches) watches it too.
        if self.match.visibility != Visibility.PUBLIC and self.access.role not in (
            access.Role.CREATOR, access.Role.STAFF
        ):
            raise MatchNotPublic()
        return etag_response(
            request, SpectatorViewSerializer(presenters.spectator_view(self.match)).data
        )
