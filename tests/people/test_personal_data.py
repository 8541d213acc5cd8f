"""People's data on request: every field of every model is classified as personal or not, and
an erasure (closing one's account, staff's action) leaves no personal value anywhere in the
database; an export has the person's own data and nothing hidden of anyone else."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st
from knox.models import AuthToken
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from games import errors, privacy, services
from games.models import Deal, IdempotencyRecord, Match, Seat, Spectator
from games.services import SeatSpec
from platforms import events
from platforms.models import PlatformPlayer, PlatformStreamEvent, WebhookEvent
from ratings.models import GameRecord, Privacy, Rating
from tests.admin.helpers import person, play_match
from tests.api.conftest import API
from tests.api.schema import _document, assert_matches, assert_matches_schema

pytestmark = pytest.mark.django_db

P, N = "personal", "not personal"

# Every field of every model, personal (it names or identifies a person: an erasure removes it)
# or not (a record of play, a setting of the service, or a reference to an account, which is
# anonymous once erased). A new field fails `test_every_field_is_classified` until it is here.
FIELDS: dict[str, dict[str, str]] = {
    "admin.LogEntry": {
        "id": N, "action_time": N, "user": N, "content_type": N, "object_id": N,
        "object_repr": P, "action_flag": N, "change_message": N,
    },
    "auth.Permission": {"id": N, "name": N, "content_type": N, "codename": N},
    "auth.Group": {"id": N, "name": N},
    "auth.User": {
        "id": N, "password": P, "last_login": P, "is_superuser": N, "username": P,
        "first_name": P, "last_name": P, "email": P, "is_staff": N, "is_active": N,
        "date_joined": N,
    },
    "contenttypes.ContentType": {"id": N, "app_label": N, "model": N},
    "sessions.Session": {"session_key": P, "session_data": P, "expire_date": N},
    "knox.AuthToken": {"digest": P, "token_key": P, "user": N, "created": N, "expiry": N},
    "games.Match": {
        "id": N, "game": N, "rules": N, "deal_count": N, "status": N, "first_dealer": N,
        "version": N, "totals": N, "ranking": N, "created_by": N, "created_at": N,
        "updated_at": N, "finished_at": N, "visibility": N, "invitation_code": N,
        "open_seats": N, "table_key": N, "clock": N, "turn_deadline": N,
        "computer_turn_since": N, "fill_bots_at": N,
        "fill_bots_level": N, "waits_for_arrivals": N, "leave_forfeits": N, "rated": N,
        "imported_hands": N,
        "bot_seed": N, "ready_by": N, "starts_at": N, "circle": N, "hints": N,
        "cards_sealed_until": N,
    },
    "games.Seat": {
        "id": N, "match": N, "index": N, "user": N, "bot_level": N, "display_name": P,
        "character": N, "last_seen": N, "left_at": N, "autopilot": N, "timeouts_in_row": N,
        "ready": N,
    },
    "games.Deal": {
        "id": N, "match": N, "sequence": N, "number": N, "dealer": N, "status": N,
        "deck": N, "salt": N, "commitment": N, "hands": N, "declarer": N, "bid": N,
        "trump": N, "announcements": N, "tricks": N, "scores": N, "outcomes": N,
        "started_at": N, "finished_at": N,
    },
    # Seats, calls, cards and figures: nobody's name.
    "games.DealAnalysis": {
        "id": N, "deal": N, "status": N, "result": N, "partial": N, "created_at": N,
        "sent_at": N, "finished_at": N,
    },
    "games.Action": {
        "id": N, "match": N, "deal": N, "sequence": N, "version": N, "seat": N, "kind": N,
        "payload": N, "origin": N, "created_at": N,
    },
    "games.IdempotencyRecord": {
        "id": N, "user": N, "key": P, "fingerprint": N, "status_code": N, "body": P,
        "created_at": N,
    },
    "games.Spectator": {"id": N, "match": N, "user": N, "last_seen": N},
    # A person's own stream: matches, seats and results, never a name; deleted on erasure.
    "games.AccountStreamEvent": {"id": N, "user": N, "txid": N, "type": N, "match_id": N,
                                 "payload": N, "created_at": N},
    # A change's facts for what follows it (seats by account id, results), for seconds.
    "games.FollowUp": {"id": N, "match": N, "handler": N, "events": N, "attempts": N,
                       "due_at": N},
    "games.QuickMatchQueue": {"id": N, "table_key": N, "touched_at": N},
    "games.RematchOffer": {
        "id": N, "match": N, "offered_by": N, "status": N, "answers": N, "created_at": N,
        "expires_at": N, "new_match": N,
    },
    "tour.TourMatch": {"id": N, "user": N, "table": N, "match": N, "recorded": N,
                       "created_at": N},
    "tour.TableProgress": {"id": N, "user": N, "table": N, "played": N, "won": N,
                           "best_place": N, "best_total": N, "updated_at": N},
    # Partner platforms' keys and settings: companies', not people's.
    "rest_framework_api_key.APIKey": {"id": N, "prefix": N, "hashed_key": N, "created": N,
                                      "name": N, "revoked": N, "expiry_date": N},
    "platforms.Platform": {"id": N, "name": N, "user": N, "max_unfinished_matches": N,
                           "max_bot_seat_deals": N, "requests_per_minute": N,
                           "requests_in_flight": N, "live_streams": N, "long_polls": N,
                           "created_at": N},
    "platforms.PlatformKey": {"id": N, "prefix": N, "hashed_key": N, "created": N, "name": N,
                              "revoked": N, "expiry_date": N, "platform": N, "scopes": N},
    "platforms.PlatformPlayer": {"id": N, "platform": N, "external_id": P, "user": N,
                                 "language": P, "created_at": N, "updated_at": N},
    "platforms.WebhookSubscription": {"id": N, "platform": N, "url": N, "event_types": N,
                                      "secret": N, "active": N, "created_at": N,
                                      "deleted_at": N, "failing_since": N},
    "platforms.WebhookEvent": {"id": N, "platform": N, "type": N, "payload": P,
                               "match_id": N, "sequence": N, "created_at": N,
                               "traceparent": N},
    "platforms.WebhookMatchSequence": {"match_id": N, "last": N},
    "platforms.MatchBatch": {"id": N, "platform": N, "starts_at": N, "match_ids": N,
                             "created_at": N},
    "platforms.PlatformStreamEvent": {"id": N, "platform": N, "txid": N, "event_id": N,
                                      "type": N, "match_id": N, "payload": P, "created_at": N},
    "platforms.WebhookDelivery": {
        "id": N, "subscription": N, "event": N, "match_id": N, "sequence": N, "status": N,
        "attempts": N,
        "next_attempt_at": N, "in_flight_until": N, "resent": N, "last_status_code": N,
        "last_latency_ms": N, "last_error": N, "delivered_at": N, "created_at": N,
    },
    # A person's ratings and records are kept, the account anonymous (their others' results
    # were counted with them); off every leaderboard.
    "ratings.Rating": {"id": N, "user": N, "game": N, "circle": N, "mu": N, "sigma": N,
                       "rating": N, "deviation": N, "matches": N, "wins": N, "updated_at": N},
    "ratings.RatingChange": {
        "id": N, "match": N, "user": N, "game": N, "seat": N, "place": N, "mu_before": N,
        "sigma_before": N, "mu_after": N, "sigma_after": N, "rating_before": N,
        "rating_after": N, "deviation_after": N, "created_at": N,
    },
    "ratings.SeasonStanding": {"id": N, "user": N, "game": N, "circle": N, "period": N,
                               "starts": N, "points": N, "matches": N, "wins": N,
                               "updated_at": N},
    "ratings.GameRecord": {"id": N, "user": N, "game": N, "matches": N, "wins": N, "deals": N,
                           "points": N, "declared": N, "made": N, "batak": N, "updated_at": N},
    "ratings.PlayedMatch": {"id": N, "user": N, "match": N, "game": N, "rated": N,
                            "finished_at": N, "seat": N, "place": N, "score": N},
    "ratings.Privacy": {"user": N, "history_public": N, "statistics_public": N,
                        "updated_at": N},
    "ratings.ScoreCount": {"id": N, "board": N, "score": N, "players": N},
    "deal_sets.DealSet": {"id": N, "kind": N, "game": N, "rules": N, "day": N, "dealer": N,
                          "deck": N, "salt": N, "commitment": N, "seat": N, "bot_level": N,
                          "created_by": N, "created_at": N, "closes_at": N},
    "deal_sets.DealSetEntry": {"id": N, "deal_set": N, "user": N, "match": N, "circle": N,
                               "points": N, "tricks": N, "finished_at": N, "created_at": N},
}

PASSWORD = "correct horse battery"


def webhook_body(event_type: str) -> dict[str, Any]:
    """The committed schema's body of a webhook type."""
    return _document()["webhooks"][event_type]["post"]["requestBody"]["content"][
        "application/json"]["schema"]


