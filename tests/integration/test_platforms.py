"""A partner platform scaled out: its players play a whole match with their player tokens
over gunicorn while its webhook receiver (a real HTTP server on loopback, its own process) is
killed and started again mid-match; after deduplication it has every event exactly once, each
with a valid signature, and one player's app has followed the live stream from the stream
process without missing an event."""

from __future__ import annotations

import json
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from games.models import Match
from platforms import events, services
from platforms.models import (
    DeliveryStatus,
    EventType,
    Platform,
    Scope,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)
from tests import sse
from tests.integration.harness import client
from tests.integration.harness.stack import free_port, wait_until
from tests.platforms.hostile import HostileReceiver
from tests.platforms.receiver import Receiver, ReceiverProcess

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SEATS = [{"kind": "player", "external_id": "ext-1"}, {"kind": "bot", "bot_level": "easy"},
         {"kind": "player", "external_id": "ext-2"}, {"kind": "bot", "bot_level": "easy"}]


def test_a_receiver_killed_mid_match_gets_every_event_once(
    web: str, stream: str, tmp_path: Path
) -> None:
    port, out = free_port(), tmp_path / "received.jsonl"
    platform, [subscription], apps, match_id = platform_with_players(
        web, "Scaled", [f"http://127.0.0.1:{port}/hooks"])
    receiver = ReceiverProcess(port, out, [subscription["secret"]]).process
    # One player's app follows the match live, from the stream process (Redis pub/sub).
    listening = sse.Listening(stream, match_id, apps[0].token, timeout=30)
    try:
        for moves in client.moves_to_the_end(apps, match_id, random.Random(11)):
            if moves == 6:
                receiver.send_signal(signal.SIGKILL)
                receiver.wait()
            if moves == 14:
                receiver = ReceiverProcess(port, out, [subscription["secret"]]).process
        deliveries = WebhookDelivery.objects.filter(subscription_id=subscription["id"])
        wait_until(
            lambda: not deliveries.exclude(status=DeliveryStatus.SUCCEEDED).exists(), 60,
            "every delivery made",
        )
    finally:
        receiver.kill()
    received = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(record["valid"] for record in received)
    unique = {record["id"]: record["body"] for record in received}
    events = dict(WebhookEvent.objects.filter(platform=platform).values_list("id", "type"))
    assert set(unique) == set(events)
    assert {body["type"] for body in unique.values()} == {
        "turn.started", "deal.ended", "match.finished"}
    assert any(d.attempts > 1 for d in deliveries), "no delivery met the dead receiver"
    # In the match's order, though the receiver was down for a while: the first copy of each.
    arrived: dict[str, int] = {}
    for record in received:
        arrived.setdefault(record["id"], record["body"]["sequence"])
    assert list(arrived.values()) == sorted(arrived.values())
    listening.join(30)
    feed = client.expect(apps[0].get(f"{client.API}/matches/{match_id}/events?limit=500"),
                         200, "feed")
    assert listening.ended() and listening.actions() == feed["events"]


def platform_with_players(
    web: str, name: str, urls: list[str]
) -> tuple[Platform, list[dict[str, Any]], dict[int, client.Api], str]:
    """A platform subscribed to ``urls`` for turns, deals and the end, with a match of two of
    its players and two computer players: the platform, its subscriptions, its players' APIs
    by seat, and the match's id."""
    platform = services.register_platform(name=name)
    _, key = services.issue_key(platform=platform, name="server",
                                scopes=[scope.value for scope in Scope])
    server = client.Api(web)
    headers = {"Authorization": f"Api-Key {key}"}
    subscriptions = [client.expect(server.request("POST", f"{client.API}/platform/webhooks", {
        "url": url, "event_types": ["turn.started", "deal.ended", "match.finished"],
    }, headers=headers), 201, "subscribe") for url in urls]
    apps = {}
    for seat, external_id in ((0, "ext-1"), (2, "ext-2")):
        player = client.expect(server.request(
            "PUT", f"{client.API}/platform/players/{external_id}",
            {"display_name": external_id}, headers=headers), 201, "player")
        apps[seat] = client.Api(web, player["token"])
    match = client.expect(server.request("POST", f"{client.API}/platform/matches", {
        "game": "auction", "deals": 1, "seats": SEATS, "clock": None,
    }, headers=headers), 201, "match")
    return platform, subscriptions, apps, match["id"]


