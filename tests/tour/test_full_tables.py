"""Whole tables of the tour played over the API: a person making random legal moves against the
table's characters, whose turns run as in-process Celery tasks once each move commits."""

import random

import pytest

from bots import players
from tests.api.conftest import Player, new_player, submit
from tour import content

from .conftest import open_tables, open_up_to, start, tables


def play_to_the_end(someone: Player, match_id: str, rng: random.Random) -> None:
    for _ in range(content.DEALS * 40):
        view = someone.view(match_id)
        if view["status"] != "active":
            return
        assert view["deal"]["to_act"] == 0, "the characters move by themselves"
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        response = submit(someone, match_id, rng.choice(legal))
        assert response.status_code == 200, response.content
    raise AssertionError("the match did not finish")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("table", content.TABLES, ids=lambda table: table.slug)
def test_a_whole_table_against_its_characters(table) -> None:
    someone = new_player("Ayşe")
    open_up_to(someone, table.slug)
    match = start(someone, table.slug)
    play_to_the_end(someone, match["id"], random.Random(7))

    result = someone.get(f"/tour/matches/{match['id']}").json()
    final = result["match"]
    assert final["status"] == "finished" and final["deals_played"] == content.DEALS
    assert result["place"] == final["ranking"][0]
    assert result["won"] is (result["place"] == 1)
    feed = someone.get(f"/matches/{match['id']}/events?after=0&wait=0").json()
    assert {event["seat"] for event in feed["events"]} == {0, 1, 2, 3}

    progress = tables(someone)[table.slug]["progress"]
    assert progress == {"played": 1, "won": int(result["won"]),
                        "best_place": result["place"], "best_total": final["totals"][0]}
    following = content.next_table(table)
    if following is not None:
        assert (following.slug in open_tables(someone)) is result["won"]


@pytest.mark.django_db(transaction=True)
def test_characters_play_in_their_own_style(monkeypatch) -> None:
    seen: dict[int, set] = {1: set(), 2: set(), 3: set()}

    def spy(level_player):
        def play(observation, rng, style):
            seen[observation.seat].add(style)
            return level_player(observation, rng, style)
        return play

    monkeypatch.setattr(players, "PLAYERS", {level: spy(level_player)
                                             for level, level_player in players.PLAYERS.items()})
    someone = new_player()
    match_id = start(someone, content.TABLES[0].slug)["id"]
    rng = random.Random(3)
    # Until every character has moved: each move of the person hands the turn on to them.
    for _ in range(20):
        if all(seen.values()):
            break
        view = someone.view(match_id)
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        assert submit(someone, match_id, rng.choice(legal)).status_code == 200
    for seat, character in enumerate(content.TABLES[0].characters, start=1):
        assert seen[seat] == {character.style}, character.slug