def test_every_field_is_classified() -> None:
    found = {
        model._meta.label: {field.name for field in model._meta.concrete_fields}
        for model in apps.get_models()
    }
    assert {label: set(fields) for label, fields in FIELDS.items()} == found


def values_holding(markers: list[str]) -> list[tuple[str, str, Any]]:
    """Every (model, field, row pk) of the whole database whose value shows one of
    ``markers``: each field of each row, read as the database gives it."""
    found = []
    for model in apps.get_models():
        names = [field.attname for field in model._meta.concrete_fields]
        for row in model.objects.values_list("pk", *names).iterator():
            for name, value in zip(names, row[1:], strict=True):
                text = json.dumps(value, default=str, ensure_ascii=False)
                if any(marker in text for marker in markers):
                    found.append((model._meta.label, name, row[0]))
    return found


def register(username: str, display_name: str) -> tuple[APIClient, User]:
    client = APIClient()
    response = client.post(f"{API}/auth/register", {
        "username": username, "password": PASSWORD, "display_name": display_name,
    }, format="json")
    assert response.status_code == 201, response.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client, get_user_model().objects.get(username=username)


def a_full_life(platform) -> tuple[APIClient, User, APIClient, User, list[str]]:
    """A named person and a platform's player who have each: tokens, a finished rated match
    together, a match in play, statistics, ratings, seasons, a privacy setting, an idempotency
    record, a spectator row, the admin's history of their account, a staff session (the named
    one), and the platform's webhook events naming the player. Returns their clients and
    accounts, and the values that name them."""
    zeynep_app, zeynep = register("zeynep_k", "Zeynep Unique")
    zeynep.last_name, zeynep.email, zeynep.is_staff = "Kaya-Surname", "zeynep@example.org", True
    zeynep.save()
    platform.post("/webhooks", {"url": "https://a.example/h", "event_types": [
        "match.started", "seat.left", "match.finished", "deal.ended", "rating.changed",
        "player.erased"]})
    cem_app = platform.player("ext-cem-9", "Cem Unique")
    cem = PlatformPlayer.objects.get(external_id="ext-cem-9").user
    # A rated match of two named people (the platform's player and a friend of his platform).
    platform.player("ext-friend")
    friend = PlatformPlayer.objects.get(external_id="ext-friend").user
    play_match(cem, seats=[SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
                           SeatSpec("person", user=friend), SeatSpec("bot", bot_level="easy")],
               rated=True)
    other_app, other = register("other_one", "Other One")
    played = play_match(zeynep, seats=[SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
                                       SeatSpec("person", user=other),
                                       SeatSpec("bot", bot_level="easy")], rated=True)
    assert Rating.objects.filter(user__in=[zeynep, cem]).count() == 2
    for user in (zeynep, cem):
        play_match(user, finish=False)
    in_play = Match.objects.filter(seats__user=zeynep, status="active").get()
    seat = in_play.seats.get(user=zeynep).index
    zeynep_app.get(f"{API}/matches/{in_play.pk}/view")
    view = zeynep_app.get(f"{API}/matches/{in_play.pk}/view").json()
    if view["deal"]["to_act"] == seat:
        action = next(a for a in view["deal"]["legal_actions"] if a["kind"] == "play")
        zeynep_app.post(f"{API}/matches/{in_play.pk}/actions",
                        {"kind": "play", "card": action["card"]},
                        format="json", HTTP_IDEMPOTENCY_KEY="zeynep-key-1")
    else:
        IdempotencyRecord.objects.create(user=zeynep, key="zeynep-key-1", fingerprint="f",
                                         status_code=200, body={"name": "Zeynep Unique"})
    Spectator.objects.create(match=played, user=cem, last_seen=played.created_at)
    assert zeynep_app.patch(f"{API}/me/privacy", {"history_public": False},
                            format="json").status_code == 200
    for changed in (zeynep, cem, PlatformPlayer.objects.get(user=cem)):
        LogEntry.objects.create(
            user=other, content_type=ContentType.objects.get_for_model(changed),
            object_id=str(changed.pk), object_repr=str(changed), action_flag=CHANGE,
        )
    Client().force_login(zeynep)  # a staff session
    token_keys = list(AuthToken.objects.filter(user__in=[zeynep, cem]).values_list(
        "token_key", flat=True))
    assert len(token_keys) == 2 and GameRecord.objects.filter(user=zeynep).exists()
    markers = ["zeynep_k", "Zeynep Unique", "Kaya-Surname", "zeynep@example.org",
               "zeynep-key-1", "ext-cem-9", "Cem Unique", zeynep.password, *token_keys]
    return zeynep_app, zeynep, cem_app, cem, markers


