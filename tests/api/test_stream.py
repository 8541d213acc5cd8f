"""The live stream on a server that holds a thread per request (the test client, gunicorn):
the feed's events, in order, once each, resumable, with the feed's access rules."""

from __future__ import annotations

import json
import random
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from games.api import streams
from games.models import Match, RematchOffer
from games.services import SeatSpec
from tests import sse
from tests.admin.helpers import person, play_match

from .conftest import Player, create_match, new_player, play_random_turn, submit, table_of_four

BOTS = [{"kind": "bot", "bot_level": "easy"}] * 3


def finished_match(player) -> tuple[str, Player]:
    """A one-deal match of a person against three computer players, played to its end."""
    me = player("Me")
    match = create_match(me, seats=[{"kind": "me"}, *BOTS], deals=1)
    rng = random.Random(5)
    for _ in range(200):
        view = me.view(match["id"])
        if view["status"] != "active":
            return match["id"], me
        if view["deal"]["to_act"] == view["seat"]:
            legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
            assert submit(me, match["id"], rng.choice(legal)).status_code == 200
    raise AssertionError("the match did not end")


def stream(someone: Player, match_id: str, query: str = "", **headers: Any
           ) -> tuple[Any, list[sse.Message]]:
    response = someone.get(f"/matches/{match_id}/stream{query}", **headers)
    if not response.streaming:
        return response, []
    return response, sse.parse(b"".join(response.streaming_content))


def feed(someone: Player, match_id: str) -> list[dict[str, Any]]:
    return someone.get(f"/matches/{match_id}/events?after=0&limit=500").json()["events"]


