"""A platform hears of its matches' deals analysed, in each match's sequence."""

from __future__ import annotations

import pytest

from bots import tasks
from games.models import Deal, Match
from games.services import SeatSpec
from platforms import webhooks
from platforms.models import PlatformPlayer, WebhookEvent
from tests.admin.helpers import play_match

from .conftest import PlatformClient

pytestmark = pytest.mark.django_db


def test_a_platform_hears_deal_analysed_in_the_match_sequence(
    settings, platform: PlatformClient,
) -> None:
    settings.ANALYSE_DEALS = True
    settings.ANALYSIS_SECONDS_PER_DEAL = 1.0
    types = ["match.started", "deal.ended", "match.finished", "deal.analysed"]
    webhooks.subscribe(platform=platform.platform, url="https://hooks.example/batak",
                       event_types=types)
    platform.player("ext-1")
    one = PlatformPlayer.objects.get(platform=platform.platform, external_id="ext-1").user
    match = play_match(platform.platform.user, game="spades", seats=[
        SeatSpec("person", user=one), SeatSpec("bot", bot_level="easy"),
        SeatSpec("bot", bot_level="easy"), SeatSpec("bot", bot_level="easy")])
    deal = Deal.objects.get(match=match, sequence=1)
    tasks.analyse_deal(deal.pk)
    events = list(WebhookEvent.objects.filter(match_id=match.id).order_by("sequence"))
    assert [event.type for event in events] == types
    data = events[-1].payload["data"]
    assert data["match_id"] == str(match.id) and data["deal_sequence"] == 1
    assert data["version"] == Match.objects.get(pk=match.id).version
    assert len(data["players"]) == 4
