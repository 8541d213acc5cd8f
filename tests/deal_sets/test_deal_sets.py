"""Deal sets (deal_sets/): the deal of the day, one table per person with the set's cards, the
same answers from the computer players at every table, and results compared."""

from __future__ import annotations

import hashlib
import random
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from bots import players
from deal_sets import services
from deal_sets.models import DealSet
from games.engine.notation import read_deal
from games.models import Action
from tests.api.conftest import Player, submit


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6, bidding_layouts=8))


def daily(someone: Player, game: str = "spades") -> dict:
    answer = someone.get(f"/deal-sets/daily/{game}")
    assert answer.status_code == 200, answer.content
    return answer.json()


def quick(deal_set_id: str) -> None:
    """The set's computer players at Medium (a quicker test; they are seeded all the same)."""
    DealSet.objects.filter(pk=deal_set_id).update(bot_level="medium")


def play(someone: Player, deal_set_id: str, seed: int) -> tuple[str, list[tuple]]:
    """Play the set to its end with seeded random moves; the match and its whole log."""
    answer = someone.post(f"/deal-sets/{deal_set_id}/play")
    assert answer.status_code == 201, answer.content
    match_id = answer.json()["id"]
    rng = random.Random(seed)
    while (view := someone.view(match_id))["status"] == "active":
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        assert submit(someone, match_id, rng.choice(legal)).status_code == 200
    log = list(Action.objects.filter(match_id=match_id).order_by("version")
               .values_list("seat", "kind", "payload"))
    return match_id, log


@pytest.mark.django_db
def test_everyone_gets_the_same_deal_of_the_day_with_its_cards_hidden(player) -> None:
    first, second = daily(player("A")), daily(player("B"))
    assert first["id"] == second["id"] and first["kind"] == "daily"
    assert first["day"] == timezone.now().date().isoformat()
    assert first["revealed"] is None and first["closed"] is False
    assert daily(player("C"), "auction")["id"] != first["id"]
    assert player("D").get("/deal-sets/daily/bridge").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_table_of_the_set_deals_its_cards_from_its_seat(player) -> None:
    someone = player("Solo")
    deal_set = daily(someone)
    quick(deal_set["id"])
    answer = someone.post(f"/deal-sets/{deal_set['id']}/play")
    assert answer.status_code == 201, answer.content
    match = answer.json()
    assert match["rated"] is False and match["visibility"] == "private"
    assert [seat["kind"] for seat in match["seats"]][:1] == ["person"]
    stored = DealSet.objects.get(pk=deal_set["id"])
    hand = someone.view(match["id"])["deal"]["hand"]
    assert sorted(hand) == sorted(services.deal_start(stored).to_dict()["hands"][0])
    again = someone.post(f"/deal-sets/{deal_set['id']}/play")
    assert (again.status_code, again.json()["code"]) == (409, "deal_set_played")
    assert daily(someone)["mine"]["match_id"] == match["id"]


@pytest.mark.django_db(transaction=True)
def test_the_same_plays_meet_the_same_answers_however_many_play(player) -> None:
    """Two people making the same choices get the same deal, move for move, and the same
    result, whoever else played the set before, between or after them."""
    deal_set = daily(player("Opener"))["id"]
    quick(deal_set)
    _, first = play(player("First"), deal_set, seed=5)
    for other in range(3):
        play(player(f"Other {other}"), deal_set, seed=100 + other)
    _, same = play(player("Same"), deal_set, seed=5)
    assert same == first


@pytest.mark.django_db(transaction=True)
def test_results_are_compared_and_shown_to_those_who_played(player) -> None:
    deal_set = daily(player("Opener"))["id"]
    quick(deal_set)
    people = [player(f"P{index}") for index in range(3)]
    for seed, someone in enumerate(people):
        play(someone, deal_set, seed)
    outsider = player("Outsider")
    refused = outsider.get(f"/deal-sets/{deal_set}/results")
    assert (refused.status_code, refused.json()["code"]) == (403, "deal_set_play_first")
    body = people[0].get(f"/deal-sets/{deal_set}/results").json()
    assert body["finished"] == 3 and len(body["results"]) == 3
    points = [row["points"] for row in body["results"]]
    assert points == sorted(points, reverse=True)
    for row in body["results"]:
        above = sum(other > row["points"] for other in points)
        below = sum(other < row["points"] for other in points)
        ties = points.count(row["points"]) - 1
        assert row["place"] == 1 + above
        assert row["percent"] == round(100 * (below + ties / 2) / 2, 1)

    # Closed: everyone sees the results and the cards, which match the commitment.
    DealSet.objects.filter(pk=deal_set).update(closes_at=timezone.now() - timedelta(seconds=1))
    assert outsider.get(f"/deal-sets/{deal_set}/results").status_code == 200
    shown = outsider.get(f"/deal-sets/{deal_set}").json()
    revealed = shown["revealed"]
    digest = hashlib.sha256(f"{' '.join(revealed['deck'])}:{revealed['salt']}".encode())
    assert digest.hexdigest() == shown["commitment"]
    late = outsider.post(f"/deal-sets/{deal_set}/play")
    assert (late.status_code, late.json()["code"]) == (409, "deal_set_closed")


GOLDEN = Path(__file__).resolve().parents[1] / "engine" / "golden" / "standard_made.bdn"


@pytest.mark.django_db(transaction=True)
def test_an_imported_deal_is_a_set_its_importer_does_not_play(player, monkeypatch) -> None:
    importer = player("Importer")
    text = GOLDEN.read_text()
    answer = importer.post("/deal-sets", {"deal": text, "hours": 2, "seat": 1,
                                          "bot_level": "easy"})
    assert answer.status_code == 201, answer.content
    deal_set = answer.json()
    assert (deal_set["kind"], deal_set["seat"], deal_set["bot_level"]) == ("imported", 1, "easy")
    assert deal_set["revealed"] is None
    refused = importer.post(f"/deal-sets/{deal_set['id']}/play")
    assert (refused.status_code, refused.json()["code"]) == (409, "own_deal_set")

    someone = player("Friend")
    match = someone.post(f"/deal-sets/{deal_set['id']}/play").json()
    view = someone.view(match["id"])
    assert view["seat"] == 1
    hands = read_deal(text).start.to_dict()["hands"]
    assert sorted(view["deal"]["hand"]) == sorted(hands[1])

    broken = importer.post("/deal-sets", {"deal": text.replace("[Dealer", "[Dealr")})
    assert (broken.status_code, broken.json()["code"]) == (400, "invalid_deal")
    monkeypatch.setattr(services, "MAX_OPEN_IMPORTED_SETS", 1)
    refused = importer.post("/deal-sets", {"deal": text})
    assert (refused.status_code, refused.json()["code"]) == (409, "too_many_deal_sets")
    missing = someone.get("/deal-sets/6f1c2b1e-0000-4000-8000-000000000000")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
