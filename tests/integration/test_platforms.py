"""A partner platform scaled out: its players play a whole match with their player tokens
over gunicorn while its webhook receiver (a real HTTP server on loopback, its own process) is
killed and started again mid-match; after deduplication it has every event exactly once, each
with a valid signature, and one player's app has followed the live stream from the stream
process without missing an event."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from platforms import services
from platforms.models import DeliveryStatus, Scope, WebhookDelivery, WebhookEvent
from tests import sse
from tests.integration.harness import client
from tests.integration.harness.stack import ROOT, free_port, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SEATS = [{"kind": "player", "external_id": "ext-1"}, {"kind": "bot", "bot_level": "easy"},
         {"kind": "player", "external_id": "ext-2"}, {"kind": "bot", "bot_level": "easy"}]


def start_receiver(port: int, out: Path, secret: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.platforms.receiver", str(port), str(out), secret],
        cwd=ROOT,
    )
    wait_until(lambda: _listening(port), 10, "the webhook receiver")
    return process


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_a_receiver_killed_mid_match_gets_every_event_once(
    web: str, stream: str, tmp_path: Path
) -> None:
    platform = services.register_platform(name="Scaled")
    _, key = services.issue_key(platform=platform, name="server",
                                scopes=[scope.value for scope in Scope])
    server = client.Api(web)
    headers = {"Authorization": f"Api-Key {key}"}
    port, out = free_port(), tmp_path / "received.jsonl"
    subscription = client.expect(server.request("POST", f"{client.API}/platform/webhooks", {
        "url": f"http://127.0.0.1:{port}/hooks",
        "event_types": ["turn.started", "deal.ended", "match.finished"],
    }, headers=headers), 201, "subscribe")
    receiver = start_receiver(port, out, subscription["secret"])
    apps = {}
    for seat, external_id in ((0, "ext-1"), (2, "ext-2")):
        player = client.expect(server.request(
            "PUT", f"{client.API}/platform/players/{external_id}",
            {"display_name": external_id}, headers=headers), 201, "player")
        apps[seat] = client.Api(web, player["token"])
    match = client.expect(server.request("POST", f"{client.API}/platform/matches", {
        "game": "auction", "deals": 1, "seats": SEATS, "clock": None,
    }, headers=headers), 201, "match")
    # One player's app follows the match live, from the stream process (Redis pub/sub).
    listening = sse.Listening(stream, match["id"], apps[0].token, timeout=30)
    try:
        for moves in client.moves_to_the_end(apps, match["id"], random.Random(11)):
            if moves == 6:
                receiver.send_signal(signal.SIGKILL)
                receiver.wait()
            if moves == 14:
                receiver = start_receiver(port, out, subscription["secret"])
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
    listening.join(30)
    feed = client.expect(apps[0].get(f"{client.API}/matches/{match['id']}/events?limit=500"),
                         200, "feed")
    assert listening.ended() and listening.actions() == feed["events"]
