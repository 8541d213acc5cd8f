"""Which tables are rated: asked for, the game's default rules, two people's seats; at the start
two named accounts, and no pair beyond its daily bound."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Match
from ratings.models import Rating, RatingChange
from tests.api.conftest import create_match, new_player
from tests.ratings.conftest import named_player

pytestmark = pytest.mark.django_db

BOT = {"kind": "bot", "bot_level": "easy"}
ME_OPEN_BOTS = [{"kind": "me"}, {"kind": "open"}, BOT, BOT]


def rated_table(owner, **body: Any) -> dict[str, Any]:
    match = create_match(owner, rated=True, visibility="public", seats=ME_OPEN_BOTS, **body)
    assert match["rated"] and match["status"] == "waiting"
    return match


def join(someone, match: dict[str, Any]) -> dict[str, Any]:
    response = someone.post(f"/matches/{match['id']}/join", {"seat": 1})
    assert response.status_code == 200, response.content
    return response.json()["match"]


def test_a_rated_table_of_two_named_people_starts_rated() -> None:
    match = rated_table(named_player("ayse"))
    started = join(named_player("ali"), match)
    assert started["status"] == "active" and started["rated"]


@pytest.mark.parametrize("body", [
    {"rules": {"must_trump": False}},
    {"seats": [{"kind": "me"}, BOT, BOT, BOT]},
])
def test_a_table_that_cannot_be_rated_is_refused(body: dict[str, Any]) -> None:
    response = named_player("ayse").post("/matches", {"rated": True, **body})
    assert response.status_code == 400, response.content
    problem = response.json()
    assert (problem["code"], problem["field"]) == ("rated_table_refused", "rated")


def test_a_guest_makes_a_rated_table_casual() -> None:
    match = rated_table(named_player("ayse"))
    started = join(new_player("guest"), match)
    assert started["status"] == "active" and not started["rated"]


def test_a_pair_beyond_its_daily_bound_plays_casual(settings) -> None:
    settings.RATED_MATCHES_PER_PAIR_PER_DAY = 1
    ayse, ali = named_player("ayse"), named_player("ali")
    assert join(ali, rated_table(ayse))["rated"]
    assert not join(ali, rated_table(ayse))["rated"]
    # Another pair is not bound by theirs.
    assert join(named_player("veli"), rated_table(ayse))["rated"]


def test_quick_match_seats_rated_and_casual_apart() -> None:
    ayse, ali, veli = named_player("ayse"), named_player("ali"), named_player("veli")
    rated = ayse.post("/quick-match", {"game": "auction", "rated": True}).json()["match"]
    casual = ali.post("/quick-match", {"game": "auction"}).json()["match"]
    assert rated["id"] != casual["id"] and rated["rated"] and not casual["rated"]
    again = veli.post("/quick-match", {"game": "auction", "rated": True}).json()["match"]
    assert again["id"] == rated["id"]
    refused = veli.post("/quick-match", {"game": "auction", "rated": True,
                                         "rules": {"must_trump": False}})
    assert refused.status_code == 400 and refused.json()["code"] == "rated_table_refused"


def test_the_lobby_says_which_tables_are_rated() -> None:
    match = rated_table(named_player("ayse"))
    lobby = named_player("ali").get("/lobby").json()
    assert [table["rated"] for table in lobby["results"] if table["id"] == match["id"]] == [True]


def leave(someone, match: dict[str, Any]) -> dict[str, Any]:
    response = someone.post(f"/matches/{match['id']}/leave")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_rated_match_its_people_all_leave_ends_rated_the_first_leaver_lowest() -> None:
    ayse, ali = named_player("ayse"), named_player("ali")
    match = join(ali, rated_table(ayse))
    leave(ali, match)
    assert leave(ayse, match)["status"] == "finished"
    finished = Match.objects.get(pk=match["id"])
    assert finished.rated and finished.ranking is not None
    places = dict(RatingChange.objects.filter(match=finished).values_list("user_id", "place"))
    # Below both computer players, who stayed; Ali went first.
    assert places == {ayse.user_id: 3, ali.user_id: 4}
    ratings = dict(Rating.objects.values_list("user_id", "rating"))
    assert ratings[ali.user_id] < ratings[ayse.user_id] < 1500


def test_at_a_table_of_people_the_last_to_leave_finishes_first() -> None:
    people = [named_player(name) for name in ("ayse", "ali", "veli", "can")]
    match = create_match(people[0], rated=True, visibility="public",
                         seats=[{"kind": "me"}] + [{"kind": "open"}] * 3)
    for index, someone in enumerate(people[1:], start=1):
        match = someone.post(f"/matches/{match['id']}/join", {"seat": index}).json()["match"]
    assert match["status"] == "active" and match["rated"]
    for someone in (people[2], people[0], people[3], people[1]):
        leave(someone, match)
    places = dict(RatingChange.objects.values_list("user_id", "place"))
    assert [places[someone.user_id] for someone in people] == [3, 1, 4, 2]


def test_a_pair_counts_every_rated_match_it_started_however_it_ended(settings) -> None:
    settings.RATED_MATCHES_PER_PAIR_PER_DAY = 1
    ayse, ali = named_player("ayse"), named_player("ali")
    first = join(ali, rated_table(ayse))
    assert first["rated"]
    services.abandon_match(match_id=first["id"])  # staff's action on a stuck match
    assert not RatingChange.objects.exists()
    assert not join(ali, rated_table(ayse))["rated"]


def test_a_rated_table_gives_no_bid_estimate() -> None:
    ayse = named_player("ayse")
    rated = join(named_player("ali"), rated_table(ayse))
    refused = ayse.get(f"/matches/{rated['id']}/bid-estimate")
    assert refused.status_code == 403 and refused.json()["code"] == "hints_off"
    casual = create_match(ayse, seats=[{"kind": "me"}, BOT, BOT, BOT])
    assert ayse.get(f"/matches/{casual['id']}/bid-estimate").status_code == 200
