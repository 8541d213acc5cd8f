"""Webhooks: which events a platform's match makes, Standard Webhooks signatures, delivery by
the embedded default's webhooks lane with retries, the delivery log, and that a receiver
that is down slows no move."""

from __future__ import annotations

import random
import time
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from games import sweeper
from games.models import Match
from platforms import webhooks
from platforms.models import DeliveryStatus, WebhookDelivery, WebhookEvent, WebhookSubscription

from .conftest import API, new_platform, play_to_the_end
from .receiver import Receiver
from .test_platform_api import TWO_PLAYERS

EVERY_TYPE = ["turn.started", "deal.ended", "match.finished", "seat.timed_out"]


@pytest.fixture
def receiver():
    serving = Receiver()
    yield serving
    serving.stop()


@pytest.fixture
def quick_retries(settings):
    settings.WEBHOOK_RETRY_SECONDS = "0.2,0.2"
    settings.WEBHOOK_SWEEP_INTERVAL_SECONDS = 0.1
    settings.WEBHOOK_TIMEOUT_SECONDS = 2
    # No probe of a failing receiver (each test that wants them says so).
    settings.WEBHOOK_PROBE_SECONDS = 3600
    # Deliveries on the webhooks' lane, retries by the periodic sweep, both in-process.
    settings.IN_PROCESS_JOBS = True


def subscribe(platform, receiver: Receiver, types=EVERY_TYPE) -> dict:
    response = platform.post("/webhooks", {"url": receiver.url, "event_types": types})
    assert response.status_code == 201, response.content
    body = response.json()
    receiver.secrets[str(body["id"])] = body["secret"]
    return body


def emit_turns(platform, matches: list[str], versions: int) -> None:
    """The platform's `turn.started` events, ``versions`` of each match, one change each, as
    the matches' follow-ups make them (nothing else is sent with them)."""
    from django.db import transaction

    from platforms import events

    for version in range(versions):
        for match_id in matches:
            with transaction.atomic():
                events.emit(platform.platform.pk, [("turn.started", {
                    "match_id": match_id, "version": version, "seat": 0,
                    "external_id": "p0", "deadline": None})])


def wait_for(check, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_a_platform_hears_of_turns_deals_and_the_end(receiver, quick_retries) -> None:
    platform = new_platform("Hooked")
    subscription = subscribe(platform, receiver)
    apps = {0: platform.player("ext-1"), 2: platform.player("ext-2")}
    match = platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS,
                                       "clock": None}).json()
    play_to_the_end(platform, apps, match["id"], random.Random(5))
    events = WebhookEvent.objects.filter(platform=platform.platform)
    wait_for(lambda: len(receiver.unique()) == events.count())
    got = receiver.unique()
    assert all(record["valid"] for record in receiver.got)
    types = [record["body"]["type"] for record in got.values()]
    assert types.count("match.finished") == 1 and types.count("deal.ended") >= 1
    turns = [r["body"]["data"] for r in got.values() if r["body"]["type"] == "turn.started"]
    assert {turn["external_id"] for turn in turns} == {"ext-1", "ext-2"}
    assert {turn["seat"] for turn in turns} == {0, 2}
    finished = next(r["body"]["data"] for r in got.values()
                    if r["body"]["type"] == "match.finished")
    assert finished["players"] == ["ext-1", None, "ext-2", None]
    assert finished["ranking"] == Match.objects.get(pk=match["id"]).ranking
    # The receiver has the last event a moment before its sender records the answer.
    wait_for(lambda: not WebhookDelivery.objects.exclude(status=DeliveryStatus.SUCCEEDED)
             .filter(subscription_id=subscription["id"]).exists())
    log = platform.get(f"/webhooks/{subscription['id']}/deliveries").json()
    assert {row["status"] for row in log["results"]} == {"succeeded"}


