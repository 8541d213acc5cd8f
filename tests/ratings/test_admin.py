"""Staff see ratings, their changes and the seasons; nobody edits them in the admin."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.services import SeatSpec
from tests.admin.helpers import person, play_match

pytestmark = pytest.mark.django_db


def test_staff_see_ratings_changes_and_seasons_and_edit_none(admin_client) -> None:
    ayse, ali = person("ayse"), person("ali")
    seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
             SeatSpec("person", user=ali), SeatSpec("bot", bot_level="hard")]
    match = play_match(ayse, seats=seats, rated=True)
    for model in ("rating", "ratingchange", "seasonstanding"):
        page = admin_client.get(reverse(f"admin:ratings_{model}_changelist"))
        assert page.status_code == 200
        assert b"ayse" in page.content and b"ali" in page.content
        assert admin_client.get(reverse(f"admin:ratings_{model}_add")).status_code == 403
    changes = admin_client.get(reverse("admin:ratings_ratingchange_changelist")).content
    assert reverse("admin:games_match_change", args=[match.pk]).encode() in changes
