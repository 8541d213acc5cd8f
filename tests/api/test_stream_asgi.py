"""The live stream served on an event loop (uvicorn, batak_api/asgi.py), as the embedded default
serves it: the process's own announcements push each move, no stream holds a thread, and a
client that leaves gives its slot back."""

from __future__ import annotations

import itertools
import random
import threading
import time

import pytest

from games import notify, services
from games.api import streams
from games.models import Seat
from tests import sse
from tests.integration.harness import client

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_follower_sees_every_move_once_as_it_is_made(asgi_server, settings) -> None:
    # Far beyond the socket's timeout: only the move's announcement can wake the stream.
    settings.STREAM_HEARTBEAT_SECONDS = 60
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    listening = sse.Listening(asgi_server, match_id, me.token, timeout=5)
    assert listening.follower.status == 200
    client.play_to_the_end({0: me}, match_id, random.Random(3))
    listening.join(10)
    assert not listening.is_alive()
    feed = client.expect(me.get(f"{client.API}/matches/{match_id}/events?limit=500"), 200, "feed")
    assert listening.actions() == feed["events"]
    assert listening.got[-1].event == "end"
    # Each deal's result, heard with the card that ended it, as the deal records tell it.
    results = [message.json() for message in listening.got if message.event == "deal_ended"]
    deals = client.expect(me.get(f"{client.API}/matches/{match_id}/deals"), 200, "deals")
    assert [(r["deal_number"], r["scores"], r["outcomes"]) for r in results] == [
        (deal["number"], deal["scores"], deal["outcomes"])
        for deal in sorted(deals, key=lambda deal: deal["sequence"])
        if deal["status"] == "finished"
    ]


def test_a_reconnecting_follower_resumes_where_it_left(asgi_server) -> None:
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    client.play_to_the_end({0: me}, match_id, random.Random(4))
    first = sse.Follower(asgi_server, match_id, me.token)
    seen = []
    for message in first:
        if message.event == "action":
            seen.append(message.json()["version"])
        if len(seen) == 5:
            break
    first.close()
    again = sse.Follower(asgi_server, match_id, me.token, last_event_id=str(seen[-1]))
    seen += [message.json()["version"] for message in again if message.event == "action"]
    assert seen == list(range(1, len(seen) + 1))


def test_open_streams_hold_no_thread(asgi_server) -> None:
    people = [client.guest(asgi_server, f"P{i}") for i in range(4)]
    match = client.expect(people[0].post(f"{client.API}/matches", {
        "visibility": "public", "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3,
    }), 201, "match")
    for seat, person in enumerate(people[1:], start=1):
        client.expect(person.post(f"{client.API}/matches/{match['id']}/join", {"seat": seat}),
                      200, "join")
    watchers = [client.guest(asgi_server, f"W{i}") for i in range(30)]
    before = threading.active_count()
    followers = []
    for watcher in watchers:
        follower = sse.Follower(asgi_server, match["id"], watcher.token)
        assert follower.status == 200
        assert next(iter(follower)).event == "retry"  # admitted and waiting
        followers.append(follower)
    # 30 open streams; the few new threads are the shared pool's readers.
    assert threading.active_count() - before <= 6
    for follower in followers:
        follower.close()


def test_a_follower_that_leaves_gives_its_slot_back(asgi_server, settings) -> None:
    settings.STREAM_MAX_PER_ACCOUNT = 1
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    first = sse.Follower(asgi_server, match_id, me.token)
    next(iter(first))
    assert sse.Follower(asgi_server, match_id, me.token).status == 429
    first.close()  # no goodbye: the server notices the closed connection
    deadline = time.monotonic() + 5
    while (again := sse.Follower(asgi_server, match_id, me.token)).status == 429:
        again.close()
        assert time.monotonic() < deadline, "the slot was never given back"
        time.sleep(0.1)
    again.close()
    assert streams.open_streams(0) == 0


def test_lost_announcements_delay_a_follower_never_lose_a_move(asgi_server, settings,
                                                                monkeypatch) -> None:
    # Every third announcement never reaches the stream: the follower finds the move on its
    # next look at the database (the next announcement's gap, or its heartbeat).
    settings.STREAM_HEARTBEAT_SECONDS = 0.5
    announce, count = notify.announce, itertools.count()

    def lossy(match_id, version, **news) -> None:
        if next(count) % 3 != 2:
            announce(match_id, version, **news)

    monkeypatch.setattr(notify, "announce", lossy)
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    listening = sse.Listening(asgi_server, match_id, me.token, timeout=5)
    client.play_to_the_end({0: me}, match_id, random.Random(6))
    listening.join(10)
    feed = client.expect(me.get(f"{client.API}/matches/{match_id}/events?limit=500"), 200, "feed")
    assert listening.ended() and listening.actions() == feed["events"]


