"""A whole match through the Python client generated from openapi/schema.yaml, as an app would
play it: a guest against three computer players, following the event feed by its cursor.

    python clients/python/play_match.py http://127.0.0.1:8000

Needs the generated package `batak_api_client` on the path (`scripts/contract` generates it
with openapi-python-client). On the way it sends one card the rules refuse and one action with
a stale version, and reads both answers as the typed `Problem`. Exits non-zero on any surprise.
"""

from __future__ import annotations

import random
import sys
from typing import NoReturn, TypeVar
from uuid import UUID

import httpx
from batak_api_client import AuthenticatedClient, Client
from batak_api_client.api.accounts import create_guest
from batak_api_client.api.matches import create_match
from batak_api_client.api.play import (
    announce_tricks,
    choose_trump,
    get_seat_view,
    list_events,
    pass_auction,
    place_bid,
    play_card,
    request_redeal,
)
from batak_api_client.models import (
    Action,
    ActionInputRequest,
    ActionKind,
    AnnounceInputRequest,
    BidInputRequest,
    BotLevel,
    BotSeatRequest,
    BotSeatRequestKind,
    Event,
    EventPage,
    Game,
    GuestInputRequest,
    Match,
    MatchCreateRequest,
    MatchStatus,
    MeSeatRequest,
    MeSeatRequestKind,
    PlayInputRequest,
    Problem,
    SeatView,
    Token,
    TrumpInputRequest,
)
from batak_api_client.types import Response

T = TypeVar("T")
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


def submit(
    client: AuthenticatedClient, match_id: UUID, action: Action, version: int
) -> Response[SeatView | Problem]:
    match action.kind:
        case ActionKind.BID:
            assert isinstance(action.tricks, int)
            return place_bid.sync_detailed(
                match_id, client=client,
                body=BidInputRequest(tricks=action.tricks, expected_version=version))
        case ActionKind.PASS:
            return pass_auction.sync_detailed(
                match_id, client=client, body=ActionInputRequest(expected_version=version))
        case ActionKind.TRUMP:
            return choose_trump.sync_detailed(
                match_id, client=client,
                body=TrumpInputRequest(suit=str(action.suit), expected_version=version))
        case ActionKind.ANNOUNCE:
            assert isinstance(action.tricks, int)
            return announce_tricks.sync_detailed(
                match_id, client=client,
                body=AnnounceInputRequest(tricks=action.tricks, expected_version=version))
        case ActionKind.PLAY:
            return play_card.sync_detailed(
                match_id, client=client,
                body=PlayInputRequest(card=str(action.card), expected_version=version))
        case _:
            return request_redeal.sync_detailed(
                match_id, client=client, body=ActionInputRequest(expected_version=version))


def main(base_url: str) -> None:
    rng = random.Random(7)
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    token = expect(create_guest.sync_detailed(
        client=anonymous, body=GuestInputRequest(display_name="Python client")), Token, "guest")
    client = AuthenticatedClient(base_url=base_url, token=token.token, prefix="Token",
                                 timeout=httpx.Timeout(60.0), raise_on_unexpected_status=True)
    bots = [BotSeatRequest(kind=BotSeatRequestKind.BOT, bot_level=level)
            for level in (BotLevel.EASY, BotLevel.MEDIUM, BotLevel.MEDIUM)]
    created = expect(create_match.sync_detailed(client=client, body=MatchCreateRequest(
        game=Game.AUCTION, deals=DEALS, seats=[MeSeatRequest(kind=MeSeatRequestKind.ME), *bots],
    )), Match, "create")
    match_id = created.id

    seen: list[Event] = []
    after = 0
    refused_once = stale_once = False
    while True:
        view = expect(get_seat_view.sync_detailed(match_id, client=client), SeatView, "view")
        if view.status != MatchStatus.ACTIVE:
            break
        deal = view.deal
        if deal is not None and deal.to_act == view.seat:
            legal = [a for a in deal.legal_actions if a.kind != ActionKind.REDEAL]
            if not refused_once and deal.refusals:
                card = str(deal.refusals[0].card)
                expect_problem(play_card.sync_detailed(
                    match_id, client=client, body=PlayInputRequest(card=card)), 422,
                    {str(deal.refusals[0].reason)})
                refused_once = True
            if not stale_once and view.version > 0:
                expect_problem(submit(client, match_id, legal[0], view.version - 1), 409,
                               {"stale_version"})
                stale_once = True
            answer = submit(client, match_id, rng.choice(legal), view.version)
            mine = expect(answer, SeatView, "move")
            if mine.version != view.version + 1:
                fail(f"the move answered version {mine.version}, not {view.version + 1}")
        # Follow the feed by its cursor until it has caught up.
        while True:
            page = expect(list_events.sync_detailed(
                match_id, client=client, after=after, wait=0, limit=PAGE), EventPage, "feed")
            seen += page.events
            after = page.next_after
            if not page.has_more:
                break
    versions = [event.version for event in seen]
    if versions != list(range(1, view.version + 1)):
        fail(f"the feed showed versions {versions[:5]}… not 1..{view.version} exactly once")
    if view.status != MatchStatus.FINISHED or not (refused_once and stale_once):
        fail(f"ended {view.status}, refused {refused_once}, stale {stale_once}")
    print(f"python client: {DEALS} deals played, {len(seen)} events seen once each, "
          f"totals {view.totals}; refused card and stale version read as Problem")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