@pytest.mark.django_db(transaction=True)
def test_a_refused_delivery_is_retried_with_the_same_id(receiver, quick_retries) -> None:
    platform = new_platform("Flaky")
    subscribe(platform, receiver, ["turn.started"])
    receiver.answers.extend([500, 503])
    platform.player("ext-1")
    platform.player("ext-2")
    platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
    delivery = WebhookDelivery.objects.get()
    wait_for(lambda: WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED)
    assert [r["status"] for r in receiver.got] == [500, 503, 204]
    assert {r["id"] for r in receiver.got} == {delivery.event_id}
    delivery.refresh_from_db()
    assert delivery.attempts == 3 and delivery.last_status_code == 204


@pytest.mark.django_db(transaction=True)
def test_a_receiver_that_answers_again_gets_what_waits_for_it_at_once(
    receiver, quick_retries, settings
) -> None:
    """Two matches' deliveries fail and wait out a long backoff; the first attempt the receiver
    answers again makes the other due at once, not when its backoff ends."""
    settings.WEBHOOK_RETRY_SECONDS = "60,60"
    platform = new_platform("Back again")
    subscribe(platform, receiver, ["turn.started"])
    receiver.answers.extend([500, 500])
    platform.player("ext-1")
    platform.player("ext-2")
    for _ in range(2):
        platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
    # An attempt is counted when it is claimed, its answer once it came: wait for both.
    wait_for(lambda: [(d.attempts, d.last_status_code) for d in WebhookDelivery.objects.all()]
             == [(1, 500), (1, 500)])
    first, second = WebhookDelivery.objects.order_by("pk")
    assert WebhookSubscription.objects.get().failing_since is not None
    # The receiver answers again: the first delivery's retry comes early, by hand.
    WebhookDelivery.objects.filter(pk=first.pk).update(next_attempt_at=timezone.now())
    assert webhooks.attempt(first.pk) is True
    wait_for(lambda: WebhookDelivery.objects.get(pk=second.pk).status
             == DeliveryStatus.SUCCEEDED, seconds=10)
    assert WebhookDelivery.objects.get(pk=second.pk).attempts == 2
    assert WebhookSubscription.objects.get().failing_since is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("drain_seconds", [0.0, 5.0])
def test_an_attempt_the_receiver_takes_goes_on_with_the_platforms_next(
    receiver, quick_retries, settings, monkeypatch, drain_seconds: float
) -> None:
    """A backlog drains in the worker's turn of the attempt the receiver took, each match's
    events in order, for up to WEBHOOK_DRAIN_SECONDS; none: one attempt a turn."""
    settings.WEBHOOK_DRAIN_SECONDS = drain_seconds
    # No task and no sweep: nothing attempts the rest behind the test's back (nor after it,
    # against the next test's receiver).
    settings.IN_PROCESS_JOBS = False
    monkeypatch.setattr(webhooks, "send", lambda delivery_ids, countdown=0: None)
    platform = new_platform("Backlog")
    subscribe(platform, receiver, ["turn.started"])
    matches = [str(uuid.uuid4()) for _ in range(2)]
    emit_turns(platform, matches, versions=3)
    first = WebhookDelivery.objects.order_by("pk").first()
    assert webhooks.attempt(first.pk) is True
    delivered = WebhookDelivery.objects.filter(status=DeliveryStatus.SUCCEEDED).count()
    assert delivered == (6 if drain_seconds else 1)
    for match_id in matches:
        got = [record["body"]["data"]["version"] for record in receiver.got
               if record["body"]["data"]["match_id"] == match_id]
        assert got == sorted(got)


