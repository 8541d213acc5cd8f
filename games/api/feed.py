"""A match's history: its ended deals, the event feed (long poll) and the live stream."""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response

from games import access, presenters, rematch, selectors, services
from games.api import examples, slots, stream_pages, streams
from games.api.base import (
    PLATFORM_MATCH_READS,
    PROBLEM,
    MatchEndpoint,
    errors,
    example,
    signed_in,
    valid_query,
)
from games.api.problems import problem_type
from games.api.quotas import quotas_of
from games.api.serializers.analysis import AnalysisPendingSerializer, DealAnalysisSerializer
from games.api.serializers.feed import DealRecordSerializer, EventPageSerializer
from games.api.serializers.fields import MAX_VERSION
from games.errors import (
    CursorAhead,
    DealNotFound,
    InvalidLastEventId,
    NoAnalysis,
    TooManyLongPolls,
    TooManyStreams,
)
from games.models import AnalysisStatus, Match, MatchStatus

logger = logging.getLogger(__name__)


# --- history and events ------------------------------------------------------------------------


# What a deal record shows of a deal set's table until the set closes.
SEALED_RECORD = (
    " At a deal set's table until the set closes (docs/deal-sets.md) the cards are sealed: "
    "`hands` holds your own seat's hand only (the others null, all of them to a reader with "
    "no seat), `deck` and `salt` are null; the log and tricks show the cards played."
)


