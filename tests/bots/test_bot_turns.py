"""Computer players at the table: their turns run as Celery tasks (in-process here), through
the service layer, exactly once."""

import random
import threading
import uuid
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from bots import players, tasks
from bots.tasks import play_bot_turns
from games import computer_moves, selectors
from games.models import Action, Match
from tests.api.conftest import submit


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6))


def person_against_bots(player, game: str, levels: list[str], **rules):
    someone = player("Solo")
    seats = [{"kind": "me"}] + [{"kind": "bot", "bot_level": level} for level in levels]
    response = someone.post("/matches", {"game": game, "deals": 1, "seats": seats,
                                         "rules": rules})
    assert response.status_code == 201, response.content
    return someone, response.json()["id"]


def play_to_the_end(someone, match_id: str, rng: random.Random) -> dict:
    for _ in range(80):
        view = someone.view(match_id)
        if view["status"] != "active":
            return view
        assert view["deal"]["to_act"] == 0, "computer players move by themselves"
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        assert submit(someone, match_id, rng.choice(legal)).status_code == 200
    raise AssertionError("the match did not finish")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("game", "rules"),
    [("auction", {}), ("partnership", {"partnership_dummy": True}),
     ("spades", {"spades_announcements": True})],
)
def test_a_person_plays_a_whole_match_against_bots(player, game, rules) -> None:
    someone, match_id = person_against_bots(player, game, ["easy", "medium", "hard"], **rules)
    play_to_the_end(someone, match_id, random.Random(4))
    feed = someone.get(f"/matches/{match_id}/events?after=0&wait=0").json()
    assert feed["status"] == "finished"
    assert [e["version"] for e in feed["events"]] == list(range(1, feed["version"] + 1))
    assert {e["seat"] for e in feed["events"]} == {0, 1, 2, 3}


@pytest.mark.django_db(transaction=True)
def test_duplicate_and_late_tasks_do_nothing(player) -> None:
    someone, match_id = person_against_bots(player, "auction", ["medium"] * 3)
    match = Match.objects.get(pk=match_id)
    moves = Action.objects.filter(match=match).count()
    assert moves == match.version
    # A duplicate of a task that already ran, and a late one for an old version.
    assert play_bot_turns(match_id, match.version) == 0
    assert play_bot_turns(match_id, max(0, match.version - 1)) == 0
    assert Action.objects.filter(match=match).count() == moves


@pytest.mark.django_db(transaction=True)
def test_bid_estimate_for_my_hand(player) -> None:
    someone = player()
    seats = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
    match_id = someone.post(
        "/matches", {"deals": 1, "seats": seats, "visibility": "public"}
    ).json()["id"]
    for index in (1, 2, 3):
        player().post(f"/matches/{match_id}/join", {"seat": index})
    response = someone.get(f"/matches/{match_id}/bid-estimate")
    assert response.status_code == 200
    body = response.json()
    assert body["hand"] == someone.view(match_id)["deal"]["hand"]
    assert [e["trump"] for e in body["estimates"]] == list("SHDC")
    assert all(0 <= e["tricks"] <= 13 for e in body["estimates"])
    assert someone.get(f"/matches/{match_id}/bid-estimate").json() == body  # stable
    assert player().get(f"/matches/{match_id}/bid-estimate").status_code == 403


def bot_to_move(owner, level: str = "medium", *, in_a_row: int = 1) -> tuple[str, int]:
    """A match whose computer player (of ``level``) is to act and has not moved (nothing sends
    its turn), with at least ``in_a_row`` computer players to act before the person (seat 3)."""
    seats = [{"kind": "bot", "bot_level": level}] * 3 + [{"kind": "me"}]
    for _ in range(50):
        match = owner.post("/matches", {"deals": 1, "seats": seats}).json()
        made = Match.objects.get(pk=match["id"])
        first = None if made.version != 0 else selectors.bot_to_act(made)
        if first is not None and 3 - first >= in_a_row:
            return match["id"], 0
    raise AssertionError(f"no match with {in_a_row} computer players first")


def bot_to_act_in(match_id: str) -> bool:
    match = Match.objects.prefetch_related("seats").get(pk=match_id)
    return selectors.bot_to_act(match) is not None


