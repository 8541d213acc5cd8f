"""Bounded work per account: a match needs a person's seat, and no account keeps more than its
share of matches and computer players' deals going."""

from __future__ import annotations

from django.contrib.auth.models import Permission

from games.models import Match
from tests.api.conftest import create_match

BOTS = [{"kind": "bot", "bot_level": "hard"}] * 3


def test_a_match_of_computer_players_alone_needs_the_permission(player, django_user_model):
    someone = player("A")
    response = someone.post("/matches", {"deals": 52, "seats": BOTS + BOTS[:1]})
    assert response.status_code == 403 and response.json()["code"] == "person_seat_required"
    assert Match.objects.count() == 0
    user = django_user_model.objects.get(pk=someone.user_id)
    user.user_permissions.add(Permission.objects.get(codename="play_bot_only_matches"))
    allowed = someone.post("/matches", {"deals": 1, "seats": BOTS + BOTS[:1]})
    assert allowed.status_code == 201


def test_unfinished_matches_are_capped_per_account(player, settings):
    settings.MAX_UNFINISHED_MATCHES = 3
    someone = player("A")
    open_table = [{"kind": "me"}] + [{"kind": "open"}] * 3
    for _ in range(3):
        create_match(someone, seats=open_table)
    refused = someone.post("/matches", {"seats": open_table})
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_matches"
    assert refused.json()["detail"] and Match.objects.count() == 3
    # Another account is not held back by this one's tables.
    create_match(player("B"), seats=open_table)


def test_computer_players_deals_in_flight_are_capped_per_account(player, settings):
    settings.MAX_BOT_SEAT_DEALS = 3 * 8
    someone = player("A")
    create_match(someone, deals=8, seats=[{"kind": "me"}, *BOTS])
    refused = someone.post("/matches", {"deals": 1, "seats": [{"kind": "me"}, *BOTS]})
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_bot_deals"
    create_match(someone, deals=1, seats=[{"kind": "me"}] + [{"kind": "open"}] * 3)
