"""The leaderboards' counts of players per score mirror the boards' rows through every change:
matches ending, a player becoming established, seasons, an erasure, a recount."""

from __future__ import annotations

import pytest

from games.services import SeatSpec
from platforms.models import PlatformPlayer
from ratings import board_counts, services
from ratings.models import Rating, ScoreCount, SeasonStanding
from tests.admin.helpers import person, play_match

pytestmark = pytest.mark.django_db
ESTABLISHED = 2  # rated matches, in these tests


def counts() -> set[tuple[str, int, int]]:
    return set(ScoreCount.objects.exclude(players=0).values_list("board", "score", "players"))


def rebuilt() -> set[tuple[str, int, int]]:
    kept = counts()
    board_counts.rebuild()
    fresh = counts()
    assert fresh == kept, "the counts kept match by match differ from the rows'"
    return fresh


def places_by_rows() -> dict[tuple[str, int], int]:
    """Each board's place of each score, counted row by row."""
    places = {}
    for row in Rating.objects.all():
        key = board_counts.rating_key(row)
        if key is not None:
            ahead = Rating.objects.filter(game=row.game, circle_id=row.circle_id,
                                          matches__gte=ESTABLISHED,
                                          rating__gt=row.rating).count()
            places[(key, row.rating)] = 1 + ahead
    for standing in SeasonStanding.objects.all():
        key = board_counts.standing_key(standing)
        if key is not None:
            ahead = SeasonStanding.objects.filter(
                game=standing.game, circle_id=standing.circle_id, period=standing.period,
                starts=standing.starts, points__gt=standing.points).count()
            places[(key, standing.points)] = 1 + ahead
    return places


def test_the_counts_follow_every_change(monkeypatch, platform) -> None:
    # Established after two rated matches, so a few matches reach the all-time boards.
    monkeypatch.setattr(board_counts, "PROVISIONAL_MATCHES", ESTABLISHED)
    people = [person(name) for name in ("ayse", "ali", "veli")]
    platform.player("ext-1")
    platform.player("ext-2")
    players = [PlatformPlayer.objects.get(external_id=e).user for e in ("ext-1", "ext-2")]
    tables = [(people[0], people[1]), (people[1], people[2]), (people[0], people[2]),
              (people[0], people[1]), (players[0], players[1]), (players[1], players[0]),
              (players[0], players[1])]
    for seed, (first, second) in enumerate(tables):
        seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
                 SeatSpec("person", user=second), SeatSpec("bot", bot_level="medium")]
        play_match(first, seats=seats, rated=True, seed=seed)
    platform_board = f"auction/{platform.platform.user_id}/all"

    def on_platform_board(found: set[tuple[str, int, int]]) -> int:
        return sum(players for board, _, players in found if board == platform_board)

    assert on_platform_board(rebuilt()) == 2
    for (key, score), place in places_by_rows().items():
        assert 1 + board_counts.ahead(key, score) == place
    # An erasure moves the player's rows off their platform's boards.
    assert platform.client.delete("/api/v1/platform/players/ext-1").status_code == 204
    after_erasure = rebuilt()
    assert on_platform_board(after_erasure) == 1
    # A recount gets the same counts.
    services.recount()
    assert counts() == after_erasure