def test_an_erasure_leaves_no_personal_value_anywhere(platform, django_user_model) -> None:
    zeynep_app, zeynep, cem_app, cem, markers = a_full_life(platform)
    before = values_holding(markers)
    # Every value naming them is in a field classified personal, and each kind is there.
    assert {(label, name) for label, name, _ in before} <= {
        (label, field_name) for label, fields in FIELDS.items()
        for field_name, kind in fields.items() if kind == P
    }
    assert {label for label, _, _ in before} >= {
        "auth.User", "knox.AuthToken", "games.Seat", "games.IdempotencyRecord",
        "platforms.PlatformPlayer", "platforms.WebhookEvent", "platforms.PlatformStreamEvent",
        "admin.LogEntry",
    }

    closed = zeynep_app.post(f"{API}/me/close", {"password": PASSWORD}, format="json")
    assert closed.status_code == 204, closed.content
    staff = django_user_model.objects.create_user("staff", password="x" * 12, is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(
        codename__in=["view_user", "delete_user"]))
    admin = Client()
    admin.force_login(staff)
    answer = admin.post("/admin/auth/user/", {"action": "erase_personal_data",
                                              "_selected_action": [cem.pk], "confirmed": "yes"})
    assert answer.status_code == 302

    # The one exception, named: `player.erased` tells the platform which of its ids is gone.
    told = WebhookEvent.objects.get(type="player.erased")
    assert_matches_schema(told.payload, webhook_body("player.erased"))
    assert told.payload["data"] == {"external_id": "ext-cem-9", "reason": "staff"}
    told.delete()
    # The platform's stream has it too (and only it).
    streamed = PlatformStreamEvent.objects.filter(payload__icontains="ext-cem-9")
    assert [event.type for event in streamed] == ["player.erased"]
    streamed.delete()
    assert values_holding(markers) == []
    for user in (zeynep, cem):
        user.refresh_from_db()
        assert privacy.is_erased(user) and not user.is_active and not user.is_staff
        assert not user.has_usable_password() and user.first_name == privacy.FORMER_PLAYER
        assert set(Seat.objects.filter(user=user).values_list("display_name", flat=True)) == {
            privacy.FORMER_PLAYER}
        # Out of every match in play; their finished matches and ratings kept, anonymous.
        assert not Seat.objects.filter(user=user, match__status="active",
                                       left_at__isnull=True).exists()
        assert Rating.objects.get(user=user).circle_id == user.pk
    assert zeynep_app.get(f"{API}/me").status_code == 401
    assert cem_app.get(f"{API}/me").status_code == 401
    assert Privacy.objects.filter(user=zeynep).exists()  # a setting of an anonymous account
    relogin = APIClient().post(f"{API}/auth/token", {"username": "zeynep_k",
                                                       "password": PASSWORD}, format="json")
    assert relogin.status_code == 401