@pytest.mark.django_db(transaction=True)
def test_a_finished_match_streams_its_whole_feed_then_ends(player) -> None:
    match_id, me = finished_match(player)
    response, got = stream(me, match_id, HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    assert got[0].event == "retry"
    actions = [message for message in got if message.event == "action"]
    assert [message.json() for message in actions] == feed(me, match_id)
    # Each version's id comes with its last event: a deal's last card, then the deal's result.
    versioned = [message for message in got if message.event in ("action", "deal_ended")]
    for message, following in zip(versioned, [*versioned[1:], None], strict=True):
        version = message.json()["version"]
        if following is None or following.json()["version"] != version:
            assert message.id == str(version)
    results = [message.json() for message in got if message.event == "deal_ended"]
    deals = me.get(f"/matches/{match_id}/deals").json()
    scored = [deal for deal in deals if deal["status"] == "finished"]
    assert [(r["deal_number"], r["scores"]) for r in results] == [
        (deal["number"], deal["scores"]) for deal in sorted(scored, key=lambda d: d["sequence"])
    ]
    assert results[-1]["totals"] == me.get(f"/matches/{match_id}").json()["totals"]
    end = got[-1]
    assert end.event == "end"
    assert end.json() == {"version": len(actions), "status": "finished"}


@pytest.mark.django_db(transaction=True)
def test_last_event_id_resumes_after_it_and_wins_over_after(player) -> None:
    match_id, me = finished_match(player)
    _, got = stream(me, match_id, "?after=3", HTTP_LAST_EVENT_ID="10")
    versions = [message.json()["version"] for message in got if message.event == "action"]
    assert versions[0] == 11 and versions == list(range(11, 11 + len(versions)))
    _, got = stream(me, match_id, "?after=3")
    assert next(m.json()["version"] for m in got if m.event == "action") == 4


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("value", ["x", "-1", "1.5", "99999999999", ""])
def test_a_bad_last_event_id_is_a_problem(player, value) -> None:
    match_id, me = finished_match(player)
    response, _ = stream(me, match_id, HTTP_LAST_EVENT_ID=value)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "invalid_last_event_id"


@pytest.mark.django_db(transaction=True)
def test_a_bad_after_is_a_problem_even_to_an_event_source(player) -> None:
    match_id, me = finished_match(player)
    response, _ = stream(me, match_id, "?after=-1", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "invalid_input"


@pytest.mark.django_db(transaction=True)
def test_the_stream_keeps_the_feeds_access_rules(player) -> None:
    match_id, me = finished_match(player)
    stranger = new_player("Stranger")
    response, _ = stream(stranger, match_id)
    assert response.status_code == 403
    anonymous = Player(type(me.client)(), 0, "")
    assert stream(anonymous, match_id)[0].status_code == 401
    unknown = "00000000-0000-0000-0000-000000000000"
    assert stream(me, unknown)[0].status_code == 404
    assert me.post(f"/matches/{match_id}/stream").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_anyone_signed_in_may_follow_a_public_match(player, settings, monkeypatch) -> None:
    monkeypatch.setattr(streams, "MAX_WSGI_SECONDS", 0.5)
    match_id, players = table_of_four(player)
    play_random_turn(players, match_id, random.Random(1))
    response, got = stream(new_player("Watcher"), match_id)
    assert response.status_code == 200
    assert [message.json()["version"] for message in got if message.event == "action"] == [1]


@pytest.mark.django_db(transaction=True)
def test_a_quiet_stream_beats_and_ends_on_time(player, settings, monkeypatch) -> None:
    settings.STREAM_HEARTBEAT_SECONDS = 0.3
    monkeypatch.setattr(streams, "MAX_WSGI_SECONDS", 1.2)
    match_id, players = table_of_four(player)
    _, got = stream(players[2], match_id)
    assert [message.event for message in got].count("comment") >= 2
    assert all(message.data == "heartbeat" for message in got if message.event == "comment")
    assert not [message for message in got if message.event == "end"]


@pytest.mark.django_db(transaction=True)
def test_an_account_has_a_limited_number_of_open_streams(player) -> None:
    # Two, on a server that gives each stream one of its threads (as this test client does),
    # whatever STREAM_MAX_PER_ACCOUNT allows on an event loop.
    match_id, me = finished_match(player)
    first, second = me.get(f"/matches/{match_id}/stream"), me.get(
        f"/matches/{match_id}/stream")
    third = me.get(f"/matches/{match_id}/stream")
    assert third.status_code == 429
    assert third.json()["code"] == "too_many_streams" and third["Retry-After"]
    b"".join(first.streaming_content)  # ends the stream: its slot is free again
    first.close()
    fourth = me.get(f"/matches/{match_id}/stream")
    assert fourth.status_code == 200
    for response in (second, fourth):
        response.close()
    assert streams.open_streams(me.user_id) == 0


@pytest.mark.django_db(transaction=True)
def test_an_abandoned_match_streams_to_its_end(player) -> None:
    from games import services

    match_id, players = table_of_four(player)
    play_random_turn(players, match_id, random.Random(1))
    services.abandon_match(match_id=match_id)
    _, got = stream(players[1], match_id)
    assert [message.event for message in got] == ["retry", "action", "end"]
    assert got[-1].json() == {"version": 2, "status": "abandoned"}


@pytest.mark.django_db(transaction=True)
def test_nothing_left_to_stream_is_204_so_event_source_stops(player) -> None:
    match_id, me = finished_match(player)
    version = me.get(f"/matches/{match_id}").json()["version"]
    response, got = stream(me, match_id, HTTP_LAST_EVENT_ID=str(version))
    assert response.status_code == 204 and got == []
    response, got = stream(me, match_id, HTTP_LAST_EVENT_ID=str(version - 1))
    # The last card ended the last deal: its result comes with it.
    assert [message.event for message in got] == ["retry", "action", "deal_ended", "end"]


@pytest.mark.django_db(transaction=True)
def test_a_stream_resumed_just_after_the_finish_waits_for_what_follows(player, settings) -> None:
    # Found by probing: resumed at the last version right after the finish, it was 204, and
    # the ratings' changes and a rematch offer to come were never heard.
    settings.STREAM_AFTER_END_SECONDS = 1
    match_id, me = finished_match(player)
    version = me.get(f"/matches/{match_id}").json()["version"]
    response, got = stream(me, match_id, HTTP_LAST_EVENT_ID=str(version))
    assert response.status_code == 200
    assert [message.event for message in got] == ["retry", "end"]
    time.sleep(1)
    response, got = stream(me, match_id, HTTP_LAST_EVENT_ID=str(version))
    assert response.status_code == 204


def test_only_announcements_of_the_documented_shape_are_taken_as_news() -> None:
    from games import notify

    good = {"version": 3, "status": "active", "event": {"version": 3}, "deadline": None,
            "deal_end": None, "dealt": None, "turn": None}
    assert notify._news(json.dumps(good).encode()) == good
    # As announced before the clock and deals' results were: taken, without them.
    older = {"version": 3, "status": "active", "event": {"version": 3}}
    assert notify._news(json.dumps(older).encode()) == good
    assert notify._news(json.dumps({**good, "event": None}).encode())["event"] is None
    for bad in (b"7", b"not json", json.dumps({"version": "3", "status": "active"}).encode(),
                json.dumps({"version": 3}).encode(),
                json.dumps({"version": 3, "status": "active", "event": [1]}).encode(),
                json.dumps({**good, "deadline": 5}).encode(),
                json.dumps({**good, "deal_end": "x"}).encode(),
                json.dumps({**good, "turn": [0]}).encode(),
                json.dumps({**good, "dealt": "x"}).encode()):
        assert notify._news(bad) is None


@pytest.mark.django_db(transaction=True)
def test_a_cursor_past_the_matchs_version_is_a_problem(player) -> None:
    """An `after` (or Last-Event-ID) beyond the match's version is a client's mistake: 400
    `cursor_ahead` with the version there is, not an empty page."""
    match_id, me = finished_match(player)
    version = len(feed(me, match_id))
    for response in (
        me.get(f"/matches/{match_id}/events?after={version + 1}&wait=0"),
        stream(me, match_id, f"?after={version + 1}")[0],
        stream(me, match_id, HTTP_LAST_EVENT_ID=str(version + 50))[0],
    ):
        assert response.status_code == 400
        assert response.json()["code"] == "cursor_ahead"
        assert response.json()["current_version"] == version
    assert me.get(f"/matches/{match_id}/events?after={version}&wait=0").json()["events"] == []


@pytest.mark.django_db(transaction=True)
def test_a_finished_matchs_stream_tells_its_rematch_after_the_end(player, settings) -> None:
    settings.STREAM_AFTER_END_SECONDS = 30
    match_id, me = finished_match(player)
    started = me.post(f"/matches/{match_id}/rematch").json()  # computer players accept at once
    response, got = stream(me, match_id)
    after_end = [message.event for message in got][[m.event for m in got].index("end"):]
    # Told as state (no id: resuming from the last version tells it again), then it closes.
    assert after_end == ["end", "rematch_offered", "rematch_started"]
    assert {message.id for message in got[-3:]} == {got[-3].id}  # no id of their own
    assert got[-2].json() == started
    assert got[-1].json() == {"match_id": match_id, "new_match_id": started["new_match_id"]}
    # A stream from an earlier cursor tells it again; one with nothing after it is 204.
    _, again = stream(me, match_id, HTTP_LAST_EVENT_ID=str(got[-3].json()["version"] - 1))
    assert [message.event for message in again][-3:] == [
        "end", "rematch_offered", "rematch_started"]
    response, _ = stream(me, match_id, HTTP_LAST_EVENT_ID=got[-1].id)
    assert response.status_code == 204


@pytest.mark.django_db(transaction=True)
def test_an_open_offer_keeps_the_stream_open_until_it_expires(settings) -> None:
    settings.STREAM_AFTER_END_SECONDS = 0
    settings.REMATCH_OFFER_SECONDS = 1
    ayse, ali = person("ayse"), person("ali")
    match = play_match(ayse, seats=[SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
                                    SeatSpec("person", user=ali),
                                    SeatSpec("bot", bot_level="easy")])
    me = Player(APIClient(), ayse.pk, "ayse")
    me.client.force_authenticate(ayse)
    assert me.post(f"/matches/{match.id}/rematch").status_code == 201
    _, got = stream(me, str(match.id))
    offered = [message.json()["status"] for message in got if message.event == "rematch_offered"]
    assert offered == ["open", "expired"]
    assert got[-1].event == "rematch_offered"
    assert Match.objects.count() == 1
    # A client that resumes after the end hears an open offer; once it expired, 204.
    RematchOffer.objects.update(status="open", expires_at=timezone.now() + timedelta(seconds=1))
    _, got = stream(me, str(match.id), HTTP_LAST_EVENT_ID=str(match.version))
    assert [message.event for message in got] == [
        "retry", "end", "rematch_offered", "rematch_offered"]
    response, _ = stream(me, str(match.id), HTTP_LAST_EVENT_ID=str(match.version))
    assert response.status_code == 204


def test_a_hub_keeps_announced_ratings_and_rereads_on_a_rematch_change() -> None:
    import asyncio

    from games import notify

    async def hear() -> None:
        async with notify.listen("m") as moves:
            hub = moves.hub
            # As Redis brings them: the ratings with their values, the rematch as a wake.
            hub.state_changed("m", b'{"ratings":[{"seat":0,"delta":5}]}')
            hub.state_changed("m", b'{"ratings":"nonsense"}')
            hub.state_changed("m", notify.REMATCH_CHANGED)
            assert moves.ratings() == [[{"seat": 0, "delta": 5}]]
            assert moves.ratings() == []
            assert moves.seats_changed()  # read again, as after a seat change

    asyncio.run(hear())


@pytest.mark.django_db(transaction=True)
def test_a_thread_held_stream_tells_its_seat_the_hand_and_the_turn(player, monkeypatch) -> None:
    """On a server that holds a thread a stream, the seat's own events are read with the page:
    the hand as it is, and the turn of the seat to act (no other seat's)."""
    monkeypatch.setattr(streams, "MAX_WSGI_SECONDS", 0.5)
    match_id, players = table_of_four(player)
    views = [someone.view(match_id) for someone in players]
    for seat, someone in enumerate(players):
        _, got = stream(someone, match_id)
        hands = [message.json() for message in got if message.event == "hand"]
        turns = [message.json() for message in got if message.event == "turn"]
        assert [hand["hand"] for hand in hands] == [views[seat]["deal"]["hand"]]
        if views[seat]["deal"]["to_act"] == seat:
            assert [turn["legal_actions"] for turn in turns] == [
                views[seat]["deal"]["legal_actions"]]
            assert turns[0]["version"] == views[seat]["version"]
        else:
            assert turns == []


@pytest.mark.django_db(transaction=True)
def test_a_streams_first_look_reads_the_seats_even_when_its_versions_were_heard(player) -> None:
    """The process's hub may have heard a match's versions for another listener before a new
    stream's first look: that look still reads, so the stream tells the seats' state."""
    import asyncio

    from games.api import stream_pages

    match_id, players = table_of_four(player)
    match = Match.objects.get(pk=match_id)

    class Heard:
        """Every version after the cursor heard, none missing."""

        def clear(self) -> float:
            return time.monotonic()

        def news_after(self, after: int) -> tuple[list[dict[str, Any]], bool]:
            return [{"version": after + 1}], False

    follower = streams.Follower(match, 0, User.objects.get(pk=players[0].user_id), None)

    async def first_look() -> stream_pages.Page:
        return await streams._look(follower, Heard(), stream_pages.SharedReads(), None,
                                   seats_changed=False)

    page = asyncio.run(first_look())
    assert page.read and page.seats is not None
    assert b"event: seats" in follower.take(page)
