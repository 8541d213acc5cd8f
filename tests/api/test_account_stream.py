"""A person follows everything that happens to them across their matches on one stream (`GET
/me/stream`): their seats, starts and ends, their own turns only, in order, exactly once across
reconnections, filtered, never another person's, never with a platform's key."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import account_stream, event_log
from games.api import account_stream as stream_api
from games.models import AccountStreamEvent, Action
from tests import sse
from tests.api.conftest import Player, play_random_turn, table_of_four
from tests.platforms.conftest import new_platform, play_to_the_end
from tests.platforms.test_platform_reads import platform_match

pytestmark = pytest.mark.django_db

STREAM = "/me/stream"


@pytest.fixture(autouse=True)
def short_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streams served in a thread (the test client's) end after a moment, with all there is."""
    monkeypatch.setattr(stream_api, "MAX_WSGI_SECONDS", 0.3)


def read(someone: Player, query: str = "", **headers: str) -> list[sse.Message]:
    response = someone.get(f"{STREAM}{query}", HTTP_ACCEPT="text/event-stream", **headers)
    assert response.status_code == 200, response.content
    return [message for message in sse.parse(b"".join(response.streaming_content))
            if message.event not in ("comment", "retry")]


def play_out(players: list[Player], match_id: str) -> None:
    rng = random.Random(7)
    while players[0].get(f"/matches/{match_id}").json()["status"] == "active":
        play_random_turn(players, match_id, rng)


def test_a_match_from_the_first_seat_to_the_ranking_in_order(player) -> None:
    match_id, players = table_of_four(player)
    play_out(players, match_id)
    for index, someone in enumerate(players):
        got = read(someone, "?after=0.0")
        events = [message.event for message in got]
        assert {message.json()["data"]["match_id"] for message in got} == {match_id}
        # Everyone hears the seats taken from their own on, then the start, ...
        assert events[:4 - max(index, 1) + 1][-1] == "match.started"
        assert events[-1] == "match.finished", events[-5:]
        assert got[-1].json()["data"]["seat"] == index
        # ... and each of their own turns, none of anyone else's.
        turns = [message.json()["data"] for message in got if message.event == "turn.started"]
        assert {turn["seat"] for turn in turns} == {index}
        assert len(turns) == Action.objects.filter(deal__match_id=match_id, seat=index).count()
        cursors = [event_log.Cursor.parse(message.id or "") for message in got]
        assert cursors == sorted(cursors)  # type: ignore[type-var]


def test_resumed_after_any_event_exactly_once(player) -> None:
    match_id, players = table_of_four(player)
    rng = random.Random(3)
    for _ in range(10):
        play_random_turn(players, match_id, rng)
    first = read(players[1], "?after=0.0")
    middle = len(first) // 2
    again = read(players[1], HTTP_LAST_EVENT_ID=first[middle].id)
    assert [message.id for message in again] == [message.id for message in first[middle + 1:]]
    play_out(players, match_id)
    later = read(players[1], HTTP_LAST_EVENT_ID=first[-1].id)
    assert later and later[-1].event == "match.finished"
    assert not {message.id for message in later} & {message.id for message in first}


def test_filters_and_nothing_of_another_person(player) -> None:
    match_id, players = table_of_four(player)
    other_id, others = table_of_four(player)
    rng = random.Random(5)
    for _ in range(6):
        play_random_turn(players, match_id, rng)
    turns = read(players[2], "?after=0.0&event_type=turn.started&event_type=match.started")
    assert {message.event for message in turns} == {"turn.started", "match.started"}
    assert read(players[2], f"?after=0.0&match_id={other_id}") == []
    assert {message.json()["data"]["match_id"] for message in read(others[0], "?after=0.0")} \
        == {other_id}


def test_a_stream_without_a_cursor_starts_now(player) -> None:
    match_id, players = table_of_four(player)
    response = players[0].get(STREAM, HTTP_ACCEPT="text/event-stream")
    chunks = iter(response.streaming_content)
    assert sse.parse(next(chunks))[0].event == "retry"
    play_random_turn(players, match_id, random.Random(1))
    got = [message.event for message in sse.parse(b"".join(chunks))
           if message.event not in ("comment", "retry")]
    assert "match.started" not in got


def test_a_platform_seats_its_players_and_they_hear_it(settings) -> None:
    platform = new_platform("Acme Games")
    match_id, apps = platform_match(platform)
    play_to_the_end(platform, apps, match_id, random.Random(2))
    response = apps[1].get(f"/api/v1{STREAM}?after=0.0", HTTP_ACCEPT="text/event-stream")
    got = [message for message in sse.parse(b"".join(response.streaming_content))
           if message.event not in ("comment", "retry")]
    assert got[0].event == "match.seated"
    assert got[0].json()["data"] == {
        "match_id": match_id, "version": 0, "seat": 1, "game": "auction", "status": "waiting",
        "ready_by": None, "starts_at": None}
    assert got[1].event == "match.started" and got[-1].event == "match.finished"


def test_refusals(player) -> None:
    someone = player("P")
    for bad in ("?after=1", "?after=1.2.3", "?event_type=deal.ended", "?match_id=7"):
        response = someone.get(f"{STREAM}{bad}")
        assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    response = someone.get(STREAM, HTTP_LAST_EVENT_ID="12")
    assert response.status_code == 400 and response.json()["code"] == "invalid_last_event_id"
    platform = new_platform("Beta Games")
    response = platform.client.get(f"/api/v1{STREAM}")
    assert response.status_code == 403 and response.json()["code"] == "platform_key_not_accepted"
    someone.client.credentials()
    assert someone.get(STREAM).status_code == 401


def test_kept_for_the_retention(player, settings) -> None:
    settings.ACCOUNT_STREAM_RETENTION_HOURS = 1
    table_of_four(player)
    kept = AccountStreamEvent.objects.count()
    AccountStreamEvent.objects.filter(type="seat.taken").update(
        created_at=timezone.now() - timedelta(hours=2))
    taken = kept - AccountStreamEvent.objects.exclude(type="seat.taken").count()
    assert taken and account_stream.LOG.purge() == taken
    assert not AccountStreamEvent.objects.filter(type="seat.taken").exists()


@pytest.mark.django_db(transaction=True)
def test_the_stream_server_sends_each_event_as_it_is_committed(asgi_server) -> None:
    from tests.api.conftest import new_player

    players = [new_player(f"P{index}") for index in range(4)]
    token = players[1].client._credentials["HTTP_AUTHORIZATION"].split()[1]
    follower = sse.Follower(asgi_server, "", token, path=f"/api/v1{STREAM}")
    assert follower.status == 200
    match = players[0].post("/matches", {
        "game": "auction", "deals": 1, "visibility": "public",
        "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3}).json()
    for index in (1, 2, 3):
        assert players[index].post(f"/matches/{match['id']}/join",
                                   {"seat": index}).status_code == 200
    got: list[str] = []
    for message in follower:
        if message.event in ("comment", "retry"):
            continue
        got.append(message.event)
        if message.event == "match.started":
            break
    follower.close()
    assert got == ["seat.taken", "seat.taken", "seat.taken", "match.started"]