@pytest.mark.django_db(transaction=True)
def test_a_backlog_is_claimed_and_sent_many_at_a_time_over_kept_connections(
    receiver, quick_retries, settings, monkeypatch
) -> None:
    """After an attempt the receiver takes, the platform's due deliveries are claimed together
    (the first of each match), sent over the connections of the platform's free places and
    recorded together: a backlog of 30 costs a few claims, not 30, and reaches the receiver
    over two connections at most, each match's events in order."""
    settings.WEBHOOK_DRAIN_SECONDS = 30.0
    settings.WEBHOOK_PLATFORM_CONCURRENCY = 2
    settings.IN_PROCESS_JOBS = False
    monkeypatch.setattr(webhooks, "send", lambda delivery_ids, countdown=0: None)
    claims: list[int] = []
    claim_next = webhooks._claim_next

    def counted(platform_id: int, most: int = 1) -> webhooks._Claim:
        claim = claim_next(platform_id, most)
        claims.append(len(claim.deliveries))
        return claim

    monkeypatch.setattr(webhooks, "_claim_next", counted)
    platform = new_platform("Backlog in bulk")
    subscribe(platform, receiver, ["turn.started"])
    matches = [str(uuid.uuid4()) for _ in range(10)]
    emit_turns(platform, matches, versions=3)
    first = WebhookDelivery.objects.order_by("pk").first()
    assert webhooks.attempt(first.pk) is True
    assert WebhookDelivery.objects.filter(status=DeliveryStatus.SUCCEEDED).count() == 30
    assert max(claims) > 1 and len(claims) <= 6, claims
    assert len({tuple(record["connection"]) for record in receiver.got}) <= 3  # the first's own
    for match_id in matches:
        got = [record["body"]["data"]["version"] for record in receiver.got
               if record["body"]["data"]["match_id"] == match_id]
        assert got == [0, 1, 2]


@pytest.mark.django_db(transaction=True)
def test_a_claimed_delivery_never_sent_before_the_deadline_uses_up_no_attempt(
    receiver, quick_retries, settings, monkeypatch
) -> None:
    """Of a batch, one whose post never had its place before the deadline (the others took
    the time) was not sent: its claim is undone (no attempt used, no retry set, its receiver
    not marked failing) and it is due again as it was."""
    from platforms import transport

    settings.IN_PROCESS_JOBS = False
    monkeypatch.setattr(webhooks, "send", lambda delivery_ids, countdown=0: None)
    platform = new_platform("Out of time")
    subscribe(platform, receiver, ["turn.started"])
    emit_turns(platform, [str(uuid.uuid4()) for _ in range(2)], versions=1)
    monkeypatch.setattr(transport, "post_all", lambda posts, at_once: [
        transport.Outcome(204, "", 0.01), transport.Outcome(None, "no answer within 2 s", 2.0,
                                                            sent=False)])
    claim = webhooks._claim_next(platform.platform.pk, most=2)
    unsent = claim.deliveries[1]
    due_at = claim.before[unsent.pk][1]
    assert [result.delivered for result in webhooks._deliver(claim)] == [True, False]
    unsent.refresh_from_db()
    assert unsent.status == DeliveryStatus.PENDING and unsent.attempts == 0
    assert unsent.in_flight_until is None and unsent.next_attempt_at == due_at
    assert unsent.last_error == ""
    assert WebhookSubscription.objects.get().failing_since is None


def test_a_drain_claims_as_many_as_the_receiver_answers_in_a_quarter_of_the_deadline(
    settings,
) -> None:
    settings.WEBHOOK_TIMEOUT_SECONDS = 5
    taken = webhooks._Result  # (delivered, seconds)
    assert webhooks._drain_size([taken(True, 0.002)]) == webhooks.DRAIN_MOST
    assert webhooks._drain_size([taken(True, 0.1), taken(True, 0.01)]) == 12
    assert webhooks._drain_size([taken(True, 2.0)]) == 1