class DealListView(MatchEndpoint):
    platform_key_scope = PLATFORM_MATCH_READS

    @extend_schema(
        operation_id="listDeals", tags=["history"], summary="Ended deals",
        description=(
            "Every ended deal with its revealed deck, salt, hands, log and tricks."
            + SEALED_RECORD
        ),
        responses={200: DealRecordSerializer(many=True), **errors(401, 403, 404)},
        examples=[example("An ended deal", examples.DEAL_RECORD)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        seat = None if self.seat is None else self.seat.index
        records = [presenters.deal_record(self.match, deal, seat)
                   for deal in selectors.ended_deals(self.match)]
        return Response(DealRecordSerializer(records, many=True).data)


class DealDetailView(MatchEndpoint):
    platform_key_scope = PLATFORM_MATCH_READS

    @extend_schema(
        operation_id="getDeal", tags=["history"], summary="One ended deal",
        description=(
            "An ended deal by its shuffle `sequence` (see the deal list)." + SEALED_RECORD
        ),
        responses={200: DealRecordSerializer, **errors(401, 403, 404)},
        examples=[example("An ended deal", examples.DEAL_RECORD)],
    )
    def get(self, request: Request, match_id: str, sequence: int) -> Response:
        deal = selectors.ended_deals(self.match).filter(sequence=sequence).first()
        if deal is None:
            raise DealNotFound()
        seat = None if self.seat is None else self.seat.index
        record = presenters.deal_record(self.match, deal, seat)
        return Response(DealRecordSerializer(record).data)


# How long a client is told to wait before asking again for an analysis under way.
ANALYSIS_RETRY_SECONDS = 5


class DealAnalysisView(MatchEndpoint):
    permission = access.Permission.HANDS
    platform_key_scope = PLATFORM_MATCH_READS

    @extend_schema(
        operation_id="getDealAnalysis", tags=["history"], summary="One ended deal's analysis",
        description=(
            "What each call and card of the ended deal of shuffle `sequence` cost its player "
            "(docs/analysis.md): the best choice and the points (and tricks) given up against "
            "it, two ways: with every hand known (`known`: the exact search of the real "
            "layout, the player's later choices searched and every other seat playing the "
            "greedy card) and from what the player knew then (`seen`: the expert computer "
            "player's values of each legal choice from that seat's view, so a card that was "
            "right on what the player could know costs nothing). Each judged choice is marked "
            "by `seen.points_cost`: an `inaccuracy`, a `mistake` or a `blunder` from the "
            "`thresholds`; `players` sums the points each seat gave up. Every scored deal is "
            "analysed in the background once it ends, within ANALYSIS_SECONDS_PER_DEAL of CPU "
            "time (`partial` when that was not enough): until it is done, 202 with "
            f"`Retry-After` ({ANALYSIS_RETRY_SECONDS} s); the live stream's `analysis_ready` "
            "and the `deal.analysed` webhook tell when. Readable by whoever may read the deal's "
            "record (`getDeal`): a deal still in play is 404 `not_found`; a deal thrown in, or "
            "one that ended while the service did not analyse deals, 404 `no_analysis`; at a "
            "deal set's table, 403 `cards_sealed` until the set closes (and no announcement "
            "is made)."
        ),
        parameters=[OpenApiParameter(
            "Retry-After", {"type": "integer", "minimum": 1}, OpenApiParameter.HEADER,
            response=[202], required=True, description="Seconds to wait before asking again.",
        )],
        responses={
            200: DealAnalysisSerializer,
            202: AnalysisPendingSerializer,
            **errors(401, 403, 404),
        },
        examples=[example("An analysed deal", examples.DEAL_ANALYSIS)],
    )
    def get(self, request: Request, match_id: str, sequence: int) -> Response:
        deal = selectors.ended_deals(self.match).filter(sequence=sequence).first()
        if deal is None:
            raise DealNotFound()
        analysis = selectors.deal_analysis(deal)
        if analysis is None:
            raise NoAnalysis()
        if analysis.status != AnalysisStatus.DONE:
            body = {"match_id": self.match.id, "deal_sequence": sequence, "status": "queued"}
            return Response(AnalysisPendingSerializer(body).data,
                            status=status.HTTP_202_ACCEPTED,
                            headers={"Retry-After": str(ANALYSIS_RETRY_SECONDS)})
        data = presenters.deal_analysis(self.match, deal, analysis)
        return Response(DealAnalysisSerializer(data).data)


class AnyAccept(DefaultContentNegotiation):
    """An endpoint that writes its own body (the stream's events, a notation's text) answers
    whatever the client accepts (EventSource sends `text/event-stream`); its errors stay
    problem documents."""

    def select_renderer(self, request, renderers, format_suffix=None):  # type: ignore[no-untyped-def]
        return renderers[0], renderers[0].media_type


NOTATION_MEDIA_TYPE = "text/x-batak-notation"
# Golden texts of tests/engine/golden: the tests read them back and score them.
DEAL_NOTATION_EXAMPLE = OpenApiExample(
    "An ended deal", (Path(__file__).parent / "notation_example.bdn").read_text())
MATCH_NOTATION_EXAMPLE = OpenApiExample(
    "A match of two deals, the first thrown in",
    (Path(__file__).parent / "notation_match_example.bdn").read_text())


def _notation_schema(what: str, filename: str, example: OpenApiExample) -> dict[str, Any]:
    """The documentation of a notation read: the text, its file name, and the feed's errors."""
    return {
        "parameters": [OpenApiParameter(
            "Content-Disposition", OpenApiTypes.STR, OpenApiParameter.HEADER, response=[200],
            required=True, description=f"`attachment; filename=\"{filename}\"`.",
        )],
        "responses": {
            (200, NOTATION_MEDIA_TYPE): OpenApiResponse(
                OpenApiTypes.STR, description=(
                    f"{what} in Batak Deal Notation (docs/notation.md), UTF-8 text "
                    f"(`{NOTATION_MEDIA_TYPE}; charset=utf-8`)."
                ),
                examples=[example],
            ),
            **errors(401, 403, 404),
        },
    }


def notation_response(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text, content_type=f"{NOTATION_MEDIA_TYPE}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class DealNotationView(MatchEndpoint):
    permission = access.Permission.HANDS
    platform_key_scope = PLATFORM_MATCH_READS
    content_negotiation_class = AnyAccept

    @extend_schema(
        operation_id="getDealNotation", tags=["history"], summary="One ended deal as notation",
        description=(
            "The ended deal of shuffle `sequence` (as `getDeal`) in Batak Deal Notation: rules, "
            "dealer, hands and deck, every call and card trick by trick, tricks and points. "
            "Readable by whoever may read the deal's record; a deal still in play is 404 "
            "`not_found`, as it is to `getDeal`; at a deal set's table, 403 `cards_sealed` "
            "until the set closes. `createMatch` takes the text as `deal` to deal these cards "
            "again."
        ),
        **_notation_schema("The deal", "batak-{match id}-deal-{sequence}.bdn",
                           DEAL_NOTATION_EXAMPLE),
    )
    def get(self, request: Request, match_id: str, sequence: int) -> HttpResponse:
        deal = selectors.ended_deals(self.match).filter(sequence=sequence).first()
        if deal is None:
            raise DealNotFound()
        return notation_response(presenters.deal_notation(self.match, deal),
                                 f"batak-{self.match.id}-deal-{sequence}.bdn")


class MatchNotationView(MatchEndpoint):
    permission = access.Permission.HANDS
    platform_key_scope = PLATFORM_MATCH_READS
    content_negotiation_class = AnyAccept

    @extend_schema(
        operation_id="getMatchNotation", tags=["history"], summary="A match as notation",
        description=(
            "The match in Batak Deal Notation: its header (game, rules that differ from the "
            "game's defaults, deals, first dealer, the seats' names, totals, and the ranking "
            "once it is over) and each ended deal so far, thrown-in ones included, in the order "
            "dealt. The deal still in play is never part of it. Readable by whoever may read "
            "the match's deal records (`listDeals`); at a deal set's table, 403 `cards_sealed` "
            "until the set closes."
        ),
        **_notation_schema("The match", "batak-{match id}.bdn", MATCH_NOTATION_EXAMPLE),
    )
    def get(self, request: Request, match_id: str) -> HttpResponse:
        return notation_response(presenters.match_notation(self.match),
                                 f"batak-{self.match.id}.bdn")


RETRY_AFTER = OpenApiParameter(
    "Retry-After", {"type": "integer", "minimum": 1}, OpenApiParameter.HEADER, response=[429],
    description="Seconds to wait before retrying.",
)


def _refused(code: str, detail: str, retry_after: int) -> OpenApiExample:
    return OpenApiExample(
        f"Refused: {code}", status_codes=["429"], response_only=True,
        value={"type": problem_type(code), "title": "Too Many Requests",
               "status": 429, "code": code, "detail": detail},
        description=f"Sent with `Retry-After: {retry_after}`.",
    )


TOO_MANY_LONG_POLLS_EXAMPLE = _refused(
    "too_many_long_polls", str(TooManyLongPolls.default_detail), slots.LONG_POLL_RETRY_SECONDS,
)
TOO_MANY_STREAMS_EXAMPLE = _refused(
    "too_many_streams", str(TooManyStreams.default_detail), int(settings.STREAM_HEARTBEAT_SECONDS),
)

DEFAULT_WAIT_SECONDS = 20
MAX_WAIT_SECONDS = 30
EVENT_PAGE_SIZE = 200
MAX_EVENT_PAGE_SIZE = 500


class EventQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, max_value=MAX_VERSION, default=0,
        help_text="List actions after this version: 0 at first, then the page's `next_after`. "
        "Beyond the match's version: 400 `cursor_ahead`.",
    )
    wait = serializers.IntegerField(
        min_value=0, max_value=MAX_WAIT_SECONDS, default=DEFAULT_WAIT_SECONDS,
        help_text="Seconds to wait when nothing is after `after` yet.",
    )
    limit = serializers.IntegerField(
        min_value=1, max_value=MAX_EVENT_PAGE_SIZE, default=EVENT_PAGE_SIZE,
        help_text="Most actions on one page.",
    )


def check_cursor(match: Match, after: int) -> None:
    """400 `cursor_ahead` for a cursor past the match's version. Versions only grow, and every
    cursor a client is given is one the match has reached: one beyond is a mistake, said so
    rather than answered with an empty page (or a wait for a version that may never come)."""
    if after > match.version:
        raise CursorAhead(current_version=match.version)


class EventsView(MatchEndpoint):
    permission = access.Permission.WATCH
    platform_key_scope = PLATFORM_MATCH_READS
    counts_spectators = True

    @extend_schema(
        operation_id="listEvents", tags=["play"], summary="Event feed (long poll)",
        description=(
            "Actions applied after version `after`, oldest first, at most `limit` "
            f"(default {EVENT_PAGE_SIZE}, at most {MAX_EVENT_PAGE_SIZE}) a page. To follow "
            "the match, pass each page's `next_after` as the next `after`: you see every "
            "action exactly once, in order. `has_more` says the next page is already "
            "waiting. When nothing is after `after` yet, the request waits up to `wait` "
            f"seconds (default {DEFAULT_WAIT_SECONDS}, at most {MAX_WAIT_SECONDS}) for the next "
            "action, so a client learns of other seats' moves without polling hard. Every action "
            "is public; a card of a face-up dummy names the dummy as `seat` and the declarer as "
            "`submitted_by`; `origin` tells moves a computer player made for a person. Open to "
            "its seated people, its creator and staff, and to every signed-in user for a public "
            "match. A wait holds a server thread, so waits are bounded: an account has at most "
            f"{settings.LONG_POLL_MAX_PER_ACCOUNT} at once (across the service's processes; a "
            "platform's key, its platform's quota), and "
            f"a server process at most {settings.LONG_POLL_MAX_PER_PROCESS} for everyone; a "
            "request that would wait beyond either is answered at once with 429 "
            "`too_many_long_polls` (the account's bound) or `server_busy` (the process's), with "
            "`Retry-After`. A request that does not wait (`wait=0`, or actions already after "
            "`after`) is never refused so."
        ),
        parameters=[EventQuerySerializer, RETRY_AFTER],
        responses={
            200: EventPageSerializer,
            **errors(400, 401, 403, 404),
            429: OpenApiResponse(PROBLEM, description=(
                "Too many waits: the account's (`too_many_long_polls`), the server process's "
                "(`server_busy`), or the request throttle's (`throttled`). Retry after "
                "`Retry-After` seconds."
            ), examples=[TOO_MANY_LONG_POLLS_EXAMPLE]),
        },
        examples=[example("Two moves", examples.EVENT_PAGE)],
    )
    def get(self, request: Request, match_id: str) -> Response:
        params = valid_query(EventQuerySerializer, request)
        after, wait = params["after"], params["wait"]
        check_cursor(self.match, after)
        if wait > 0 and self._nothing_after(after):
            # The wait holds this thread: only within the account's and the process's bounds.
            with slots.long_poll(signed_in(request).pk, wait,
                                 per_account=quotas_of(request).long_polls):
                deadline = time.monotonic() + wait
                while self._nothing_after(after) and (left := deadline - time.monotonic()) > 0:
                    selectors.wait_for_move(self.match, after, left)
                    self.match.refresh_from_db(fields=["version", "status"])
        if self.seat is not None:  # a wait on the feed is presence all along
            services.seen(self.seat)
        page = presenters.event_page(self.match, after, params["limit"])
        return Response(EventPageSerializer(page).data)

    def _nothing_after(self, after: int) -> bool:
        return self.match.version <= after and self.match.status == MatchStatus.ACTIVE


class StreamQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, max_value=MAX_VERSION, default=0,
        help_text="Stream actions after this version (0: from the start). A `Last-Event-ID` "
        "header, which a reconnecting client sends, takes its place. Beyond the match's "
        "version: 400 `cursor_ahead`.",
    )


STREAM_DESCRIPTION = (
    "The event feed as Server-Sent Events (`text/event-stream`), pushed as each action is "
    "committed: the same events, the same visibility and access as `listEvents`. Each action "
    "is an SSE event `action` whose `id` is its version and whose `data` is an `Event` (JSON). "
    "The card that ends a scored deal is followed by a `deal_ended` event (`DealEndedEvent`: "
    "the deal's scores and outcomes, the match's totals after it); the version's `id` then "
    "comes with `deal_ended`, not with the card, so a client that drops between them gets "
    "the card again, with its result, when it resumes (skip versions you have). Besides, "
    "events without an `id` tell the match's state while it is live, each "
    "when it differs from what this stream last sent (so first when the stream starts): "
    "`clock` (`ClockEvent`: the turn clock's deadline at a version, null when none runs) and "
    "`seats` (`SeatsEvent`: per seat whether it is open, ready, on autopilot, or left by its "
    "person). Once a scored deal's analysis is recorded, `analysis_ready` (no id; "
    "`AnalysisReadyEvent`: `getDealAnalysis` reads it) goes to the streams open then of "
    "those who may read it (not a spectator's). "
    "A seat's own stream (its person's, or a platform's player's) also carries that seat's "
    "own events, in the same order and never to anyone else: `hand` (`HandEvent`: the cards "
    "the seat holds, and what it may do at once, e.g. a weak hand's redeal) when a deal is "
    "dealt and when the stream (re)starts in a deal, and `turn` (`TurnEvent`: `legal_actions` "
    "exactly as the seat view gives them, the legal cards, each other card's refusal in the "
    "caller's language) whenever the seat's person is to act, at the version to send back as "
    "`expected_version`. They belong to their version: its `id` comes with the last of them. "
    "So an app plays a whole match with this stream and one `submitAction` per own move; "
    "`getSeatView` is for (re)synchronising a screen, never needed in the loop. The computer "
    "players' moves that follow one another come together (they are made in one go, each "
    "with its own version and `created_at`): an app that shows them one by one paces them "
    "itself. "
    "The 200 answer's `x-sse-events` names each event's `data` schema. "
    "It starts after `after`, or after the `Last-Event-ID` header's version when a client "
    "reconnects, so a client that resumes misses nothing and sees nothing twice. A comment "
    "line (`: heartbeat`) comes when nothing has happened for "
    f"{settings.STREAM_HEARTBEAT_SECONDS:g} s, and counts as the caller's presence. Once the "
    "match has ended (or is cancelled) and every action is sent, an `end` event (`StreamEnd`: "
    "`{\"version\": N, \"status\": \"finished\"}`) is sent. The stream of a match that "
    "ended unfinished then closes; that of a finished match stays open a minute more (the "
    "service's `STREAM_AFTER_END_SECONDS`, 60 by default), and while a rematch offer is "
    "open, for what follows the finish (no id: told as state, like `seats`): `rating_changed` "
    "as a rated match's ratings change (to the streams open then), `rematch_offered` as its "
    "rematch offer changes (`GET /matches/{id}/rematch` reads it), and `rematch_started`, "
    "after which (or a declined or expired offer) it closes. The server may also "
    "close a stream at any time (at the latest after "
    f"{settings.STREAM_MAX_SECONDS:g} s, or {streams.MAX_WSGI_SECONDS} s on a server that holds "
    "a thread per request); reconnect with `Last-Event-ID` (EventSource does, after the "
    "`retry` interval). Once the match is over, a request with nothing after its cursor is "
    "answered 204, which tells EventSource to stop (but within the time after the finish "
    "above, while no offer was answered, or while a rematch offer is open, it gets the `end` "
    "and what follows it, as above). The stream looks again every heartbeat "
    "interval whether its caller may still read the match, as every request to the feed does, "
    "and ends when not (a revoked or lapsed token, a seat given up; a seat given up ends it "
    "at once on a server that holds no thread per stream): the reconnection then gets the "
    "feed's answer (401, 403). An "
    f"account has at most {settings.STREAM_MAX_PER_ACCOUNT} streams open (a platform's key, "
    "its platform's quota; across the "
    f"service's processes; {streams.MAX_WSGI_PER_ACCOUNT} per process on a server that holds a "
    "thread per request): beyond, 429 `too_many_streams`. A server process holds at most "
    f"{settings.STREAM_MAX_PER_PROCESS} streams, and on a server that holds a thread per "
    f"request at most {settings.LONG_POLL_MAX_PER_PROCESS} streams and long polls together: "
    "beyond, 429 `server_busy`. Both come with `Retry-After`."
)

STREAM_EXAMPLE = (
    f"retry: {streams.RETRY_MILLISECONDS}\n\n"
    f"id: {examples.EVENT_PAGE['events'][0]['version']}\nevent: action\n"
    f"data: {json.dumps(examples.EVENT_PAGE['events'][0])}\n\n"
    ": heartbeat\n\n"
    "id: 212\nevent: end\ndata: {\"version\": 212, \"status\": \"finished\"}\n\n"
)


class StreamView(MatchEndpoint):
    permission = access.Permission.WATCH
    platform_key_scope = PLATFORM_MATCH_READS
    counts_spectators = True
    content_negotiation_class = AnyAccept
    # Django's View declares it an instance variable, so no ClassVar.
    http_method_names = ["get"]  # noqa: RUF012

    @extend_schema(
        operation_id="streamEvents", tags=["play"], summary="Event stream (Server-Sent Events)",
        description=STREAM_DESCRIPTION,
        parameters=[
            StreamQuerySerializer,
            RETRY_AFTER,
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
                description="The match has ended, nothing is after the cursor and no rematch "
                "offer of it is open: no stream (EventSource stops reconnecting)."
            ),
            **errors(400, 401, 403, 404),
            429: OpenApiResponse(PROBLEM, description=(
                "Too many streams: the account's (`too_many_streams`), the server process's "
                "(`server_busy`), or the request throttle's (`throttled`). Retry after "
                "`Retry-After` seconds."
            ), examples=[TOO_MANY_STREAMS_EXAMPLE]),
        },
    )
    def get(self, request: Request, match_id: str) -> HttpResponse | StreamingHttpResponse:
        params = valid_query(StreamQuerySerializer, request)
        after = params["after"]
        resume = request.headers.get("Last-Event-ID")
        if resume is not None:
            if not LAST_EVENT_ID.fullmatch(resume) or int(resume) > MAX_VERSION:
                raise InvalidLastEventId()
            after = int(resume)
        check_cursor(self.match, after)
        if (self.match.status not in stream_pages.LIVE and after >= self.match.version
                and not rematch.more_to_tell(self.match)):
            # Over, and nothing left to send: 204 tells EventSource to stop reconnecting (but
            # just after the finish, or while a rematch offer is open, the stream tells what
            # follows the end).
            return HttpResponse(status=status.HTTP_204_NO_CONTENT)
        follower = streams.Follower(
            self.match, after, signed_in(request), streams.credential_of(request.auth))
        # Served on an event loop (batak_api/asgi.py) the stream holds no thread.
        asynchronous = isinstance(request._request, ASGIRequest)
        return streams.match_stream(
            follower, asynchronous=asynchronous, per_account=quotas_of(request).streams)


LAST_EVENT_ID = re.compile(r"[0-9]{1,10}")
