"""A platform's whole integration on the embedded default, served as `scripts/serve` serves it
(uvicorn): it creates two players by external id, they play against two computer players with
their player tokens, its receiver gets every webhook with a valid signature, and one player's
app follows the live stream without missing an event."""

from __future__ import annotations

import random

import pytest

from platforms.models import WebhookEvent
from tests import sse
from tests.integration.harness import client

from .conftest import EVERY_SCOPE
from .receiver import Receiver
from .test_platform_api import TWO_PLAYERS
from .test_webhooks import quick_retries, wait_for  # noqa: F401 (a fixture)


@pytest.mark.django_db(transaction=True)
def test_a_platforms_players_play_a_match_heard_by_webhooks_and_followed_live(
    asgi_server, quick_retries  # noqa: F811
) -> None:
    from platforms import services

    platform = services.register_platform(name="End to end")
    _, key = services.issue_key(platform=platform, name="server", scopes=EVERY_SCOPE)
    server = client.Api(asgi_server)
    auth = {"Authorization": f"Api-Key {key}"}
    receiver = Receiver()
    try:
        subscription = client.expect(server.request("POST", f"{client.API}/platform/webhooks", {
            "url": receiver.url, "event_types": ["turn.started", "deal.ended", "match.finished"],
        }, headers=auth), 201, "subscribe")
        receiver.secrets[str(subscription["id"])] = subscription["secret"]
        apps = {}
        for seat, external_id in ((0, "ext-1"), (2, "ext-2")):
            player = client.expect(server.request(
                "PUT", f"{client.API}/platform/players/{external_id}",
                {"display_name": external_id}, headers=auth), 201, "player")
            apps[seat] = client.Api(asgi_server, player["token"])
        match = client.expect(server.request("POST", f"{client.API}/platform/matches", {
            "game": "auction", "deals": 2, "seats": TWO_PLAYERS, "clock": None,
        }, headers=auth), 201, "match")
        listening = sse.Listening(asgi_server, match["id"], apps[0].token, timeout=20)
        client.play_to_the_end(apps, match["id"], random.Random(8))
        listening.join(20)
        events = WebhookEvent.objects.filter(platform=platform)
        wait_for(lambda: len(receiver.unique()) == events.count())
        got = receiver.unique()
    finally:
        receiver.stop()
    feed = client.expect(apps[0].get(f"{client.API}/matches/{match['id']}/events?limit=500"),
                         200, "feed")
    assert listening.ended() and listening.actions() == feed["events"]
    assert all(record["valid"] for record in receiver.got)
    assert {record["body"]["type"] for record in got.values()} == {
        "turn.started", "deal.ended", "match.finished"}
