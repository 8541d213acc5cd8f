"""A whole match through the Python client generated from openapi/schema.yaml, as an app would
play it: a guest against three computer players, played from the live stream alone
(batak_sse.py): each `turn` it tells is answered with one POST. Once over, the event feed read by
its cursor matches the stream.

    python clients/python/play_match.py http://127.0.0.1:8000

Needs the generated package `batak_api_client` on the path (`scripts/contract` generates it
with openapi-python-client). On the way it sends one card the rules refuse and one action with
a stale version, and reads both answers as the typed `Problem`, and reads its view again with
its ETag (304). Exits non-zero on any surprise.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from collections.abc import Sequence
from http import HTTPStatus
from typing import NoReturn, TypeVar
from uuid import UUID

import httpx
from batak_api_client import AuthenticatedClient, Client
from batak_api_client.api.accounts import create_guest
from batak_api_client.api.matches import create_match
from batak_api_client.api.play import get_seat_view, list_events, submit_action
from batak_api_client.models import (
    AnnounceAction,
    AnnounceActionInputRequest,
    BidAction,
    BidActionInputRequest,
    BotLevel,
    BotSeatRequest,
    BotSeatRequestKind,
    EventPage,
    Game,
    GuestInputRequest,
    Match,
    MatchCreateRequest,
    MatchStatus,
    MeSeatRequest,
    MeSeatRequestKind,
    PassAction,
    PassActionInputRequest,
    PlayAction,
    PlayActionInputRequest,
    Problem,
    RedealAction,
    RedealActionInputRequest,
    SeatView,
    Token,
    TrumpAction,
    TrumpActionInputRequest,
    TurnEvent,
)
from batak_api_client.types import Response
from batak_sse import (
    ActionMessage,
    DealEndedMessage,
    EndMessage,
    Event,
    StreamMessage,
    TurnMessage,
    follow,
)

T = TypeVar("T")
Action = AnnounceAction | BidAction | PassAction | PlayAction | RedealAction | TrumpAction
DEALS = 4
PAGE = 25  # small, so the cursor is followed across pages


def fail(message: str) -> NoReturn:
    print(f"python client: {message}", file=sys.stderr)
    sys.exit(1)


def expect(response: Response[T | Problem], wanted: type[T], what: str) -> T:
    parsed = response.parsed
    if not isinstance(parsed, wanted):
        fail(f"{what}: HTTP {response.status_code} {response.content[:300]!r}")
    assert isinstance(parsed, wanted)
    return parsed


def expect_problem(response: Response[SeatView | Problem], status: int, codes: set[str]) -> None:
    problem = response.parsed
    if not isinstance(problem, Problem) or problem.status != status or problem.code not in codes:
        fail(f"expected a {status} problem {codes}: {response.status_code} {response.content!r}")


ActionInput = (AnnounceActionInputRequest | BidActionInputRequest | PassActionInputRequest
               | PlayActionInputRequest | RedealActionInputRequest | TrumpActionInputRequest)
# The request member of each kind of action: the same fields, with `expected_version`.
INPUTS: dict[type[Action], type[ActionInput]] = {
    BidAction: BidActionInputRequest, PassAction: PassActionInputRequest,
    TrumpAction: TrumpActionInputRequest, AnnounceAction: AnnounceActionInputRequest,
    PlayAction: PlayActionInputRequest, RedealAction: RedealActionInputRequest,
}


def submit(
    client: AuthenticatedClient, match_id: UUID, action: Action, version: int
) -> Response[SeatView | Problem]:
    """Any entry of `legal_actions`, as given, with the version it was given at."""
    body = INPUTS[type(action)].from_dict({**action.to_dict(), "expected_version": version})
    return submit_action.sync_detailed(match_id, client=client, body=body)


@dataclasses.dataclass
class Probes:
    """The two wrong moves sent once each on the way, read back as the typed `Problem`, and a
    read of an unchanged view with its ETag."""

    refused: bool = False  # a card the rules refuse: 422 with the card's refusal reason
    stale: bool = False  # an action with a stale version: 409 stale_version
    not_modified: bool = False  # the view again with `If-None-Match`: 304, no body

    def send(self, client: AuthenticatedClient, match_id: UUID, turn: TurnEvent,
             legal: Sequence[Action]) -> None:
        if not self.refused and turn.refusals:
            refusal = turn.refusals[0]
            expect_problem(submit_action.sync_detailed(
                match_id, client=client,
                body=PlayActionInputRequest.from_dict({"kind": "play", "card": refusal.card})),
                422, {refusal.reason.value})
            self.refused = True
        if not self.stale and turn.version > 0:
            expect_problem(submit(client, match_id, legal[0], turn.version - 1), 409,
                           {"stale_version"})
            self.stale = True
        if not self.not_modified:  # on our turn nothing moves until we do
            etag = get_seat_view.sync_detailed(match_id, client=client).headers["ETag"]
            again = get_seat_view.sync_detailed(match_id, client=client, if_none_match=etag)
            # A 200 is a changed view (a seat's presence noted in between): asked next turn.
            if again.status_code == HTTPStatus.NOT_MODIFIED and not again.content:
                self.not_modified = True
            elif again.status_code != HTTPStatus.OK:
                fail(f"If-None-Match: HTTP {again.status_code} {again.content[:100]!r}")


def sign_in(base_url: str) -> AuthenticatedClient:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    token = expect(create_guest.sync_detailed(
        client=anonymous, body=GuestInputRequest(display_name="Python client")), Token, "guest")
    return AuthenticatedClient(base_url=base_url, token=token.token, prefix="Token",
                               timeout=httpx.Timeout(60.0), raise_on_unexpected_status=True)


def match_against_bots(client: AuthenticatedClient) -> UUID:
    bots = [BotSeatRequest(kind=BotSeatRequestKind.BOT, bot_level=level)
            for level in (BotLevel.EASY, BotLevel.MEDIUM, BotLevel.MEDIUM)]
    created = expect(create_match.sync_detailed(client=client, body=MatchCreateRequest(
        game=Game.AUCTION, deals=DEALS, seats=[MeSeatRequest(kind=MeSeatRequestKind.ME), *bots],
    )), Match, "create")
    return created.id


def take_turn(client: AuthenticatedClient, match_id: UUID, turn: TurnEvent,
              rng: random.Random, probes: Probes) -> None:
    """A random legal move (never a redeal request), after the probes still to send."""
    legal = [a for a in turn.legal_actions if not isinstance(a, RedealAction)]
    probes.send(client, match_id, turn, legal)
    mine = expect(submit(client, match_id, rng.choice(legal), turn.version), SeatView, "move")
    if mine.version != turn.version + 1:
        fail(f"the move answered version {mine.version}, not {turn.version + 1}")


def follow_feed(client: AuthenticatedClient, match_id: UUID, after: int,
                seen: list[Event]) -> int:
    """Follow the feed by its cursor from ``after`` until it has caught up; the new cursor."""
    while True:
        page = expect(list_events.sync_detailed(
            match_id, client=client, after=after, wait=0, limit=PAGE), EventPage, "feed")
        seen.extend(page.events)
        after = page.next_after
        if not page.has_more:
            return after


def check_stream(heard: list[StreamMessage], seen: list[Event], view: SeatView) -> None:
    """The stream reported the moves the feed listed, then `end`."""
    events = [message.event for message in heard if isinstance(message, ActionMessage)]
    if events != seen:
        fail(f"the stream reported {len(events)} events, the feed {len(seen)}")
    end = heard[-1] if heard else None
    if not isinstance(end, EndMessage) or end.end.version != view.version:
        fail(f"the stream did not end at version {view.version}: {end}")
    results = [message.result for message in heard if isinstance(message, DealEndedMessage)]
    if len(results) != DEALS or results[-1].totals != view.totals:
        fail(f"the stream's {len(results)} deal results do not end at totals {view.totals}")


def main(base_url: str) -> None:
    rng = random.Random(7)
    client = sign_in(base_url)
    match_id = match_against_bots(client)
    # Push-first: the stream tells when it is our move and what we may do (`turn`), and we
    # answer each with one POST; it is resumed whenever the server closes it, until its `end`.
    heard: list[StreamMessage] = []
    probes = Probes()
    turns = 0
    for message in follow(client, match_id):
        heard.append(message)
        if isinstance(message, TurnMessage):
            take_turn(client, match_id, message.turn, rng, probes)
            turns += 1
    # Once over: the view (for a screen's resynchronisation) and the feed by its cursor.
    view = expect(get_seat_view.sync_detailed(match_id, client=client), SeatView, "view")
    seen: list[Event] = []
    follow_feed(client, match_id, 0, seen)
    versions = [event.version for event in seen]
    if versions != list(range(1, view.version + 1)):
        fail(f"the feed showed versions {versions[:5]}… not 1..{view.version} exactly once")
    if view.status != MatchStatus.FINISHED or not (
        probes.refused and probes.stale and probes.not_modified
    ):
        fail(f"ended {view.status}, probes {probes}")
    check_stream(heard, seen, view)
    print(f"python client: {DEALS} deals played from the stream alone ({turns} turns, one POST "
          f"each), {len(seen)} events seen once each in the feed and the stream, totals "
          f"{view.totals}; the refused card and the stale version answered a Problem, the "
          "unchanged view 304")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