def test_closing_needs_the_password_or_a_confirmation(player) -> None:
    app, _ = register("ayse_k", "Ayşe")
    assert app.post(f"{API}/me/close", {}, format="json").json()["code"] == \
        "closing_not_confirmed"
    wrong = app.post(f"{API}/me/close", {"password": "not the password"}, format="json")
    assert (wrong.status_code, wrong.json()["code"]) == (403, "wrong_password")
    assert app.post(f"{API}/me/close", {"confirm": True}, format="json").status_code == 400
    assert app.get(f"{API}/me").status_code == 200
    guest = player("Guest")
    assert guest.post("/me/close").json()["code"] == "closing_not_confirmed"
    assert guest.post("/me/close", {"confirm": True}).status_code == 204
    assert guest.get("/me").status_code == 401


@pytest.mark.parametrize("confirm", ["yes", "true", "on", 1, "1", [True], {"x": True}])
def test_only_a_json_true_confirms_a_closing(player, confirm: Any) -> None:
    """Closing cannot be undone: a value DRF would read as true ("yes", 1) is refused."""
    guest = player("Guest")
    assert guest.post("/me/close", {"confirm": confirm}).status_code == 400
    assert guest.get("/me").status_code == 200


@pytest.mark.parametrize("username", ["erased-me", "Erased-0123456789abcdef0123456789abcdef"])
def test_nobody_registers_an_erased_accounts_name(username: str) -> None:
    """An erased account's name is reserved: one chosen by a person would read as erased
    already, and closing it would leave every personal field in place."""
    answer = APIClient().post(f"{API}/auth/register", {
        "username": username, "password": PASSWORD, "display_name": "Me"}, format="json")
    assert (answer.status_code, answer.json()["code"]) == (409, "username_taken")