@pytest.mark.django_db(transaction=True)
def test_a_failing_receiver_is_probed_and_a_probe_it_refuses_changes_nothing(
    receiver, quick_retries, settings, monkeypatch
) -> None:
    """While a receiver fails, the sweep tries one of its waiting deliveries every
    WEBHOOK_PROBE_SECONDS whatever its backoff; a refused probe uses up no attempt and moves
    no retry, and the first one taken makes everything waiting due at once (and goes on with
    it in its turn)."""
    settings.WEBHOOK_RETRY_SECONDS = "600,600"
    settings.IN_PROCESS_JOBS = False  # the test sends the probes by hand
    platform = new_platform("Probed")
    subscribe(platform, receiver, ["turn.started"])
    receiver.decide = lambda body: 503
    platform.player("ext-1")
    platform.player("ext-2")
    for _ in range(2):
        platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
    first, second = WebhookDelivery.objects.order_by("pk")
    for delivery in (first, second):
        assert webhooks.attempt(delivery.pk) is False
    assert WebhookSubscription.objects.get().failing_since is not None
    settings.WEBHOOK_PROBE_SECONDS = 60
    WebhookSubscription.objects.update(failing_since=timezone.now() - timedelta(minutes=2))
    waiting = {row.pk: (row.attempts, row.next_attempt_at) for row in
               WebhookDelivery.objects.all()}

    sent: list[tuple[object, ...]] = []
    monkeypatch.setattr(webhooks.work, "later",
                        lambda task, *args, **kwargs: sent.append(args))
    assert webhooks.probe_failing_receivers() == 1
    assert webhooks.probe_failing_receivers() == 0  # not again within the interval
    monkeypatch.undo()
    [(probed, probe)] = sent
    assert probe is True and probed in waiting
    assert webhooks.attempt(probed, True) is False
    assert {row.pk: (row.attempts, row.next_attempt_at) for row in
            WebhookDelivery.objects.all()} == waiting
    assert WebhookDelivery.objects.get(pk=probed).last_status_code == 503

    receiver.decide = None  # back
    assert webhooks.attempt(probed, True) is True
    assert WebhookSubscription.objects.get().failing_since is None
    # Everything waiting was due at once, and went in the probe's own turn.
    other = WebhookDelivery.objects.exclude(pk=probed).get()
    assert other.status == DeliveryStatus.SUCCEEDED and other.attempts == 2


@pytest.mark.django_db(transaction=True)
def test_a_retry_that_comes_due_while_its_probe_is_under_way_is_not_sent_twice(
    receiver, quick_retries, settings
) -> None:
    """A probe leaves a delivery's retry time as it was; a retry that comes due while the probe
    is still waiting for the receiver finds the delivery under way and sends nothing (the
    receiver once got one event twice, 30 ms apart)."""
    settings.WEBHOOK_RETRY_SECONDS = "600,600"
    settings.IN_PROCESS_JOBS = False
    platform = new_platform("Probed twice")
    subscribe(platform, receiver, ["turn.started"])
    receiver.decide = lambda body: 503
    platform.player("ext-1")
    platform.player("ext-2")
    platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
    delivery = WebhookDelivery.objects.get()
    assert webhooks.attempt(delivery.pk) is False
    assert webhooks._claim_probe(delivery.pk) is not None  # the probe's request goes out
    WebhookDelivery.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    sent = len(receiver.got)
    assert webhooks.attempt(delivery.pk) is None
    assert len(receiver.got) == sent


@pytest.mark.django_db(transaction=True)
def test_a_receiver_that_is_down_fails_after_every_retry_and_can_be_redelivered(
    receiver, quick_retries
) -> None:
    platform = new_platform("Down")
    subscribe(platform, receiver, ["turn.started"])
    url = receiver.url
    receiver.stop()
    platform.player("ext-1")
    platform.player("ext-2")
    platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
    wait_for(lambda: WebhookDelivery.objects.get().status == DeliveryStatus.FAILED)
    delivery = WebhookDelivery.objects.get()
    assert delivery.attempts == 3 and delivery.last_status_code is None
    assert delivery.last_error
    again = Receiver()
    try:
        again.secrets.update(receiver.secrets)
        delivery.subscription.url = again.url
        delivery.subscription.save()
        webhooks.redeliver(delivery)
        wait_for(lambda: WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED)
        assert len(again.unique()) == 1 and again.got[0]["valid"]
    finally:
        again.stop()
    assert url != again.url


