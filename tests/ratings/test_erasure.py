"""An erased player leaves every leaderboard; the others' ratings, counted with theirs, stay as
they are, and a recount agrees."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from games.services import SeatSpec
from platforms.models import PlatformPlayer
from ratings.models import Rating, SeasonStanding
from tests.admin.helpers import play_match

pytestmark = pytest.mark.django_db


def test_an_erased_player_leaves_the_boards_and_the_recount_agrees(platform) -> None:
    platform.player("ext-1")
    platform.player("ext-2")
    first, second = (PlatformPlayer.objects.get(external_id=e).user for e in ("ext-1", "ext-2"))
    seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
             SeatSpec("person", user=second), SeatSpec("bot", bot_level="medium")]
    play_match(first, seats=seats, rated=True)
    circle = platform.platform.user_id
    assert set(Rating.objects.values_list("circle_id", flat=True)) == {circle}
    kept = Rating.objects.get(user=second).rating
    assert platform.client.delete("/api/v1/platform/players/ext-1").status_code == 204
    assert Rating.objects.get(user=first).circle_id == first.pk
    assert set(SeasonStanding.objects.filter(user=first).values_list("circle_id", flat=True)
               ) == {first.pk}
    assert Rating.objects.get(user=second).circle_id == circle
    assert Rating.objects.get(user=second).rating == kept
    call_command("recount_ratings", "--check", stdout=io.StringIO())
