"""A deal set's tables are sealed until the set closes (games/access.py `cards_sealed`): every
read of a table, by its person, the platform of its circle and staff (the API, the personal
data export, the admin), shows no card its reader did not see at the table; notation and
analysis wait for the close, and no deal of a set is ever thrown in for another."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from bots import players
from deal_sets import services
from deal_sets.models import DealSet, DealSetEntry, DealSetKind
from games import engine, follow_ups, notify
from games import services as game_services
from games.api import examples
from games.engine.notation import read_deal, write_deal
from games.engine.play import next_seat_table
from games.models import Action, DealAnalysis, Match
from tests.api.conftest import API, Player, submit
from tests.api.test_access import named_cards
from tests.api.test_contract import assert_problem

GOLDEN = Path(__file__).resolve().parents[1] / "engine" / "golden" / "standard_made.bdn"


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6, bidding_layouts=8))


def client_of(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def todays_table(someone: Player, *, tricks: int | None) -> tuple[DealSet, str]:
    """``someone``'s table of today's spades set (Medium computer players), played with random
    moves to its end, or (``tricks``) that many tricks in and then abandoned by staff (stuck):
    over, its deal still in play."""
    deal_set = services.daily("spades")
    DealSet.objects.filter(pk=deal_set.pk).update(bot_level="medium")
    answer = someone.post(f"/deal-sets/{deal_set.pk}/play")
    assert answer.status_code == 201, answer.content
    match_id = answer.json()["id"]
    rng = random.Random(3)
    while (view := someone.view(match_id))["status"] == "active":
        if tricks is not None and sum(view["deal"]["tricks_won"]) >= tricks:
            game_services.abandon_match(match_id=match_id)
            break
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        assert submit(someone, match_id, rng.choice(legal)).status_code == 200
    deal_set.refresh_from_db()
    return deal_set, match_id


def played_cards(match_id: str) -> set[str]:
    return {payload["card"] for payload in Action.objects.filter(
        match_id=match_id, kind="play").values_list("payload", flat=True)}


def dealt(deal_set: DealSet) -> list[list[str]]:
    return services.deal_start(deal_set).to_dict()["hands"]


def api_reads(client: APIClient, match_id: str, deal_set: DealSet) -> dict[str, Any]:
    """Every read of the API about the table and its set, by path: the answer's body (text for
    a notation), or its problem code when refused."""
    paths = [
        *(f"/matches/{match_id}{tail}" for tail in (
            "", "/view", *(f"/view?seat={seat}" for seat in range(4)), "/spectate",
            "/deals", "/deals/1", "/deals/1/notation", "/notation", "/deals/1/analysis",
            "/events?wait=0", "/bid-estimate", "/hint", "/rematch")),
        f"/deal-sets/{deal_set.pk}", f"/deal-sets/{deal_set.pk}/results", "/matches", "/me",
        "/me/export",
    ]
    bodies = {}
    for path in paths:
        response = client.get(API + path)
        assert response.status_code < 500, (path, response.content)
        if response.status_code >= 400:
            bodies[path] = response.json()["code"]
        elif response.streaming:
            bodies[path] = b"".join(response.streaming_content).decode()
        else:
            bodies[path] = response.content.decode()
    return bodies


def admin_reads(match_id: str, deal_set: DealSet) -> dict[str, str]:
    """Every admin page about the table and its set, as a superuser reads it."""
    staff = get_user_model().objects.create_superuser("referee", password="x" * 12)
    client = Client()
    client.force_login(staff)
    entry = DealSetEntry.objects.get(match_id=match_id)
    pages = [
        f"/admin/games/match/{match_id}/change/", f"/admin/games/match/{match_id}/deals/1/",
        f"/admin/games/match/{match_id}/export/", "/admin/games/match/",
        f"/admin/deal_sets/dealset/{deal_set.pk}/change/", "/admin/deal_sets/dealset/",
        f"/admin/deal_sets/dealsetentry/{entry.pk}/change/",
    ]
    bodies = {}
    for page in pages:
        response = client.get(page, follow=True)
        assert response.status_code in (200, 404), (page, response.status_code)
        bodies[page] = response.content.decode()
    return bodies


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("tricks", [3, None], ids=["abandoned in play", "finished"])
def test_nobody_reads_a_card_of_an_open_set_they_did_not_see(player, tricks) -> None:
    someone = player("Guest")
    deal_set, match_id = todays_table(someone, tricks=tricks)
    hands = dealt(deal_set)
    seen = played_cards(match_id)
    staff = get_user_model().objects.create_user("staff", is_staff=True)
    # The platform of the person's circle reads its players' tables as their creator.
    platform = get_user_model().objects.create_user("platform")
    Match.objects.filter(pk=match_id).update(circle=platform)
    readers = {"person": (someone.client, set(hands[deal_set.seat])),
               "staff": (client_of(staff), set()), "platform": (client_of(platform), set())}
    for name, (client, own) in readers.items():
        unseen = {card for hand in hands for card in hand} - own - seen
        reads = api_reads(client, match_id, deal_set)
        for path, body in reads.items():
            assert not named_cards(body) & unseen, (name, path)
        for tail in ("/deals/1/notation", "/notation", "/deals/1/analysis"):
            # The deal in play has no notation nor analysis (404) in any case.
            assert reads[f"/matches/{match_id}{tail}"] in ("cards_sealed", "not_found"), (
                name, tail)
    unseen = {card for hand in hands for card in hand} - seen
    for page, body in admin_reads(match_id, deal_set).items():
        assert not named_cards(body) & unseen, page


@pytest.mark.django_db(transaction=True)
def test_a_finished_tables_record_shows_its_own_hand_until_the_set_closes(player) -> None:
    someone = player("Guest")
    deal_set, match_id = todays_table(someone, tricks=None)
    hands = dealt(deal_set)
    record = someone.get(f"/matches/{match_id}/deals/1").json()
    assert record["hands"] == [hands[0], None, None, None]
    assert (record["deck"], record["salt"]) == (None, None)
    assert len(record["tricks"]) == 13  # the cards played, as at the table
    staff = client_of(get_user_model().objects.create_user("staff", is_staff=True))
    assert staff.get(f"{API}/matches/{match_id}/deals").json()[0]["hands"] == [None] * 4
    assert_problem(staff.get(f"{API}/matches/{match_id}/view?seat=1"), 403, "cards_sealed")
    for tail in ("/deals/1/notation", "/notation", "/deals/1/analysis"):
        assert_problem(someone.get(f"/matches/{match_id}{tail}"), 403, "cards_sealed")

    DealSet.objects.filter(pk=deal_set.pk).update(closes_at=timezone.now())
    Match.objects.filter(pk=match_id).update(cards_sealed_until=timezone.now())
    record = someone.get(f"/matches/{match_id}/deals/1").json()
    assert record["hands"] == hands and len(record["deck"]) == 52 and record["salt"]
    assert someone.get(f"/matches/{match_id}/deals/1/notation").status_code == 200
    assert staff.get(f"{API}/matches/{match_id}/view?seat=1").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_an_open_sets_analysis_is_announced_nowhere_and_read_once_it_closes(
    player, monkeypatch, django_capture_on_commit_callbacks,
) -> None:
    someone = player("Guest")
    deal_set, match_id = todays_table(someone, tricks=None)
    announced, analysed = [], []
    monkeypatch.setattr(notify, "announce_analysis", lambda *args: announced.append(args))
    monkeypatch.setattr(follow_ups, "tell", analysed.extend)
    deal = Match.objects.get(pk=match_id).deals.get(sequence=1)
    DealAnalysis.objects.create(deal=deal)
    shown = ("match_id", "deal_sequence", "deal_number", "finished_at")
    result = {k: v for k, v in examples.DEAL_ANALYSIS.items() if k not in shown}
    with django_capture_on_commit_callbacks(execute=True):
        game_services.record_deal_analysis(deal_id=deal.pk, result=result)
    assert announced == [] and analysed == []  # neither the streams nor the webhook
    assert_problem(someone.get(f"/matches/{match_id}/deals/1/analysis"), 403, "cards_sealed")
    Match.objects.filter(pk=match_id).update(cards_sealed_until=timezone.now())
    assert someone.get(f"/matches/{match_id}/deals/1/analysis").status_code == 200


def notation_with(**rules: Any) -> str:
    start = read_deal(GOLDEN.read_text()).start
    hands = [engine.cards_of(hand) for hand in start.hands]
    return write_deal(engine.DealStart.from_cards(start.rules.replace(**rules), start.dealer,
                                                  hands, 1), [])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("rules", [{"weak_hand_redeal": True}, {"all_pass": "redeal"}])
def test_rules_that_throw_a_deal_in_make_no_deal_set(player, rules) -> None:
    importer = player("Importer")
    refused = importer.post("/deal-sets", {"deal": notation_with(**rules)})
    assert_problem(refused, 400, "deal_set_throw_in")
    assert not DealSet.objects.exists()
    assert importer.post("/deal-sets", {"deal": notation_with()}).status_code == 201


@pytest.mark.django_db(transaction=True)
def test_a_deal_thrown_in_at_a_sets_table_shows_no_hand_but_ones_own(player) -> None:
    """A set imported before its rules were checked: its table's person, dealt a hand with no
    card above a ten, throws the deal in; its record keeps the set's other hands sealed."""
    rules = engine.TableRules.create("auction", weak_hand_redeal=True)
    low = [card for card in engine.cards_of((1 << 52) - 1) if card.rank <= engine.Rank.TEN]
    rest = sorted(set(engine.cards_of((1 << 52) - 1)) - set(low[:13]))
    hands = [low[:13], rest[0::3], rest[1::3], rest[2::3]]
    following = next_seat_table(rules.direction == "clockwise")
    dealer = next(seat for seat in range(4) if following[seat] == 0)  # seat 0 speaks first
    start = engine.DealStart.from_cards(rules, dealer, hands, 1).with_deck()
    importer = get_user_model().objects.create_user("importer")
    deal_set = services._made(DealSetKind.IMPORTED, rules, dealer, list(start.deck or ()),
                              timezone.now() + timedelta(hours=2), user=importer,
                              bot_level="easy")
    someone = player("Weak hand")
    match_id = someone.post(f"/deal-sets/{deal_set.pk}/play").json()["id"]
    assert submit(someone, match_id, {"kind": "redeal"}).status_code == 200
    record = someone.get(f"/matches/{match_id}/deals/1").json()
    assert record["status"] == "redealt"
    own, *sealed = record["hands"]
    assert sorted(own) == sorted(str(card) for card in hands[0]) and sealed == [None] * 3
    others = {str(card) for hand in hands[1:] for card in hand}
    assert not named_cards(record) & others
    assert_problem(someone.get(f"/matches/{match_id}/notation"), 403, "cards_sealed")