@pytest.mark.django_db(transaction=True)
def test_a_receiver_that_hangs_slows_no_move(quick_retries, settings) -> None:
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # accepts connections, never answers
    try:
        platform = new_platform("Hanging")
        port = silent.getsockname()[1]
        platform.post("/webhooks", {"url": f"http://127.0.0.1:{port}/h",
                                    "event_types": EVERY_TYPE})
        apps = {0: platform.player("ext-1"), 2: platform.player("ext-2")}
        match = platform.post("/matches", {"game": "auction", "deals": 1,
                                           "seats": TWO_PLAYERS, "clock": None}).json()
        for _ in range(6):
            for seat, app in apps.items():
                view = app.get(f"{API}/matches/{match['id']}/view").json()
                if view["deal"]["to_act"] == seat:
                    action = view["deal"]["legal_actions"][0]
                    started = time.perf_counter()
                    app.post(f"{API}/matches/{match['id']}/actions", action, format="json")
                    assert time.perf_counter() - started < 1.0
    finally:
        silent.close()


def test_a_timeout_is_an_event(platform, settings) -> None:
    """(Without a commit no delivery runs: the events and deliveries are what is checked.)"""
    platform.post("/webhooks", {"url": "https://receiver.example/h",
                                "event_types": ["seat.timed_out"]})
    ids = [f"ext-{seat}" for seat in range(4)]
    for external_id in ids:
        platform.player(external_id)
    match = platform.post("/matches", {"game": "auction", "deals": 1, "seats": [
        {"kind": "player", "external_id": external_id} for external_id in ids]}).json()
    Match.objects.filter(pk=match["id"]).update(turn_deadline=timezone.now())
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    assert sweeper.run_clocks() == 1
    event = WebhookEvent.objects.get(type="seat.timed_out")
    assert event.payload["data"]["external_id"] in ids
    assert WebhookDelivery.objects.filter(event=event).count() == 1


def test_webhooks_are_the_platforms_own(platform, other_platform) -> None:
    subscription = platform.post("/webhooks", {"url": "https://a.example/h",
                                               "event_types": ["match.finished"]}).json()
    assert other_platform.get("/webhooks").json() == []
    assert other_platform.get(f"/webhooks/{subscription['id']}/deliveries").status_code == 404
    assert other_platform.client.delete(
        f"{API}/platform/webhooks/{subscription['id']}").status_code == 404
    assert "secret" not in platform.get("/webhooks").json()[0]
    assert platform.client.delete(
        f"{API}/platform/webhooks/{subscription['id']}").status_code == 204


def test_managing_webhooks_needs_its_scope(db) -> None:
    reader = new_platform("Reader", scopes=["matches:read"])
    assert reader.get("/webhooks").status_code == 403
    bad = reader.post("/webhooks", {"url": "https://a.example/h", "event_types": ["x"]})
    assert bad.status_code == 403


@pytest.mark.django_db(transaction=True)
def test_in_production_no_webhook_goes_to_a_private_address(receiver, quick_retries,
                                                             settings) -> None:
    platform = new_platform("Sneaky")
    subscribe(platform, receiver, ["turn.started"])  # a loopback URL, while allowed
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    platform.player("ext-1")
    platform.player("ext-2")
    platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
    wait_for(lambda: WebhookDelivery.objects.get().status == DeliveryStatus.FAILED)
    assert receiver.got == []
    assert "not a public address" in WebhookDelivery.objects.get().last_error