def test_an_older_account_with_an_erased_name_is_still_erased(django_user_model) -> None:
    """An account named so before the name was reserved is a live account: erased, not
    skipped as one erased already."""
    user = django_user_model.objects.create_user("erased-me", password=PASSWORD,
                                                 first_name="Me")
    assert not privacy.is_erased(user)
    privacy.erase_account(user, reason=privacy.ErasureReason.STAFF)
    user.refresh_from_db()
    assert privacy.is_erased(user) and user.first_name == privacy.FORMER_PLAYER


def test_a_platform_hears_of_its_player_closing_their_account(platform) -> None:
    platform.post("/webhooks", {"url": "https://a.example/h", "event_types": ["player.erased"]})
    app = platform.player("ext-7")
    assert app.post(f"{API}/me/close", {"confirm": True}, format="json").status_code == 204
    event = WebhookEvent.objects.get()
    assert event.match_id is None and event.sequence is None
    assert event.payload["type"] == "player.erased" and "sequence" not in event.payload
    assert event.payload["data"] == {"external_id": "ext-7", "reason": "closed"}
    assert not PlatformPlayer.objects.exists()
    # The id is free: a new player.
    assert platform.put("/players/ext-7", {"display_name": "New"}).status_code == 201
    assert platform.client.delete(f"{API}/platform/players/ext-7").status_code == 204
    assert WebhookEvent.objects.filter(type="player.erased").latest(
        "created_at").payload["data"]["reason"] == "platform"


def export_of(app: APIClient) -> dict[str, Any]:
    response = app.get(f"{API}/me/export")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    return json.loads(b"".join(response.streaming_content))


def test_an_export_has_ones_own_data_and_nothing_hidden_of_others(platform) -> None:
    zeynep_app, zeynep, cem_app, cem, _ = a_full_life(platform)
    mine = export_of(zeynep_app)
    assert_matches(mine, "DataExport")
    assert mine["account"]["username"] == "zeynep_k"
    assert mine["account"]["email"] == "zeynep@example.org"
    assert {match["id"] for match in mine["matches"]} == {
        str(pk) for pk in Seat.objects.filter(user=zeynep).values_list("match_id", flat=True)}
    assert [rating["game"] for rating in mine["ratings"]] == ["auction"]
    assert len(mine["rating_changes"]) == 1 and mine["statistics"][0]["matches"] == 1
    assert mine["privacy"] == {"history_public": False, "statistics_public": True}
    assert "platform_player" not in mine
    text = json.dumps(mine)
    assert '"hands"' not in text and '"deck"' not in text and '"salt"' not in text
    for match in mine["matches"]:
        own = match["seat"]
        assert match["seats"][own]["you"]
        ended = Deal.objects.filter(match_id=match["id"]).exclude(status="in_progress")
        assert [deal["sequence"] for deal in match["deals"]] == [d.sequence for d in ended]
        for deal in match["deals"]:
            row = ended.get(sequence=deal["sequence"])
            assert deal["hand"] == row.hands[own]
            played = {action["card"] for action in deal["actions"] if "card" in action}
            others = {card for seat, hand in enumerate(row.hands) if seat != own
                      for card in hand}
            # Of the others' cards, only those they played, for everyone to see.
            assert (set(deal["hand"]) | played) & others == played & others
    in_play = next(match for match in mine["matches"] if match["status"] == "active")
    assert in_play["deals"] == []
    his = export_of(cem_app)
    assert_matches(his, "DataExport")
    assert his["platform_player"]["external_id"] == "ext-cem-9"
    assert his["platform_player"]["platform"] == platform.platform.name