def test_a_follower_counts_as_present_while_it_listens(asgi_server, settings,
                                                       monkeypatch) -> None:
    settings.STREAM_HEARTBEAT_SECONDS = 0.2
    monkeypatch.setattr(services, "PRESENCE_WRITE_SECONDS", 0.1)
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    follower = sse.Follower(asgi_server, match_id, me.token)
    messages = iter(follower)
    next(messages)
    seat = Seat.objects.get(match_id=match_id, index=0)
    admitted = seat.last_seen
    while next(messages).event != "comment":
        pass
    next(messages)  # a second heartbeat: the first one's presence is written by now
    seat.refresh_from_db()
    assert seat.last_seen > admitted
    follower.close()


# Events that tell the match's state: they come whenever it changed.
STATE = ("deal_ended", "clock", "seats", "hand", "turn")


def test_a_stream_ends_when_its_token_is_revoked(asgi_server, settings) -> None:
    # The stream outlives its request: it looks again, as the feed does on every request.
    settings.STREAM_HEARTBEAT_SECONDS = 0.3
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    follower = sse.Follower(asgi_server, match_id, me.token, timeout=10)
    messages = iter(follower)
    assert next(messages).event == "retry"
    client.expect(me.post(f"{client.API}/auth/logout"), 204, "log out")
    rest = list(messages)  # ends (no `end`: the match goes on)
    assert all(message.event in ("action", "comment", *STATE) for message in rest)
    assert sse.Follower(asgi_server, match_id, me.token).status == 401


def test_a_stream_ends_when_its_listener_leaves_a_private_table(asgi_server, settings) -> None:
    settings.STREAM_HEARTBEAT_SECONDS = 0.3
    owner, friend = client.guest(asgi_server, "Owner"), client.guest(asgi_server, "Friend")
    match = client.expect(owner.post(f"{client.API}/matches", {
        "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3}), 201, "match")
    code = client.expect(owner.get(f"{client.API}/matches/{match['id']}/invitation"), 200,
                         "code")["code"]
    client.expect(friend.post(f"{client.API}/invitations/{code}/join", {"seat": 1}), 200, "join")
    follower = sse.Follower(asgi_server, match["id"], friend.token, timeout=10)
    messages = iter(follower)
    assert next(messages).event == "retry"
    client.expect(friend.post(f"{client.API}/matches/{match['id']}/leave"), 200, "leave")
    list(messages)  # the stream ends
    assert sse.Follower(asgi_server, match["id"], friend.token).status == 403


def test_a_stream_ends_at_once_when_its_listener_leaves_a_match_in_play(asgi_server,
                                                                          settings) -> None:
    # Far beyond the follower's timeout: only the leave's own announcement can end the stream.
    settings.STREAM_HEARTBEAT_SECONDS = 60
    owner, friend = client.guest(asgi_server, "Owner"), client.guest(asgi_server, "Friend")
    match = client.expect(owner.post(f"{client.API}/matches", {
        "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot_level": "easy"},
                  {"kind": "bot", "bot_level": "easy"}]}), 201, "match")
    code = client.expect(owner.get(f"{client.API}/matches/{match['id']}/invitation"), 200,
                         "code")["code"]
    client.expect(friend.post(f"{client.API}/invitations/{code}/join", {"seat": 1}), 200, "join")
    follower = sse.Follower(asgi_server, match["id"], friend.token, timeout=5)
    messages = iter(follower)
    assert next(messages).event == "retry"
    client.expect(friend.post(f"{client.API}/matches/{match['id']}/leave"), 200, "leave")
    started = time.monotonic()
    rest = list(messages)  # ends (no `end`: the match goes on with a stand-in)
    assert time.monotonic() - started < 3
    assert all(message.event in ("action", "comment", *STATE) for message in rest)
    assert sse.Follower(asgi_server, match["id"], friend.token).status == 403
    # A person who stays is still followed.
    stays = sse.Follower(asgi_server, match["id"], owner.token, timeout=5)
    assert stays.status == 200
    stays.close()


def test_a_follower_hears_the_clock_and_who_left(asgi_server, settings) -> None:
    # Far beyond the follower's timeout: only announcements can bring these events.
    settings.STREAM_HEARTBEAT_SECONDS = 60
    owner, friend = client.guest(asgi_server, "Owner"), client.guest(asgi_server, "Friend")
    match = client.expect(owner.post(f"{client.API}/matches", {
        "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot_level": "easy"},
                  {"kind": "bot", "bot_level": "easy"}]}), 201, "match")
    code = client.expect(owner.get(f"{client.API}/matches/{match['id']}/invitation"), 200,
                         "code")["code"]
    follower = sse.Follower(asgi_server, match["id"], owner.token, timeout=5)
    messages = iter(follower)
    assert next(messages).event == "retry"
    first = next(message for message in messages if message.event == "seats")
    assert [seat["open"] for seat in first.json()["seats"]] == [False, True, False, False]
    client.expect(friend.post(f"{client.API}/invitations/{code}/join", {"seat": 1}), 200, "join")
    # The table filled and started: the seats as they are, and a turn clock for a person. One
    # read may bring both (a clock and the seats, in either order), so neither waits for the other.
    filled, clock = None, None
    while filled is None or clock is None:
        message = next(messages)
        if message.event == "seats":
            filled = message
        elif message.event == "clock" and message.json()["deadline"]:
            clock = message
    assert not any(seat["open"] for seat in filled.json()["seats"])
    assert clock.id is None or int(clock.id) <= clock.json()["version"]
    client.expect(friend.post(f"{client.API}/matches/{match['id']}/leave"), 200, "leave")
    started = time.monotonic()
    left = next(message for message in messages if message.event == "seats")
    assert time.monotonic() - started < 3
    assert [seat["left"] for seat in left.json()["seats"]] == [False, True, False, False]
    follower.close()


