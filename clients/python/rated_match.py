"""A rated match through the Python client generated from openapi/schema.yaml: two people with
named accounts and two computer players, each person playing their own seat with their own
token; then each reads the rating it gave them and finds both on the week's leaderboard.

    python clients/python/rated_match.py http://127.0.0.1:8000

Needs the generated package `batak_api_client` on the path (`scripts/contract`). Exits non-zero
on any surprise.
"""

from __future__ import annotations

import random
import secrets
import sys
from uuid import UUID

import httpx
from batak_api_client import AuthenticatedClient, Client
from batak_api_client.api.accounts import register
from batak_api_client.api.leaderboards import get_leaderboard
from batak_api_client.api.matches import create_match, join_match
from batak_api_client.api.play import get_seat_view
from batak_api_client.api.players import get_player
from batak_api_client.models import (
    BotLevel,
    BotSeatRequest,
    BotSeatRequestKind,
    Game,
    Joined,
    JoinRequest,
    LeaderboardPage,
    Match,
    MatchCreateRequest,
    MatchStatus,
    MeSeatRequest,
    MeSeatRequestKind,
    OpenSeatRequest,
    OpenSeatRequestKind,
    Profile,
    RedealAction,
    RegisterInputRequest,
    SeasonEnum,
    SeatView,
    Token,
    VisibilityEnum,
)

# The whole-match example's answers and moves, as one app would share them.
from play_match import expect, fail, submit


def sign_up(base_url: str, name: str) -> tuple[str, AuthenticatedClient]:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    username = f"{name}-{secrets.token_hex(4)}"
    token = expect(register.sync_detailed(client=anonymous, body=RegisterInputRequest(
        username=username, password=secrets.token_urlsafe(16), display_name=name,
    )), Token, "register")
    return username, AuthenticatedClient(
        base_url=base_url, token=token.token, prefix="Token", timeout=httpx.Timeout(60.0),
        raise_on_unexpected_status=True,
    )


def check_ratings(people: list[tuple[str, AuthenticatedClient]]) -> dict[str, int]:
    """Each person's rating after their first rated match, read back from their profile and
    the week's leaderboard; by username."""
    # Each person's rating moved off 1500 ± 200, provisional after one match.
    ratings: dict[str, int] = {}
    for username, client in people:
        profile = expect(get_player.sync_detailed("me", client=client), Profile, "profile")
        rated = [entry.rating for entry in profile.games if entry.game == Game.AUCTION]
        rating = rated[0] if rated else None
        if profile.username != username or rating is None or rating.matches != 1 or not (
            rating.provisional and rating.deviation < 200
        ):
            fail(f"{username}'s profile: {profile}")
        ratings[username] = rating.rating
    # Both on the week's board of their game (the all-time board waits for established ratings),
    # with what the rated match won them.
    board = expect(get_leaderboard.sync_detailed(
        Game.AUCTION, client=people[0][1], season=SeasonEnum.WEEK, page_size=100),
        LeaderboardPage, "leaderboard")
    week = {entry.player: entry for entry in board.results}
    for username, points in ratings.items():
        entry = week.get(username)
        if entry is None or entry.points != points - 1500 or entry.matches != 1:
            fail(f"{username} on the week's board: {entry}")
    return ratings


def main(base_url: str) -> None:
    rng = random.Random(11)
    people = [sign_up(base_url, "Ayse"), sign_up(base_url, "Ali")]
    (_, ayse), (_, ali) = people
    created = expect(create_match.sync_detailed(client=ayse, body=MatchCreateRequest(
        game=Game.AUCTION, deals=1, rated=True, visibility=VisibilityEnum.PUBLIC,
        seats=[MeSeatRequest(kind=MeSeatRequestKind.ME),
               OpenSeatRequest(kind=OpenSeatRequestKind.OPEN),
               BotSeatRequest(kind=BotSeatRequestKind.BOT, bot_level=BotLevel.EASY),
               BotSeatRequest(kind=BotSeatRequestKind.BOT, bot_level=BotLevel.MEDIUM)],
    )), Match, "create")
    match_id: UUID = created.id
    joined = expect(join_match.sync_detailed(match_id, client=ali, body=JoinRequest(seat=1)),
                    Joined, "join")
    if not (created.rated and joined.match.rated and joined.match.status == MatchStatus.ACTIVE):
        fail(f"not a rated match in play: {joined.match.status}, rated {joined.match.rated}")
    while True:
        views = [expect(get_seat_view.sync_detailed(match_id, client=client), SeatView, "view")
                 for _, client in people]
        if views[0].status != MatchStatus.ACTIVE:
            break
        for (_, client), view in zip(people, views, strict=True):
            if view.deal is not None and view.deal.to_act == view.seat:
                legal = [a for a in view.deal.legal_actions if not isinstance(a, RedealAction)]
                expect(submit(client, match_id, rng.choice(legal), view.version), SeatView,
                       "move")
    if views[0].status != MatchStatus.FINISHED or not views[0].rated:
        fail(f"ended {views[0].status}, rated {views[0].rated}")
    ratings = check_ratings(people)
    print(f"python client (rated): a rated match of two people finished, places "
          f"{views[0].ranking}; ratings {ratings}, both on the week's leaderboard")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