def test_exports_are_limited_per_account(player, monkeypatch) -> None:
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {"anon": None, "user": None, "export": "2/hour"})
    someone, another = player("A"), player("B")
    assert [someone.get("/me/export").status_code for _ in range(3)] == [200, 200, 429]
    assert another.get("/me/export").status_code == 200


def test_staff_erase_from_the_admin_after_a_confirmation(django_user_model) -> None:
    target = django_user_model.objects.create_user("target", first_name="Target Name")
    staff = django_user_model.objects.create_user("staff", password="x" * 12, is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(
        codename__in=["view_user", "change_user"]))
    admin = Client()
    admin.force_login(staff)
    # Without the right to delete accounts, no such action.
    page = admin.get("/admin/auth/user/")
    assert page.status_code == 200 and b"erase_personal_data" not in page.content
    staff.user_permissions.add(Permission.objects.get(codename="delete_user"))
    admin.force_login(staff)
    page = admin.get("/admin/auth/user/")
    assert b"erase_personal_data" in page.content
    confirm = admin.post("/admin/auth/user/", {"action": "erase_personal_data",
                                               "_selected_action": [target.pk]})
    assert confirm.status_code == 200 and b"Target Name" in confirm.content
    target.refresh_from_db()
    assert not privacy.is_erased(target)
    done = admin.post("/admin/auth/user/", {"action": "erase_personal_data",
                                            "_selected_action": [target.pk],
                                            "confirmed": "yes"}, follow=True)
    assert b"Erased 1 account(s)." in done.content
    target.refresh_from_db()
    assert privacy.is_erased(target) and target.first_name == privacy.FORMER_PLAYER
    erased = admin.get("/admin/auth/user/?erased=yes")
    assert target.username.encode() in erased.content
    # Shown as such, and changed no more.
    change = admin.get(f"/admin/auth/user/{target.pk}/change/")
    assert change.status_code == 200 and b'name="username"' not in change.content


def test_a_platforms_own_account_is_never_erased(platform) -> None:
    with pytest.raises(errors.PlatformAccount):
        privacy.erase_account(platform.platform.user, reason=privacy.ErasureReason.STAFF)
    platform.platform.user.refresh_from_db()
    assert not privacy.is_erased(platform.platform.user)


LEAVES = st.one_of(st.none(), st.integers(0, 3), st.sampled_from(["ext-1", "ext-2", "x"]))
PAYLOADS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["external_id", "players", "changes", "data"]), inner,
                        max_size=4),
    ),
    max_leaves=20,
)


def names(value: Any, external_id: str) -> bool:
    """Whether ``value`` names ``external_id`` where an event names a player."""
    if isinstance(value, list):
        return any(names(item, external_id) for item in value)
    if not isinstance(value, dict):
        return False
    players = value.get("players")
    return (value.get("external_id") == external_id
            or (isinstance(players, list) and external_id in players)
            or any(names(item, external_id) for item in value.values()))


@given(PAYLOADS)
def test_a_redacted_payload_names_the_player_nowhere_and_keeps_the_rest(payload: Any) -> None:
    redacted = events._without(payload, "ext-1")
    assert not names(redacted, "ext-1")
    assert events._without(redacted, "ext-1") == redacted
    # Nobody else is touched: ext-2 is named exactly where it was.
    assert names(redacted, "ext-2") == names(payload, "ext-2")
    assert events._without(payload, "ext-3") == payload


def test_an_exports_queries_do_not_grow_with_the_history() -> None:
    someone = person("someone")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            text = "".join(privacy.export(someone))
        assert json.loads(text)["account"]["username"] == "someone"
        return len(captured)

    play_match(someone, deal_count=2)
    one = queries()
    for seed in (1, 2):
        play_match(someone, deal_count=2, seed=seed)
    assert queries() == one