def test_a_follower_hears_the_ratings_and_the_rematch_after_the_end(asgi_server,
                                                                     settings) -> None:
    settings.STREAM_AFTER_END_SECONDS = 30
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    listening = sse.Listening(asgi_server, match_id, me.token, timeout=10)
    client.play_to_the_end({0: me}, match_id, random.Random(3))

    def heard(event: str) -> None:
        deadline = time.monotonic() + 10
        while not any(message.event == event for message in listening.got):
            assert time.monotonic() < deadline, f"no {event}"
            time.sleep(0.02)

    heard("end")
    assert listening.is_alive()  # open after the end, for what follows it
    change = {"seat": 0, "place": 1, "rating_before": 1500, "rating_after": 1524, "delta": 24,
              "deviation": 310}
    notify.announce_ratings(match_id, [change])  # as ratings does once a rated match is rated
    heard("rating_changed")
    offer = client.expect(me.post(f"{client.API}/matches/{match_id}/rematch"), 201, "rematch")
    listening.join(10)
    assert not listening.is_alive()
    events = [message.event for message in listening.got]
    assert events[events.index("end"):] == [
        "end", "rating_changed", "rematch_offered", "rematch_started"]
    assert listening.got[-3].json() == {"changes": [change]}
    assert listening.got[-1].json()["new_match_id"] == offer["new_match_id"]


def test_a_platforms_stream_ends_when_its_key_is_revoked(asgi_server, settings) -> None:
    from platforms import services as platforms

    settings.STREAM_HEARTBEAT_SECONDS = 0.3
    platform = platforms.register_platform(name="Revoked")
    issued, key = platforms.issue_key(platform=platform, name="server", scopes=[
        "players:write", "matches:write", "matches:read"])
    server, auth = client.Api(asgi_server), {"Authorization": f"Api-Key {key}"}
    seats = [{"kind": "player", "external_id": "p1"}] + [{"kind": "bot", "bot_level": "easy"}] * 3
    client.expect(server.request("PUT", f"{client.API}/platform/players/p1",
                                 {"display_name": "P1"}, headers=auth), 201, "player")
    match = client.expect(server.request("POST", f"{client.API}/platform/matches", {
        "game": "auction", "seats": seats, "start": "when_ready"}, headers=auth), 201, "match")
    follower = sse.Follower(asgi_server, match["id"], key, timeout=10, scheme="Api-Key")
    messages = iter(follower)
    assert next(messages).event == "retry"
    platforms.revoke_key(key=issued)
    deadline = time.monotonic() + 5
    rest = list(itertools.takewhile(lambda _: time.monotonic() < deadline, messages))
    assert time.monotonic() < deadline, "the stream went on after its key was revoked"
    assert all(message.event in ("comment", *STATE) for message in rest)
    assert sse.Follower(asgi_server, match["id"], key, scheme="Api-Key").status == 401
