"""The leaderboards: order and shared places, cursor pages, around-me, one player's place,
seasons, circles, and refusals."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from games.services import SeatSpec
from ratings import board_counts, seasons
from ratings.model import PROVISIONAL_MATCHES
from ratings.models import Period, Rating, SeasonStanding
from tests.admin.helpers import person, play_match
from tests.platforms.conftest import new_platform, problem

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/leaderboards/auction"


def people(count: int, prefix: str = "p") -> list:
    User = get_user_model()
    return list(User.objects.bulk_create(
        User(username=f"{prefix}{index:03}", first_name=f"Name {index}") for index in range(count)
    ))


def rate(users, ratings, matches: int = PROVISIONAL_MATCHES, game: str = "auction",
         circle_id: int | None = None) -> None:
    Rating.objects.bulk_create(
        Rating(user=user, game=game, rating=rating, matches=matches, wins=1, circle_id=circle_id)
        for user, rating in zip(users, ratings, strict=True)
    )
    board_counts.rebuild()


def client_of(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    return client


def walk(client: APIClient, path: str) -> list[dict]:
    """Every entry of a board, following `next` to the end."""
    entries: list[dict] = []
    while path:
        response = client.get(path)
        assert response.status_code == 200, response.content
        entries += response.json()["results"]
        path = response.json()["next"]
    return entries


def test_order_and_shared_places() -> None:
    users = people(5)
    rate(users, [1600, 1700, 1600, 1500, 1700])
    body = client_of(users[0]).get(BOARD).json()
    assert (body["game"], body["season"], body["starts"], body["next"]) == (
        "auction", "all", None, None)
    assert [(e["player"], e["place"], e["rating"]) for e in body["results"]] == [
        ("p001", 1, 1700), ("p004", 1, 1700), ("p000", 3, 1600), ("p002", 3, 1600),
        ("p003", 5, 1500),
    ]
    first = body["results"][0]
    assert first == {"place": 1, "player": "p001", "display_name": "Name 1", "rating": 1700,
                     "deviation": 200, "matches": PROVISIONAL_MATCHES, "wins": 1}


def test_cursor_pages_cover_every_entry_once_however_many_tie() -> None:
    users = people(23)
    rate(users, [1500 + 10 * (index % 3) for index in range(23)])
    client = client_of(users[0])
    whole = client.get(f"{BOARD}?page_size=100").json()["results"]
    for size in (1, 2, 5, 7):
        assert walk(client, f"{BOARD}?page_size={size}") == whole
    assert len({entry["player"] for entry in whole}) == 23
    assert [entry["place"] for entry in whole] == [1] * 7 + [8] * 8 + [16] * 8


def test_provisional_players_are_left_out_of_all_time_but_on_season_boards() -> None:
    settled, fresh = people(2)
    rate([settled], [1500])
    rate([fresh], [1900], matches=PROVISIONAL_MATCHES - 3)
    week = seasons.season_start(Period.WEEK, timezone.now())
    SeasonStanding.objects.bulk_create(
        SeasonStanding(user=user, game="auction", period=Period.WEEK, starts=week,
                       points=points, matches=1)
        for user, points in ((settled, 5), (fresh, 40))
    )
    board_counts.rebuild()
    client = client_of(fresh)
    assert [e["player"] for e in client.get(BOARD).json()["results"]] == ["p000"]
    body = client.get(f"{BOARD}?season=week").json()
    assert (body["season"], body["starts"]) == ("week", week.isoformat())
    assert body["min_rated_matches"] == 1
    assert [(e["player"], e["points"], e["place"]) for e in body["results"]] == [
        ("p001", 40, 1), ("p000", 5, 2)]
    absent = client.get(f"{BOARD}/around-me")
    problem(absent, 404, "not_on_leaderboard")
    assert "3 to go" in absent.json()["detail"]
    assert client.get(f"{BOARD}/around-me?season=week").json()["place"] == 1


def test_a_past_season_by_its_start_and_a_wrong_start_refused() -> None:
    users = people(2)
    month = seasons.season_start(Period.MONTH, timezone.now())
    last = seasons.season_start(Period.MONTH, timezone.now().replace(day=1) - timedelta(days=1))
    SeasonStanding.objects.bulk_create([
        SeasonStanding(user=users[0], game="auction", period=Period.MONTH, starts=last, points=9,
                       matches=1),
        SeasonStanding(user=users[1], game="auction", period=Period.MONTH, starts=month,
                       points=3, matches=1),
    ])
    board_counts.rebuild()
    client = client_of(users[0])
    past = client.get(f"{BOARD}?season=month&starts={last.isoformat()}").json()
    assert [e["player"] for e in past["results"]] == ["p000"]
    assert [e["player"] for e in client.get(f"{BOARD}?season=month").json()["results"]] == [
        "p001"]
    for query in (f"season=month&starts={last + timedelta(days=1)}",
                  f"season=week&starts={date(2026, 11, 3)}",  # a Tuesday
                  f"season=month&starts={month.replace(year=month.year + 1)}",  # to come
                  f"season=all&starts={last}", f"starts={last}"):
        problem(client.get(f"{BOARD}?{query}"), 400, "invalid_season_start")


def test_around_me_at_the_top_the_bottom_and_in_between() -> None:
    users = people(30)
    rate(users, [2000 - 10 * index for index in range(30)])
    top = client_of(users[0]).get(f"{BOARD}/around-me?size=3").json()
    assert top["place"] == 1
    assert [e["player"] for e in top["results"]] == ["p000", "p001", "p002", "p003"]
    bottom = client_of(users[29]).get(f"{BOARD}/around-me?size=3").json()
    assert bottom["place"] == 30
    assert [e["place"] for e in bottom["results"]] == [27, 28, 29, 30]
    middle = client_of(users[10]).get(f"{BOARD}/around-me").json()
    assert middle["place"] == 11
    assert [e["place"] for e in middle["results"]] == list(range(1, 22))


def test_around_me_within_a_tie() -> None:
    users = people(9)
    rate(users, [1600, 1600, 1500, 1500, 1500, 1500, 1500, 1400, 1400])
    body = client_of(users[4]).get(f"{BOARD}/around-me?size=3").json()
    assert body["place"] == 3
    assert [(e["player"], e["place"]) for e in body["results"]] == [
        ("p001", 1), ("p002", 3), ("p003", 3), ("p004", 3), ("p005", 3), ("p006", 3),
        ("p007", 8)]


def test_not_on_the_board() -> None:
    (nobody,) = people(1)
    absent = client_of(nobody).get(f"{BOARD}/around-me")
    problem(absent, 404, "not_on_leaderboard")
    assert f"{PROVISIONAL_MATCHES} to go" in absent.json()["detail"]
    problem(client_of(nobody).get(f"{BOARD}/around-me?season=month"), 404, "not_on_leaderboard")


def test_a_players_place() -> None:
    users = people(4)
    rate(users[:3], [1500, 1700, 1500])
    client = client_of(users[3])
    body = client.get(f"{BOARD}/players/p002").json()
    assert body == {"game": "auction", "season": "all", "starts": None,
                    "min_rated_matches": PROVISIONAL_MATCHES, "place": 2,
                    "player": "p002", "display_name": "Name 2", "rating": 1500,
                    "deviation": 200, "matches": PROVISIONAL_MATCHES, "wins": 1}
    problem(client.get(f"{BOARD}/players/p003"), 404, "not_on_leaderboard")
    problem(client.get(f"{BOARD}/players/nobody"), 404, "not_on_leaderboard")
    problem(client.get("/api/v1/leaderboards/spades/players/p002"), 404, "not_on_leaderboard")


def test_a_platforms_players_and_everyone_else_see_their_own_circles() -> None:
    alpha = new_platform("Alpha Games")
    app = alpha.player("ext-1", "Ayşe")
    circle = alpha.platform.user_id
    outsiders = people(2, "out")
    rate(outsiders, [1800, 1400])
    insider = get_user_model().objects.get(platform_player__external_id="ext-1")
    rate([insider], [1600], circle_id=circle)
    assert [e["player"] for e in app.get(BOARD).json()["results"]] == [insider.username]
    assert app.get(f"{BOARD}/around-me").json()["place"] == 1
    problem(app.get(f"{BOARD}/players/out000"), 404, "not_on_leaderboard")
    outside = client_of(outsiders[1])
    assert [e["player"] for e in outside.get(BOARD).json()["results"]] == ["out000", "out001"]
    problem(outside.get(f"{BOARD}/players/{insider.username}"), 404, "not_on_leaderboard")
    # The platform's key reads its board, with its ids, on the platform API only.
    problem(alpha.client.get(BOARD), 403, "platform_key_not_accepted")
    body = alpha.get("/leaderboards/auction").json()
    assert [(e["player"], e["external_id"], e["place"]) for e in body["results"]] == [
        (insider.username, "ext-1", 1)]
    hooks_only = new_platform("Gamma", scopes=["webhooks:manage"])
    problem(hooks_only.get("/leaderboards/auction"), 403, "missing_scope")


@pytest.mark.parametrize("path, status, code", [
    ("/api/v1/leaderboards/chess", 404, "not_found"),
    (f"{BOARD}?page_size=0", 400, "invalid_input"),
    (f"{BOARD}?page_size=101", 400, "invalid_input"),
    (f"{BOARD}?season=year", 400, "invalid_input"),
    (f"{BOARD}?cursor=nonsense", 400, "invalid_cursor"),
    (f"{BOARD}?cursor=cz05OTk5OTk5OTk5OTkmdT0x", 400, "invalid_cursor"),  # s=99999999999999&u=1
    (f"{BOARD}/around-me?size=51", 400, "invalid_input"),
    (f"{BOARD}/around-me?size=0", 400, "invalid_input"),
])
def test_bad_input(path: str, status: int, code: str) -> None:
    problem(client_of(person("reader")).get(path), status, code)


def test_signing_in_is_needed() -> None:
    assert APIClient().get(BOARD).status_code == 401


def test_a_rated_match_puts_its_people_on_the_weeks_board() -> None:
    ayse, ali = person("ayse"), person("ali")
    seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"), SeatSpec("person", user=ali),
             SeatSpec("bot", bot_level="hard")]
    play_match(ayse, seats=seats, rated=True)
    body = client_of(ayse).get(f"{BOARD}?season=week").json()
    assert {e["player"] for e in body["results"]} == {"ayse", "ali"}
    assert all(e["matches"] == 1 for e in body["results"])
    assert client_of(ali).get(f"{BOARD}/around-me?season=week").json()["place"] in (1, 2)