def test_every_signing_secret_works_with_the_standard_library() -> None:
    from datetime import UTC, datetime

    from standardwebhooks.webhooks import Webhook

    for _ in range(200):
        secret = webhooks.new_secret()
        now = datetime.now(UTC)
        signature = Webhook(secret).sign("msg_1", now, "{}")
        headers = {"webhook-id": "msg_1", "webhook-timestamp": str(int(now.timestamp())),
                   "webhook-signature": signature}
        assert Webhook(secret).verify("{}", headers) == {}


@pytest.mark.django_db(transaction=True)
def test_a_redirect_is_not_followed(receiver, quick_retries) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    target = Receiver()  # where a hostile receiver would send the service

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(302)
            self.send_header("Location", target.url)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    redirecting = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=redirecting.serve_forever, daemon=True).start()
    try:
        platform = new_platform("Redirecting")
        platform.post("/webhooks", {
            "url": f"http://127.0.0.1:{redirecting.server_address[1]}/h",
            "event_types": ["turn.started"]})
        platform.player("ext-1")
        platform.player("ext-2")
        platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
        wait_for(lambda: WebhookDelivery.objects.get().status == DeliveryStatus.FAILED)
        assert target.got == []
        assert WebhookDelivery.objects.get().last_status_code == 302
    finally:
        redirecting.shutdown()
        redirecting.server_close()
        target.stop()


def test_a_webhook_url_is_a_uri(platform) -> None:
    for url in ("http://0:0/a{b}", "ftp://a.example/h", "http://a.example/ h", "https://"):
        response = platform.post("/webhooks", {"url": url, "event_types": ["deal.ended"]})
        assert response.status_code == 400, url
    fine = platform.post("/webhooks", {"url": "https://a.example:8443/h?x=1&y=%20",
                                       "event_types": ["deal.ended"]})
    assert fine.status_code == 201 and fine.json()["url"] == "https://a.example:8443/h?x=1&y=%20"


def test_a_match_tells_its_start_its_seats_and_its_end(platform, settings) -> None:
    """Every change of a platform's match that is not a move is an event: the start, a seat
    going on autopilot and coming back, a player leaving, the match abandoned."""
    platform.post("/webhooks", {"url": "https://receiver.example/h", "event_types": [
        "match.started", "match.abandoned", "seat.left", "seat.autopilot_on",
        "seat.autopilot_off"]})
    ids = [f"ext-{seat}" for seat in range(4)]
    apps = {index: platform.player(external_id) for index, external_id in enumerate(ids)}
    match = platform.post("/matches", {"game": "auction", "deals": 1, "seats": [
        {"kind": "player", "external_id": external_id} for external_id in ids]}).json()
    settings.AUTOPILOT_AFTER_TIMEOUTS = 1
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    Match.objects.filter(pk=match["id"]).update(turn_deadline=timezone.now())
    assert sweeper.run_clocks() == 1
    timed_out = WebhookEvent.objects.get(type="seat.autopilot_on").payload["data"]["seat"]
    back = apps[timed_out].post(f"{API}/matches/{match['id']}/return")
    assert back.status_code == 200, back.content
    leaver = (timed_out + 1) % 4
    assert apps[leaver].post(f"{API}/matches/{match['id']}/leave").status_code == 200
    from games import services

    services.abandon_match(match_id=match["id"])
    events = [(event.type, event.payload["data"]) for event in
              WebhookEvent.objects.filter(platform=platform.platform).order_by("created_at")]
    assert [kind for kind, _ in events] == [
        "match.started", "seat.autopilot_on", "seat.autopilot_off", "seat.left",
        "match.abandoned"]
    started, on, off, left, abandoned = (data for _, data in events)
    assert started["players"] == ids and started["status"] == "active"
    assert (on["seat"], on["external_id"]) == (timed_out, ids[timed_out])
    assert (off["seat"], off["external_id"]) == (timed_out, ids[timed_out])
    assert (left["seat"], left["external_id"]) == (leaver, ids[leaver])
    assert abandoned["status"] == "abandoned" and len(abandoned["totals"]) == 4
    assert all(data["match_id"] == match["id"] for _, data in events)