def test_hostile_receivers_hold_up_no_one_else(web: str) -> None:
    """A platform whose receivers misbehave every way they can (a status line and then a
    header every half second, silence, no HTTP at all, a gigabyte of body, a redirect to
    loopback) plays a match flat out. Meanwhile a person's computer players answer as usual,
    another platform's receiver gets its events, and every hostile attempt ends as a failed
    attempt with its reason (each receiver's first event of the match is retried; the later
    ones wait behind it, in order)."""
    target = Receiver()  # the redirect's target: must never be reached
    hostile = [HostileReceiver(mode) for mode in ("trickle", "silent", "bad-status")]
    hostile += [HostileReceiver("huge-body"), HostileReceiver("redirect", target=target.url)]
    good = Receiver()
    playing = None
    try:
        bad, _, bad_apps, bad_match = platform_with_players(
            web, "Hostile", [receiver.url for receiver in hostile])
        playing = threading.Thread(target=client.play_to_the_end,
                                   args=(bad_apps, bad_match, random.Random(3)), daemon=True)
        playing.start()
        wait_until(lambda: WebhookDelivery.objects.filter(
            subscription__platform=bad).count() >= 40, 60, "the hostile platform's events")
        # A person's computer players, while the hostile receivers hold what they may.
        person = client.guest(web)
        match_id = client.match_against_bots(person, levels=["easy"] * 3, deals=1)
        for _ in range(5):
            started = time.monotonic()
            wait_until(lambda: client.my_turn(client.view(person, match_id)), 10,
                       "the computer players' turns")
            assert time.monotonic() - started < 10
            seat_view = client.view(person, match_id)
            if seat_view["status"] != "active":
                break
            client.expect(client.act(person, match_id, client.random_action(
                seat_view, random.Random(5))), 200, "move")
        # Another platform's receiver is served all along.
        other, _, other_apps, other_match = platform_with_players(web, "Polite", [good.url])
        for moves in client.moves_to_the_end(other_apps, other_match, random.Random(4)):
            if moves == 4:
                break
        events = WebhookEvent.objects.filter(platform=other)
        wait_until(lambda: len({r["id"] for r in good.got}) == events.count(), 20,
                   "the polite platform's deliveries")
        playing.join(120)
        # The hostile platform's attempts go at its own share's pace (two at a time, up to
        # 5 s each, each failure retried): wait for a finished attempt of each receiver, read
        # at once (a receiver's one delivery attempted goes back in flight at its retry).
        finished = WebhookDelivery.objects.filter(subscription__platform=bad, attempts__gte=1,
                                                  in_flight_until__isnull=True)
        attempts: list[tuple[str, str]] = []

        def each_attempted() -> bool:
            attempts[:] = finished.values_list("subscription__url", "last_error")
            return len({url for url, _ in attempts}) == 5

        wait_until(each_attempted, 120, "an attempt to each hostile receiver")
    finally:
        # The backlog's retries would go on past the test, into the next one's tables.
        WebhookSubscription.objects.filter(platform__name="Hostile").delete()
        time.sleep(6)  # the attempts under way end by their deadline
        for receiver in hostile:
            receiver.stop()
        good.stop()
        target.stop()
    assert target.got == []
    reasons: dict[str, set[str]] = {}
    for url, error in attempts:
        reasons.setdefault(url, set()).add(error)
    by_mode = {receiver.mode: reasons[receiver.url] for receiver in hostile}
    assert by_mode["trickle"] == by_mode["silent"] == {"no answer within 5 s"}
    assert all("RemoteProtocolError" in error for error in by_mode["bad-status"])
    assert by_mode["huge-body"] == {""}  # a 200: delivered, the body never read
    assert by_mode["redirect"] == {"HTTP 307"}


