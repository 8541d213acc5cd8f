"""Computer players sit under names of their own: no two alike at a table, in every answer that
names the seats (the match, the seat view, the match list, the lobby, the deals and the
notation), however the seats were filled."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from games import bot_names, sweeper
from games.models import BotLevel, Match

from .conftest import create_match, submit

LEVELS = [level.value for level in BotLevel]


def bots_of(seats: list[dict[str, Any]]) -> list[str]:
    return [seat["display_name"] for seat in seats if seat["kind"] == "bot"]


def assert_named_apart(seats: list[dict[str, Any]], count: int) -> None:
    names = bots_of(seats)
    assert len(names) == count and len(set(names)) == count, names
    assert all(name and "bot" not in name.lower() for name in names), names


def play_my_turns_to_the_end(me, match_id: str) -> None:
    rng = random.Random(7)
    deadline = time.monotonic() + 60
    while (view := me.view(match_id))["status"] == "active":
        assert time.monotonic() < deadline, "timed out"
        if view["deal"]["to_act"] != view["seat"]:
            time.sleep(0.01)  # the computer players' round, after the answer
            continue
        legal = [action for action in view["deal"]["legal_actions"] if action["kind"] != "redeal"]
        assert submit(me, match_id, rng.choice(legal),
                      expected_version=view["version"]).status_code == 200


def every_answer_naming_seats(owner, match_id: str) -> list[list[dict[str, Any]]]:
    answers = [owner.get(f"/matches/{match_id}").json()["seats"],
               owner.view(match_id)["seats"]]
    listed = [match for match in owner.get("/matches").json()["results"]
              if match["id"] == match_id]
    answers += [match["seats"] for match in listed]
    return answers


@pytest.mark.django_db
@pytest.mark.parametrize("level", LEVELS)
def test_three_computer_players_of_one_level_have_three_names(player, level: str) -> None:
    owner = player("Ayşe")
    match = create_match(owner, game="auction", deals=1,
                         seats=[{"kind": "me"}, *[{"kind": "bot", "bot_level": level}] * 3])
    assert_named_apart(match["seats"], 3)
    assert set(bots_of(match["seats"])) <= set(bot_names.ROSTER[level])
    for seats in every_answer_naming_seats(owner, match["id"]):
        assert bots_of(seats) == bots_of(match["seats"])


@pytest.mark.django_db
def test_no_computer_player_takes_the_name_of_a_person_at_the_table(player) -> None:
    owner = player("Zeynep")
    for _ in range(8):
        match = create_match(owner, game="auction", deals=1, seats=[
            {"kind": "me"}, *[{"kind": "bot", "bot_level": "medium"}] * 3])
        assert "Zeynep" not in bots_of(match["seats"])
        owner.post(f"/matches/{match['id']}/cancel")


@pytest.mark.django_db(transaction=True)  # the computer players play in the lane's thread
def test_a_table_of_mixed_levels_names_each_and_the_notation_says_so(player) -> None:
    owner = player("Ayşe")
    match = create_match(owner, game="auction", deals=1, seats=[
        {"kind": "me"}, {"kind": "bot", "bot_level": "easy"},
        {"kind": "bot", "bot_level": "medium"}, {"kind": "bot", "bot_level": "medium"}])
    assert_named_apart(match["seats"], 3)
    play_my_turns_to_the_end(owner, match["id"])
    notation = owner.get(f"/matches/{match['id']}/notation").content.decode()
    named = re.findall(r'\[Name(\d) "([^"]*)"\]', notation)
    assert [name for _, name in named][1:] == bots_of(match["seats"])


@pytest.mark.django_db
def test_quick_match_seats_its_computer_players_under_names_of_their_own(player) -> None:
    someone = player("Ayşe")
    body = someone.post("/quick-match", {"game": "auction", "deals": 1,
                                         "fill_with_bots_after": 30,
                                         "bot_level": "medium"}).json()
    match_id = body["match"]["id"]
    Match.objects.filter(pk=match_id).update(fill_bots_at=timezone.now())
    assert sweeper.run_clocks() == 1
    for seats in every_answer_naming_seats(someone, match_id):
        assert_named_apart(seats, 3)


@pytest.mark.django_db
def test_a_lobby_table_with_open_seats_names_the_computer_players_it_has(player) -> None:
    owner = player("Ayşe")
    match = create_match(owner, game="auction", deals=1, visibility="public", seats=[
        {"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot_level": "hard"},
        {"kind": "bot", "bot_level": "hard"}])
    assert_named_apart(match["seats"], 2)
    lobby = [table for table in owner.get("/lobby").json()["results"]
             if table["id"] == match["id"]]
    assert lobby and bots_of(lobby[0]["seats"]) == bots_of(match["seats"])


@given(levels=st.lists(st.sampled_from(LEVELS), max_size=4),
       taken=st.sets(st.sampled_from([name for names in bot_names.ROSTER.values()
                                      for name in names]), max_size=4),
       seed=st.integers())
def test_names_are_never_alike_nor_taken(levels: list[str], taken: set[str], seed: int) -> None:
    names = bot_names.pick(levels, taken, seed)
    assert len(names) == len(levels) == len(set(names))
    assert not set(names) & taken
    assert names == bot_names.pick(levels, taken, seed)  # the same table names the same


@pytest.mark.django_db
def test_a_platforms_match_names_its_computer_players_apart() -> None:
    from tests.platforms.conftest import new_platform

    platform = new_platform("Names")
    platform.player("ext-1")
    created = platform.post("/matches", {"game": "auction", "deals": 1, "seats": [
        {"kind": "player", "external_id": "ext-1"},
        *[{"kind": "bot", "bot_level": "easy"}] * 3]})
    assert created.status_code == 201, created.content
    assert_named_apart(created.json()["seats"], 3)
    read = platform.get(f"/matches/{created.json()['id']}").json()
    assert bots_of(read["seats"]) == bots_of(created.json()["seats"])
