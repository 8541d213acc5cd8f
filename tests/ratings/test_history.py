"""Players' pages: the profile with ratings and statistics, the finished matches and the rating
history, newest first by cursor; privacy hides matches and statistics from others (never from
oneself, never the ratings); other circles and unknown names are not found."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games.models import Match, Seat
from games.services import SeatSpec
from platforms.models import PlatformPlayer
from ratings.models import GameRecord, Rating, RatingChange, ScoreCount, SeasonStanding
from ratings.services import rate_match
from tests.admin.helpers import person, play_match
from tests.platforms.conftest import new_platform, play_to_the_end, problem

pytestmark = pytest.mark.django_db

API = "/api/v1"


def client_of(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


def with_ali(ali: Any) -> list[SeatSpec]:
    return [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
            SeatSpec("person", user=ali), SeatSpec("bot", bot_level="hard")]


@pytest.fixture
def played() -> dict[str, Any]:
    """Ayşe's three finished matches, oldest first: two rated with Ali, one casual Koz Maça;
    and one unfinished."""
    ayse, ali = person("ayse"), person("Ali")
    ayse.first_name = "Ayşe"
    ayse.save()
    matches = [play_match(ayse, seats=with_ali(ali), rated=True, deal_count=2, seed=seed)
               for seed in range(2)]
    matches.append(play_match(ayse, game="spades", deal_count=1, seed=3))
    play_match(ayse, deal_count=2, finish=False)
    return {"ayse": ayse, "ali": ali, "matches": matches}


def test_a_profile_shows_ratings_and_statistics(played) -> None:
    ayse, ali = played["ayse"], played["ali"]
    body = client_of(ali).get(f"{API}/players/AYSE").json()
    assert (body["username"], body["display_name"]) == ("ayse", "Ayşe")
    assert body["statistics_hidden"] is False and body["history_hidden"] is False
    games = {entry["game"]: entry for entry in body["games"]}
    assert list(games) == ["auction", "partnership", "spades"]
    rating = games["auction"]["rating"]
    changes = RatingChange.objects.filter(user=ayse).order_by("created_at")
    assert rating["matches"] == 2 and rating["provisional"] is True
    assert rating["rating"] == changes.last().rating_after
    assert games["spades"]["rating"] is None and games["partnership"]["rating"] is None
    record = GameRecord.objects.get(user=ayse, game="auction")
    stats = games["auction"]["statistics"]
    assert (stats["matches"], stats["deals"], stats["points"]) == (2, 4, record.points)
    assert stats["win_percent"] == round(100 * record.wins / 2, 1)
    assert stats["average_points"] == round(record.points / 4, 2)
    assert stats["batak_percent"] == round(100 * record.batak / 4, 1)
    assert stats["made_percent"] == (
        round(100 * record.made / record.declared, 1) if record.declared else None)
    assert games["partnership"]["statistics"]["matches"] == 0
    assert games["partnership"]["statistics"]["win_percent"] is None
    assert client_of(ayse).get(f"{API}/players/me").json() == body


def test_finished_matches_newest_first_with_filters_and_pages(played) -> None:
    ayse, ali, matches = played["ayse"], played["ali"], played["matches"]
    client = client_of(ali)
    answer = client.get(f"{API}/players/ayse/matches")
    assert answer.status_code == 200, answer.content
    lines = answer.json()["results"]
    assert [line["id"] for line in lines] == [str(m.pk) for m in reversed(matches)]
    casual, rated = lines[0], lines[2]
    assert (casual["game"], casual["rated"], casual["rating_change"]) == ("spades", False, None)
    assert casual["place"] == matches[2].ranking[0] and casual["score"] == matches[2].totals[0]
    change = RatingChange.objects.get(match=matches[0], user=ayse)
    assert rated["rating_change"] == {"before": change.rating_before,
                                      "after": change.rating_after, "delta": change.delta}
    assert (rated["seat"], rated["place"], rated["deal_count"]) == (0, change.place, 2)
    assert [(o["seat"], o["username"], o["bot_level"]) for o in rated["others"]] == [
        (1, None, "easy"), (2, "Ali", None), (3, None, "hard")]

    def ids(query: str) -> list[str]:
        return [line["id"] for line in client.get(f"{API}/players/ayse/matches?{query}")
                .json()["results"]]

    assert ids("game=spades") == [str(matches[2].pk)]
    assert ids("rated=true") == [str(matches[1].pk), str(matches[0].pk)]
    assert ids("rated=false&game=auction") == []
    # Ali's own list: the two he sat at.
    assert len(client.get(f"{API}/players/me/matches").json()["results"]) == 2

    walked, path = [], f"{API}/players/ayse/matches?page_size=1"
    while path:
        page = client.get(path if path.startswith(API) else path).json()
        walked += [line["id"] for line in page["results"]]
        path = page["next"]
    assert walked == [str(m.pk) for m in reversed(matches)]


def test_a_page_costs_the_same_queries_however_long(played) -> None:
    client = client_of(played["ali"])

    def queries(size: int) -> int:
        with CaptureQueriesContext(connection) as captured:
            answer = client.get(f"{API}/players/ayse/matches?page_size={size}")
        assert len(answer.json()["results"]) == size
        return len(captured)

    assert queries(1) == queries(3) <= 8


def test_the_rating_history_is_public_and_paged(played) -> None:
    ayse, ali = played["ayse"], played["ali"]
    first = client_of(ali).get(f"{API}/players/ayse/ratings/auction?page_size=1").json()
    changes = list(RatingChange.objects.filter(user=ayse).order_by("-created_at"))
    latest = changes[0]
    assert first["results"] == [{
        "match_id": str(latest.match_id), "rating": latest.rating_after,
        "deviation": latest.deviation_after, "delta": latest.delta, "place": latest.place,
        "at": first["results"][0]["at"]}]
    second = client_of(ali).get(first["next"]).json()
    assert [p["match_id"] for p in second["results"]] == [str(changes[1].match_id)]
    assert second["next"] is None
    # Hidden history: the ratings stay public, but not which matches they came from.
    client_of(ayse).patch(f"{API}/me/privacy", {"history_public": False,
                                                "statistics_public": False}, format="json")
    hidden = client_of(ali).get(f"{API}/players/ayse/ratings/auction").json()["results"]
    assert [(p["rating"], p["match_id"], p["place"]) for p in hidden] == [
        (change.rating_after, None, None) for change in changes]
    own = client_of(ayse).get(f"{API}/players/me/ratings/auction").json()["results"]
    assert [p["match_id"] for p in own] == [str(change.match_id) for change in changes]
    assert client_of(ali).get(f"{API}/players/ayse/ratings/spades").json()["results"] == []


def test_the_newest_point_is_the_rating_now_whichever_match_finished_first() -> None:
    """Of two matches of one person finishing at once, the first to finish may be rated second
    (on PostgreSQL it waits for the other's lock of the person's rating; raced in
    tests/integration/test_ratings.py): its point is the newer, as its change was."""
    ayse, ali = person("ayse"), person("ali")
    first, second = (play_match(ayse, seats=with_ali(ali), rated=True, seed=seed)
                     for seed in range(2))
    assert first.finished_at < second.finished_at
    for rows in (RatingChange, Rating, SeasonStanding, ScoreCount):
        rows.objects.all().delete()
    for match in (second, first):
        rate_match(Match.objects.prefetch_related("seats").get(pk=match.pk))
    points = client_of(ali).get(f"{API}/players/ayse/ratings/auction").json()["results"]
    assert [point["match_id"] for point in points] == [str(first.pk), str(second.pk)]
    assert points[0]["rating"] == Rating.objects.get(user=ayse).rating
    assert points[0]["at"] > points[1]["at"]


def test_an_opponent_who_hides_their_history_is_not_named_in_others(played) -> None:
    ayse, ali = played["ayse"], played["ali"]
    seated_as = Seat.objects.get(match=played["matches"][0], user=ali).display_name
    client_of(ali).patch(f"{API}/me/privacy", {"history_public": False}, format="json")
    answer = client_of(person("veli")).get(f"{API}/players/ayse/matches?rated=true")
    for line in answer.json()["results"]:
        assert line["others"][1] == {"seat": 2, "display_name": "A player", "username": None,
                                     "bot_level": None}
    assert ali.username not in answer.content.decode()
    assert seated_as not in answer.content.decode()
    # Named to himself, and to the player whose history it is (who sat with him).
    for someone in (ali, ayse):
        lines = client_of(someone).get(f"{API}/players/ayse/matches?rated=true").json()
        assert lines["results"][0]["others"][1]["username"] == "Ali"


def test_privacy_hides_matches_and_statistics_from_others_only(played) -> None:
    ayse, ali = played["ayse"], played["ali"]
    mine = client_of(ayse)
    assert mine.get(f"{API}/me/privacy").json() == {"history_public": True,
                                                    "statistics_public": True}
    answer = mine.patch(f"{API}/me/privacy", {"history_public": False}, format="json")
    assert answer.json() == {"history_public": False, "statistics_public": True}
    problem(client_of(ali).get(f"{API}/players/ayse/matches"), 403, "history_hidden")
    assert len(mine.get(f"{API}/players/me/matches").json()["results"]) == 3
    seen = client_of(ali).get(f"{API}/players/ayse").json()
    assert seen["history_hidden"] is True and seen["games"][0]["statistics"] is not None

    mine.patch(f"{API}/me/privacy", {"statistics_public": False}, format="json")
    seen = client_of(ali).get(f"{API}/players/ayse").json()
    assert seen["statistics_hidden"] is True
    assert [entry["statistics"] for entry in seen["games"]] == [None, None, None]
    assert seen["games"][0]["rating"]["matches"] == 2  # ratings stay public
    own = mine.get(f"{API}/players/ayse").json()
    assert own["statistics_hidden"] is False and own["games"][0]["statistics"]["matches"] == 2
    assert mine.get(f"{API}/me/privacy").json() == {"history_public": False,
                                                    "statistics_public": False}


@pytest.mark.parametrize("path, code", [
    ("/players/ayse/matches?cursor=nonsense", "invalid_cursor"),
    ("/players/ayse/matches?game=poker", "invalid_input"),
    ("/players/ayse/matches?rated=maybe", "invalid_input"),
    ("/players/ayse/matches?page_size=0", "invalid_input"),
    ("/players/ayse/ratings/poker", "invalid_input"),
    ("/players/ayse/ratings/auction?cursor=cD1ub3QtYS10aW1l", "invalid_cursor"),
])
def test_bad_input_is_400(played, path: str, code: str) -> None:
    problem(client_of(played["ali"]).get(API + path), 400, code)


@pytest.mark.parametrize("body", [{"history_public": "no"}, {"public": True}])
def test_a_bad_privacy_change_is_400(body: dict[str, Any]) -> None:
    answer = client_of(person("ayse")).patch(f"{API}/me/privacy", body, format="json")
    assert answer.status_code == 400


def test_other_circles_and_unknown_names_are_not_found() -> None:
    ayse = person("ayse")
    platform = new_platform("Alpha Games")
    app = platform.player("user-42", "Deniz")
    deniz = PlatformPlayer.objects.get(external_id="user-42").user
    for path in ("", "/matches", "/ratings/auction"):
        problem(client_of(ayse).get(f"{API}/players/{deniz.username}{path}"), 404, "not_found")
        problem(app.get(f"{API}/players/ayse{path}"), 404, "not_found")
        problem(client_of(ayse).get(f"{API}/players/nobody{path}"), 404, "not_found")
    assert app.get(f"{API}/players/me").json()["display_name"] == "Deniz"


def test_sign_in_is_needed() -> None:
    problem(APIClient().get(f"{API}/players/ayse"), 401, "not_authenticated")


def test_a_platform_reads_its_players_history_whatever_their_privacy() -> None:
    platform = new_platform("Alpha Games")
    # People only: computer players move once a transaction commits, which a test's never does.
    apps = {seat: platform.player(f"p{seat}", f"Player {seat}") for seat in range(4)}
    seats = [{"kind": "player", "external_id": f"p{seat}"} for seat in range(4)]
    created = platform.post("/matches", {"game": "auction", "deals": 1, "seats": seats,
                                         "clock": None})
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    play_to_the_end(platform, apps, match_id, random.Random(2))
    apps[0].patch(f"{API}/me/privacy", {"history_public": False, "statistics_public": False},
                  format="json")
    problem(apps[1].get(f"{API}/players/"
                        f"{PlatformPlayer.objects.get(external_id='p0').user.username}/matches"),
            403, "history_hidden")

    page = platform.get("/players/p0/matches").json()
    [line] = page["results"]
    assert (line["id"], line["seat"], line["rated"]) == (match_id, 0, False)
    assert [(o["seat"], o["external_id"], o["display_name"]) for o in line["others"]] == [
        (1, "p1", "Player 1"), (2, "p2", "Player 2"), (3, "p3", "Player 3")]
    assert page["next"] is None
    profile = platform.get("/players/p0/profile").json()
    assert profile["display_name"] == "Player 0"
    assert profile["statistics_hidden"] is False
    assert profile["games"][0]["statistics"]["matches"] == 1
    assert platform.get("/players/p0/matches?game=spades").json()["results"] == []

    other = new_platform("Beta Cards")
    for path in ("/players/p0/matches", "/players/p0/profile"):
        problem(other.get(path), 404, "not_found")
    webhooks_only = new_platform("Gamma", scopes=["webhooks:manage"])
    problem(webhooks_only.get("/players/p0/profile"), 403, "missing_scope")
    problem(platform.client.get(f"{API}/players/me"), 403, "platform_key_not_accepted")


@pytest.mark.parametrize("path", ["/players/a%00b", "/players/a%00b/matches",
                                  "/players/a%00b/ratings/auction",
                                  "/leaderboards/auction/players/a%00b"])
def test_a_name_with_a_nul_is_nobody(played, path: str) -> None:
    response = client_of(played["ali"]).get(API + path)
    assert response.status_code == 404, response.content