@pytest.mark.django_db(transaction=True)
def test_a_thinking_computer_player_blocks_no_other_write(player, settings) -> None:
    """On SQLite a transaction locks the whole database: a decision taken inside one would make
    every other match wait. The decision waits here until another match has been written."""
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    owner = player("Owner")
    match_id, version = bot_to_move(owner)
    other = owner.post("/matches", {"deals": 1, "visibility": "public", "seats": [
        {"kind": "me"}] + [{"kind": "open"}] * 3}).json()["id"]
    thinking, written = threading.Event(), threading.Event()

    def slow_choose(observation, seat):
        thinking.set()
        assert written.wait(15), "another match's write waited for the thinking bot"
        return tasks.choose(observation, seat)

    result = {}
    bot = threading.Thread(target=lambda: result.update(version=computer_moves.play_bot_turns(
        match_id=uuid.UUID(match_id), version=version, choose=slow_choose)))
    bot.start()
    assert thinking.wait(15)
    joined = player("Joiner").post(f"/matches/{other}/join", {"seat": 1})
    assert joined.status_code == 200
    written.set()
    bot.join(30)
    connection.close()
    assert result["version"].version > version
    assert Action.objects.filter(match_id=match_id).count() == result["version"].version - version


@pytest.mark.django_db(transaction=True)
def test_a_decision_gone_stale_while_thinking_is_dropped(player, settings) -> None:
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    match_id, version = bot_to_move(player("Owner"))

    moved = {}

    def choose_while_another_moves(observation, seat):
        # A duplicate task moves first while this one thinks.
        if not moved:
            moved["version"] = computer_moves.play_bot_turns(
                match_id=uuid.UUID(match_id), version=version, choose=tasks.choose)
        return tasks.choose(observation, seat)

    assert computer_moves.play_bot_turns(match_id=uuid.UUID(match_id), version=version,
                                         choose=choose_while_another_moves) is None
    assert moved["version"].version > version
    assert Action.objects.filter(match_id=match_id).count() == moved["version"].version - version


@pytest.mark.django_db(transaction=True)
def test_computer_players_in_a_row_move_in_one_unit_each_from_its_own_view(
    player, settings, monkeypatch
) -> None:
    """Three computer players to act in a row: one unit of work (one transaction) applies their
    three moves, each decided from its own seat's observation, each its own action and
    version."""
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    match_id, version = bot_to_move(player("Owner"))
    match = Match.objects.prefetch_related("seats").get(pk=match_id)
    deal = selectors.replay_deal(match, selectors.current_deal(match))
    in_a_row = 0
    while (seat := selectors.bot_seat(match, deal)) is not None:
        deal.apply(seat, deal.legal_actions(seat)[-1])
        in_a_row += 1
    assert in_a_row >= 1
    units = []

    def counted(unit_of_work):
        def opened(*args, **kwargs):
            units.append(args)
            return unit_of_work(*args, **kwargs)
        return opened

    # On the state the start kept here (`changing_kept`), or under the lock.
    monkeypatch.setattr(computer_moves, "changing", counted(computer_moves.changing))
    monkeypatch.setattr(computer_moves, "changing_kept", counted(computer_moves.changing_kept))
    asked = []

    def last_legal(observation, seat):
        asked.append((observation.seat, seat.index, observation.to_act))
        return observation.legal_actions[-1]

    assert computer_moves.play_bot_turns(match_id=uuid.UUID(match_id), version=version,
                                         choose=last_legal).version == version + in_a_row
    assert len(units) == 1
    assert [(seat, index) for seat, index, _ in asked] == [
        (to_act, to_act) for _, _, to_act in asked]
    rows = list(Action.objects.filter(match_id=match_id).order_by("version")
                .values_list("version", "seat"))
    assert [row_version for row_version, _ in rows] == list(
        range(version + 1, version + in_a_row + 1))
    assert [row_seat for _, row_seat in rows] == [seat for seat, _, _ in asked]


@pytest.mark.django_db(transaction=True)
def test_enough_ends_a_run_after_the_move_decided(player, settings) -> None:
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    match_id, version = bot_to_move(player("Owner"))
    assert computer_moves.play_bot_turns(match_id=uuid.UUID(match_id), version=version,
                                         choose=tasks.choose,
                                         enough=lambda: True).version == version + 1
    assert Action.objects.filter(match_id=match_id).count() == 1


@pytest.mark.django_db(transaction=True)  # the sweep sends the turn as it commits
def test_a_match_left_stuck_on_the_embedded_default_is_resumed_by_the_sweep(
    player, settings
) -> None:
    """The process stopped in the middle of the computer players' turns: the periodic sweep,
    run in-process on the embedded default as by beat scaled out, sends them again. Reading
    the match changes nothing."""
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    owner = player("Owner")
    match_id, version = bot_to_move(owner)
    settings.COMPUTER_PLAYERS = "bots.interface"
    cache.clear()
    assert tasks.sweep_bot_turns() == 0  # not stale yet: left alone
    stale = timezone.now() - timedelta(seconds=settings.BOT_STALE_AFTER_SECONDS + 1)
    Match.objects.filter(pk=match_id).update(updated_at=stale, computer_turn_since=stale)
    assert owner.view(match_id)["version"] == version  # a read only reads
    assert tasks.sweep_bot_turns() == 1
    view = owner.view(match_id)
    assert view["version"] > version and view["deal"]["to_act"] == view["seat"]