def test_a_platform_follows_its_match_with_its_key(web: str, stream: str) -> None:
    """Scaled out: the platform's key reads its match's feed on gunicorn and its stream on the
    stream process, the same actions as its players' feed; another platform's key gets 404."""
    import urllib.request

    reads = [Scope.MATCHES_READ.value]
    _, strangers_key = services.issue_key(
        platform=services.register_platform(name="Another"), name="reader", scopes=reads)
    _, _, apps, match_id = platform_with_players(web, "Plays", [])
    _, owners_key = services.issue_key(platform=Platform.objects.get(name="Plays"),
                                       name="reader", scopes=reads)
    client.play_to_the_end(apps, match_id, random.Random(11))
    feed = client.events(apps[0], match_id, after=0, wait=0)["events"]

    reader = client.Api(web)
    by_key = reader.request("GET", f"{client.API}/matches/{match_id}/events?after=0&wait=0",
                            headers={"Authorization": f"Api-Key {owners_key}"})
    assert client.expect(by_key, 200, "the feed by key")["events"] == feed
    other = reader.request("GET", f"{client.API}/matches/{match_id}/events?after=0&wait=0",
                           headers={"Authorization": f"Api-Key {strangers_key}"})
    assert other.status == 404
    request = urllib.request.Request(
        f"{stream}{client.API}/matches/{match_id}/stream",
        headers={"Authorization": f"Api-Key {owners_key}", "Accept": "text/event-stream"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        got = sse.parse(answer.read())
    assert [m.json() for m in got if m.event == "action"] == feed
    assert got[-1].event == "end"


def test_ready_players_start_their_match_once_and_beat_starts_a_late_one(web: str) -> None:
    """Over gunicorn: the last two players of a `when_ready` match say ready at the same
    moment and it starts once; a match one player never says ready to is started by beat's
    sweep at `ready_by`, that player's seat on autopilot."""
    platform = services.register_platform(name="Ready")
    _, key = services.issue_key(platform=platform, name="server",
                                scopes=[scope.value for scope in Scope])
    server = client.Api(web)
    headers = {"Authorization": f"Api-Key {key}"}
    apps = []
    for external_id in ("r0", "r1"):
        player = client.expect(server.request(
            "PUT", f"{client.API}/platform/players/{external_id}",
            {"display_name": external_id}, headers=headers), 201, "player")
        apps.append(client.Api(web, player["token"]))
    seats = [{"kind": "player", "external_id": "r0"}, {"kind": "bot", "bot_level": "easy"},
             {"kind": "player", "external_id": "r1"}, {"kind": "bot", "bot_level": "easy"}]

    def create() -> str:
        match = client.expect(server.request("POST", f"{client.API}/platform/matches", {
            "game": "auction", "deals": 1, "seats": seats, "start": "when_ready",
            "ready_within": 10,
        }, headers=headers), 201, "match")
        assert match["status"] == "waiting"
        return str(match["id"])

    together = create()
    barrier = threading.Barrier(2)
    answers: list[Any] = []

    def ready(app: client.Api) -> None:
        barrier.wait()
        answers.append(client.expect(app.post(f"{client.API}/matches/{together}/ready"), 200,
                                     "ready"))

    threads = [threading.Thread(target=ready, args=(app,)) for app in apps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(answer["status"] for answer in answers) == ["active", "waiting"]
    assert Match.objects.get(pk=together).deals.count() == 1

    late = create()
    client.expect(apps[0].post(f"{client.API}/matches/{late}/ready"), 200, "ready")
    wait_until(lambda: Match.objects.get(pk=late).status == "active", 30,
               "beat starting the match")
    row = Match.objects.get(pk=late)
    assert row.deals.count() == 1
    assert [seat.autopilot for seat in row.seats.order_by("index")] == [
        False, False, True, False]


def test_a_retry_is_sent_when_due_while_other_deliveries_flow(
    web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scaled out (the webhook worker, its countdown tasks, beat's sweep): a receiver refuses
    one event twice while another platform's events flow to a receiver that takes 0.1 s each;
    the retries (1 s apart on this stack) come within a small margin of their due time."""
    import itertools
    import uuid

    from django.db import transaction

    from platforms import webhooks

    # The events are written here, in the test's process, whose broker connection an earlier
    # test may have left pointing elsewhere: beat's sweep sends each first attempt instead.
    monkeypatch.setattr(webhooks, "send", lambda delivery_ids, countdown=0: None)

    receiver = Receiver()
    flaky = str(uuid.uuid4())
    refused: list[int] = []

    def decide(body: dict[str, Any]) -> int:
        if body["data"]["match_id"] != flaky:
            time.sleep(0.1)
            return 204
        if len(refused) < 2:
            refused.append(1)
            return 503
        return 204

    receiver.decide = decide
    platforms = [services.register_platform(name=name) for name in ("Flaky", "Busy")]
    for platform in platforms:
        subscription = webhooks.subscribe(platform=platform, url=receiver.url,
                                          event_types=["deal.ended"])
        receiver.secrets[str(subscription.pk)] = subscription.secret

    def emit(platform: Platform, match_id: str) -> None:
        with transaction.atomic():
            events.emit(platform.pk, [("deal.ended", {"match_id": match_id, "version": 1})])

    try:
        emit(platforms[0], flaky)
        deadline = time.monotonic() + 30
        while not [r for r in receiver.got
                   if r["status"] == 204 and r["body"]["data"]["match_id"] == flaky]:
            assert time.monotonic() < deadline, "timed out"
            emit(platforms[1], str(uuid.uuid4()))
            time.sleep(0.1)
        attempts = [r["at"] for r in receiver.got if r["body"]["data"]["match_id"] == flaky]
        late = [later - earlier - 1.0 for earlier, later in itertools.pairwise(attempts)]
        print(f"retry lateness (s), scaled out: {[round(value, 3) for value in late]}")
        assert len(late) == 2 and max(late) < 0.5
    finally:
        WebhookSubscription.objects.filter(platform__in=platforms).delete()
        receiver.stop()


def test_a_platform_runs_its_matches_as_the_guide_says(
    web: str, stream: str, tmp_path: Path
) -> None:
    """docs/platforms.md, step by step, scaled out: with only its key, a platform subscribes,
    creates its players and a match that starts when they are ready, follows it by its stream
    and by webhooks while its receiver is down for a while (every event once, each match's in
    order), cancels a waiting match and stops one in play, and erases a player."""
    platform = services.register_platform(name="Guided")
    _, key = services.issue_key(platform=platform, name="server",
                                scopes=[scope.value for scope in Scope])
    server, auth = client.Api(web), {"Authorization": f"Api-Key {key}"}

    def call(method: str, path: str, body: Any, status: int) -> Any:
        answer = server.request(method, f"{client.API}/platform{path}", body, headers=auth)
        return client.expect(answer, status, f"{method} {path}")

    # 1. Where to hear of it: every event type.
    port, out = free_port(), tmp_path / "received.jsonl"
    every_type = [event_type.value for event_type in EventType]
    subscription = call("POST", "/webhooks", {
        "url": f"http://127.0.0.1:{port}/hooks", "event_types": every_type}, 201)
    receiver = ReceiverProcess(port, out, [subscription["secret"]]).process
    # 2. The players, each with a token for its app.
    tokens = {ext: call("PUT", f"/players/{ext}", {"display_name": ext}, 201)["token"]
              for ext in ("g1", "g2", "g3")}
    apps = {0: client.Api(web, tokens["g1"]), 2: client.Api(web, tokens["g2"])}
    # 3. A match that starts when both are ready: waiting, no clock running, until then.
    seats = [{"kind": "player", "external_id": "g1"}, {"kind": "bot", "bot_level": "easy"},
             {"kind": "player", "external_id": "g2"}, {"kind": "bot", "bot_level": "easy"}]
    match = call("POST", "/matches", {"game": "auction", "deals": 1, "seats": seats,
                                      "start": "when_ready", "ready_within": 120}, 201)
    match_id = match["id"]
    assert match["status"] == "waiting" and match["turn_deadline"] is None
    # 4. The platform follows it live with its key, from the stream process.
    listening = sse.Listening(stream, match_id, key, timeout=60, scheme="Api-Key")
    client.expect(apps[0].post(f"{client.API}/matches/{match_id}/ready"), 200, "ready")
    assert call("GET", f"/matches/{match_id}", None, 200)["status"] == "waiting"
    client.expect(apps[2].post(f"{client.API}/matches/{match_id}/ready"), 200, "ready")
    assert call("GET", f"/matches/{match_id}", None, 200)["status"] == "active"
    # 5. They play it to the end while the receiver is down for a while.
    try:
        for moves in client.moves_to_the_end(apps, match_id, random.Random(21)):
            if moves == 4:
                receiver.send_signal(signal.SIGKILL)
                receiver.wait()
            if moves == 12:
                receiver = ReceiverProcess(port, out, [subscription["secret"]]).process
        # 6. A waiting match called off, and one in play stopped.
        waiting = call("POST", "/matches", {"game": "auction", "seats": seats,
                                            "start": "when_ready"}, 201)["id"]
        assert call("POST", f"/matches/{waiting}/cancel", None, 200)["status"] == "cancelled"
        in_play = call("POST", "/matches", {"game": "auction", "seats": [
            {"kind": "player", "external_id": "g3"}, *seats[1:2], *seats[3:], *seats[1:2]],
        }, 201)["id"]
        assert call("POST", f"/matches/{in_play}/cancel", None, 200)["status"] == "abandoned"
        # 7. A player erased: their token stops at once, their id is free again.
        call("DELETE", "/players/g3", None, 204)
        assert client.Api(web, tokens["g3"]).get(f"{client.API}/me").status == 401
        call("GET", "/players/g3", None, 404)
        deliveries = WebhookDelivery.objects.filter(subscription_id=subscription["id"])
        wait_until(
            lambda: not deliveries.exclude(status=DeliveryStatus.SUCCEEDED).exists(), 90,
            "every delivery made",
        )
    finally:
        receiver.kill()
    received = [json.loads(line) for line in out.read_text().splitlines()]
    assert received and all(record["valid"] for record in received)
    firsts: dict[str, dict[str, Any]] = {}
    for record in received:  # in the order they arrived
        firsts.setdefault(record["id"], record["body"])
    events = dict(WebhookEvent.objects.filter(platform=platform).values_list("id", "type"))
    assert set(firsts) == set(events)
    by_match: dict[str, list[int]] = {}
    for body in firsts.values():
        if "match_id" in body["data"]:  # a player's event (`player.erased`) is of no match
            by_match.setdefault(body["data"]["match_id"], []).append(body["sequence"])
    assert all(sequences == sorted(sequences) for sequences in by_match.values()), by_match
    types = {body["type"] for body in firsts.values()}
    assert {"match.started", "turn.started", "deal.ended", "match.finished",
            "match.cancelled", "match.abandoned", "player.erased"} <= types
    erased = next(body for body in firsts.values() if body["type"] == "player.erased")
    assert erased["data"] == {"external_id": "g3", "reason": "platform"}
    assert any(delivery.attempts > 1 for delivery in deliveries), "none met the dead receiver"
    listening.join(30)
    feed = client.expect(apps[0].get(f"{client.API}/matches/{match_id}/events?limit=500"),
                         200, "feed")
    assert listening.ended() and listening.actions() == feed["events"]
    assert [m.event for m in listening.got].count("deal_ended") == 1


def test_one_platform_s_replay_storm_delays_no_other_platform_s_event(
    web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scaled out (the webhook worker, the fair queue in front of it): while one platform
    replays a call's worth of events to a receiver that takes 0.2 s each, another platform's
    `match.started` overtakes the replayed backlog, behind the attempts already under way."""
    import uuid
    from datetime import timedelta

    from django.db import transaction
    from django.utils import timezone

    from platforms import webhooks

    # The stormy platform's old events are written here, and sent nowhere (delivered long ago).
    monkeypatch.setattr(webhooks, "send", lambda delivery_ids, countdown=0: None)
    receiver = Receiver()
    stormy_match = str(uuid.uuid4())

    def decide(body: dict[str, Any]) -> int:
        if body["data"].get("match_id") == stormy_match:
            time.sleep(0.2)
        return 204

    receiver.decide = decide
    storming = services.register_platform(name="Storming")
    _, storm_key = services.issue_key(platform=storming, name="server",
                                      scopes=[scope.value for scope in Scope])
    storm_subscription = webhooks.subscribe(platform=storming, url=receiver.url,
                                            event_types=["deal.ended"])
    receiver.secrets[str(storm_subscription.pk)] = storm_subscription.secret
    with transaction.atomic():
        events.emit(storming.pk, [
            ("deal.ended", {"match_id": stormy_match, "version": version})
            for version in range(webhooks.REPLAY_MAX_EVENTS)])
    WebhookDelivery.objects.filter(subscription=storm_subscription).update(
        status=DeliveryStatus.SUCCEEDED)
    other, _, _, _ = platform_with_players(web, "Calm", [])
    try:
        _, key = services.issue_key(platform=other, name="starts",
                                    scopes=[scope.value for scope in Scope])
        server = client.Api(web)
        starting = client.expect(server.request(
            "POST", f"{client.API}/platform/webhooks",
            {"url": receiver.url, "event_types": ["match.started"]},
            headers={"Authorization": f"Api-Key {key}"}), 201, "subscribe")
        receiver.secrets[str(starting["id"])] = starting["secret"]
        since = (timezone.now() - timedelta(hours=1)).isoformat()
        replayed = client.expect(server.request(
            "POST", f"{client.API}/platform/webhooks/{storm_subscription.pk}/replay",
            {"since": since}, headers={"Authorization": f"Api-Key {storm_key}"}), 202, "replay")
        assert replayed["count"] == webhooks.REPLAY_MAX_EVENTS
        wait_until(lambda: len(receiver.got) >= 10, 30, "the storm under way")
        match = client.expect(server.request("POST", f"{client.API}/platform/matches", {
            "game": "auction", "deals": 1, "seats": SEATS, "clock": None,
        }, headers={"Authorization": f"Api-Key {key}"}), 201, "match")
        # When the event was made (the web process's clock is this one), as the receiver's.
        made_at = WebhookEvent.objects.get(platform=other, type="match.started").created_at
        created = made_at.timestamp() - time.time() + time.monotonic()

        def started() -> list[dict[str, Any]]:
            return [record for record in list(receiver.got)
                    if record["body"]["type"] == "match.started"
                    and record["body"]["data"]["match_id"] == match["id"]]

        wait_until(lambda: bool(started()), 30, "the other platform's match.started")
        arrived = started()[0]["at"]
        overtaking = [record for record in list(receiver.got)
                      if created < record["at"] < arrived
                      and record["body"]["data"].get("match_id") == stormy_match]
        stormed = sum(record["body"]["data"].get("match_id") == stormy_match
                      for record in receiver.got)
    finally:
        # The rest of the storm would go on past the test.
        WebhookSubscription.objects.filter(
            platform__in=[storming, other]).delete()
        time.sleep(1)
        receiver.stop()
    print(f"the storm's attempts ahead of the other platform's event: {len(overtaking)}, "
          f"which arrived after {arrived - created:.3f} s")
    # The replay was still going (two at a time, 0.2 s each) when the event arrived, and at
    # most the attempts under way, one for each of its platform's slots, came first.
    assert stormed < webhooks.REPLAY_MAX_EVENTS / 2, stormed
    assert len(overtaking) <= 4, (len(overtaking), arrived - created)