def test_an_export_streams_on_the_embedded_default_too(asgi_server) -> None:
    """On an event loop (uvicorn, as `scripts/serve` runs it) the export is written as it goes:
    Django reads a plain iterator whole before the first byte there, and says so."""
    import warnings

    import httpx

    token = httpx.post(f"{asgi_server}{API}/auth/guest", json={"display_name": "Ada"},
                       timeout=10).json()["token"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer = httpx.get(f"{asgi_server}{API}/me/export", timeout=30,
                           headers={"Authorization": f"Token {token}"})
    assert answer.status_code == 200, answer.text
    assert json.loads(answer.text)["account"]["display_name"] == "Ada"
    assert not [w for w in caught if "synchronous iterators" in str(w.message)]


def test_an_export_has_ones_tour_and_deal_sets(player) -> None:
    """Every app's rows of the person: the Tour of Tables' matches and the deal sets played."""
    someone = player("Ada")
    first_table = someone.get("/tour/tables").json()[0]["slug"]
    tour_match = someone.post(f"/tour/tables/{first_table}/start").json()
    deal_set = someone.get("/deal-sets/daily/spades").json()
    set_match = someone.post(f"/deal-sets/{deal_set['id']}/play").json()

    export = export_of(someone.client)

    assert [row["match_id"] for row in export["tour_matches"]] == [tour_match["id"]]
    assert [(row["deal_set_id"], row["match_id"]) for row in export["deal_set_entries"]] == [
        (deal_set["id"], set_match["id"])]
    assert export["deal_sets_made"] == [] and export["tour_tables"] == []


def test_an_export_holds_of_a_match_left_only_the_deals_ended_while_seated() -> None:
    # Found by probing: a leaver's export gave every later move and their old seat's hands,
    # which the deal records refuse them.
    someone, leaver = person("someone"), person("leaver")
    seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"), SeatSpec("person", user=leaver),
             SeatSpec("bot", bot_level="easy")]
    match = play_match(someone, deal_count=2, seats=seats)
    first = match.deals.get(sequence=1)
    Seat.objects.filter(match=match, user=leaver).update(left_at=first.finished_at)

    def deals_of(user: User) -> list[int]:
        exported = json.loads("".join(privacy.export(user)))
        [row] = [row for row in exported["matches"] if row["id"] == str(match.id)]
        return [deal["sequence"] for deal in row["deals"]]

    assert deals_of(leaver) == [1]
    assert deals_of(someone) == [1, 2]


def test_an_export_says_an_offer_past_its_time_expired() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import RematchOffer

    someone = person("someone")
    match = play_match(someone)
    now = timezone.now()
    RematchOffer.objects.create(match=match, offered_by=someone, status="open", answers=[],
                                created_at=now - timedelta(seconds=61),
                                expires_at=now - timedelta(seconds=1))
    exported = json.loads("".join(privacy.export(someone)))
    assert exported["matches"][0]["rematch"]["status"] == "expired"


def test_a_private_table_waiting_for_people_is_called_off_with_its_creators_account() -> None:
    # Found by probing: only the creator reads the invitation code, so with their account
    # erased the table waited for ever, holding the others' places.
    from games.models import MatchStatus

    maker, friend, stranger = person("maker"), person("friend"), person("stranger")
    private = services.create_match(
        user=maker,
        table=services.NewTable(
            game="auction",
            deal_count=1,
            visibility="private",
            seats=[SeatSpec("me"), SeatSpec("person", user=friend), SeatSpec("open"),
               SeatSpec("bot", bot_level="easy")],
        ),
    )
    public = services.create_match(
        user=maker,
        table=services.NewTable(
            game="auction",
            deal_count=1,
            visibility="public",
            seats=[SeatSpec("me"), SeatSpec("person", user=stranger), SeatSpec("open"),
               SeatSpec("bot", bot_level="easy")],
        ),
    )
    privacy.erase_account(maker, reason=privacy.ErasureReason.CLOSED)
    private.refresh_from_db()
    public.refresh_from_db()
    assert private.status == MatchStatus.CANCELLED
    # A public table is found in the lobby by anyone: it waits on, the seat open again.
    assert public.status == MatchStatus.WAITING and public.open_seats == 2
