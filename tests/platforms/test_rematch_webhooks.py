"""A platform hears of its finished matches' ratings and rematches, after `match.finished`, in
each match's sequence."""

from __future__ import annotations

import pytest

from games import rematch
from games.models import Match
from games.services import SeatSpec
from platforms import webhooks
from platforms.models import PlatformPlayer, WebhookEvent
from tests.admin.helpers import play_match

from .conftest import PlatformClient

pytestmark = pytest.mark.django_db

TYPES = ["match.started", "match.finished", "rating.changed", "rematch.offered",
         "rematch.started"]


def test_ratings_and_the_rematch_follow_the_finish_in_order(platform: PlatformClient) -> None:
    webhooks.subscribe(platform=platform.platform, url="https://hooks.example/batak",
                       event_types=TYPES)
    platform.player("ext-1"), platform.player("ext-2")
    one, two = (PlatformPlayer.objects.get(platform=platform.platform, external_id=external).user
                for external in ("ext-1", "ext-2"))
    match = play_match(platform.platform.user, rated=True, seats=[
        SeatSpec("person", user=one), SeatSpec("bot", bot_level="easy"),
        SeatSpec("person", user=two), SeatSpec("bot", bot_level="hard")])
    assert match.rated
    offer = rematch.offer_rematch(match_id=match.id, user=one)
    rematch.answer_rematch(match_id=match.id, user=two, accept=True)
    offer.refresh_from_db()
    events = list(WebhookEvent.objects.filter(match_id=match.id).order_by("sequence"))
    assert [event.type for event in events] == TYPES
    rated = events[2].payload["data"]
    assert [(c["seat"], c["external_id"]) for c in rated["changes"]] == [(0, "ext-1"),
                                                                         (2, "ext-2")]
    assert all(c["delta"] == c["rating_after"] - c["rating_before"] for c in rated["changes"])
    offered = events[3].payload["data"]
    assert (offered["seat"], offered["external_id"], offered["asked"]) == (0, "ext-1", [0, 2])
    assert offered["version"] == match.version
    started = events[4].payload["data"]
    assert started["new_match_id"] == str(offer.new_match_id)
    assert started["players"] == [None, "ext-1", None, "ext-2"]
    # The offerer made the rematch, of the platform's circle: the platform's match like any its
    # players open, with its events, in its list, read with its key.
    assert Match.objects.get(pk=offer.new_match_id).created_by_id == one.pk
    assert list(WebhookEvent.objects.filter(match_id=offer.new_match_id).values_list(
        "type", flat=True)) == ["match.started"]
    listed = platform.get("/matches").json()
    assert str(offer.new_match_id) in [row["id"] for row in listed["results"]]
    assert platform.client.get(f"/api/v1/matches/{offer.new_match_id}").status_code == 200
