"""Whole matches through HTTP: four people play every game to the end, while every view is
checked against the schema and for hidden cards, and the event feed against the log."""

import random
import time

import pytest

from games.models import Action

from .conftest import play_random_turn, submit, table_of_four
from .schema import assert_matches

GAMES = [
    ("auction", {}),
    ("partnership", {"partnership_dummy": True}),
    ("spades", {"spades_announcements": True}),
    ("spades", {}),
]


def check_no_hidden_cards(views: list[dict]) -> None:
    """No seat's view shows an unplayed card of another seat (a face-up dummy excepted)."""
    hands = [set(view["deal"]["hand"]) for view in views]
    for seat, view in enumerate(views):
        deal = view["deal"]
        shown = set(deal["hand"]) | set(deal["dummy_hand"] or [])
        for other in range(4):
            if other in (seat, deal["dummy"]):
                continue
            assert not hands[other] & shown, (seat, other)
        blob = str({k: v for k, v in deal.items() if k not in ("hand", "dummy_hand")})
        for other in range(4):
            if other != seat:
                for card in hands[other] - set(deal["dummy_hand"] or []):
                    assert f"'{card}'" not in blob, (seat, card)


@pytest.mark.parametrize(("game", "rules"), GAMES)
def test_full_match_with_four_people(player, game, rules) -> None:
    rng = random.Random(hash(game) & 0xFFFF)
    match_id, players = table_of_four(player, game=game, deals=2, **rules)
    seen_versions = 0
    for _ in range(400):
        views = [p.view(match_id) for p in players]
        for view in views:
            assert_matches(view, "SeatView")
        if views[0]["status"] != "active":
            break
        check_no_hidden_cards(views)
        play_random_turn(players, match_id, rng)
        feed = players[1].get(f"/matches/{match_id}/events?after={seen_versions}&wait=0").json()
        assert_matches(feed, "EventPage")
        assert [e["version"] for e in feed["events"]] == list(
            range(seen_versions + 1, feed["version"] + 1)
        )
        seen_versions = feed["version"]
    final = players[0].get(f"/matches/{match_id}").json()
    assert_matches(final, "Match")
    assert final["status"] == "finished" and final["deals_played"] == 2
    records = players[3].get(f"/matches/{match_id}/deals").json()
    finished = [r for r in records if r["status"] == "finished"]
    assert len(finished) == 2
    for record in records:
        assert_matches(record, "DealRecord")
    totals = [sum(r["scores"][seat] for r in finished) for seat in range(4)]
    assert final["totals"] == totals and final["ranking"] is not None
    assert Action.objects.filter(match_id=match_id).count() == final["version"]
    assert players[0].post(f"/matches/{match_id}/actions",
                           {"kind": "pass"}).json()["code"] == "match_not_active"


@pytest.mark.django_db(transaction=True)
def test_person_against_three_bots_finishes(player) -> None:
    rng = random.Random(2)
    someone = player("Solo")
    match = someone.post("/matches", {"game": "auction", "deals": 1}).json()
    for _ in range(60):
        view = someone.view(match["id"])
        if view["status"] != "active":
            break
        assert view["deal"]["to_act"] == 0, "bots move on their own"
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        assert submit(someone, match["id"], rng.choice(legal)).status_code == 200
    feed = someone.get(f"/matches/{match['id']}/events?after=0&wait=0").json()
    assert feed["status"] == "finished"
    assert {e["seat"] for e in feed["events"]} == {0, 1, 2, 3}


def test_event_feed_waits_then_returns(player) -> None:
    match_id, players = table_of_four(player)
    started = time.monotonic()
    feed = players[0].get(f"/matches/{match_id}/events?after=0&wait=1").json()
    assert feed["events"] == [] and time.monotonic() - started >= 0.9
    assert players[0].get(f"/matches/{match_id}/events?wait=31").status_code == 400
