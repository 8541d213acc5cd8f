"""A platform's players from creation to erasure: reading and listing them, PUT and PATCH, their
tokens refreshed and revoked, and erasure, with the matches they sat at going on without them."""

from __future__ import annotations

import base64
import random
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from games.models import Seat
from platforms.models import PlatformPlayer

from .conftest import API, PlatformClient, new_platform, play_to_the_end, problem

ONE_PLAYER = [
    {"kind": "player", "external_id": "ext-1"},
    {"kind": "bot", "bot_level": "easy"},
    {"kind": "bot", "bot_level": "easy"},
    {"kind": "bot", "bot_level": "easy"},
]
TWO_PLAYERS = [
    {"kind": "player", "external_id": "ext-1"},
    {"kind": "bot", "bot_level": "easy"},
    {"kind": "player", "external_id": "ext-2"},
    {"kind": "bot", "bot_level": "easy"},
]


def patch(platform: PlatformClient, path: str, data: Any) -> Any:
    return platform.client.patch(f"{API}/platform{path}", data, format="json")


def delete(platform: PlatformClient, path: str) -> Any:
    return platform.client.delete(f"{API}/platform{path}")


def app_with(token: str) -> APIClient:
    app = APIClient()
    app.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return app


class TestReading:
    def test_a_player_is_read_without_a_token(self, platform) -> None:
        platform.put("/players/user-42", {"display_name": "Ayşe", "language": "tr"})
        body = platform.get("/players/user-42").json()
        assert body.keys() == {"external_id", "display_name", "language", "created_at",
                               "updated_at", "active_tokens", "matches_in_play"}
        assert body["external_id"] == "user-42" and body["display_name"] == "Ayşe"
        assert body["language"] == "tr" and body["active_tokens"] == 1
        assert body["matches_in_play"] == []

    def test_the_facts_follow_tokens_and_matches(self, platform) -> None:
        platform.player("ext-1")
        platform.put("/players/ext-1", {"display_name": "One"})
        AuthToken.objects.create(User.objects.get(first_name="One"), expiry=timedelta(seconds=-1))
        match = platform.post("/matches", {"game": "auction", "deals": 1, "seats": ONE_PLAYER,
                                           "clock": None}).json()
        body = platform.get("/players/ext-1").json()
        assert body["active_tokens"] == 2  # the lapsed one is not counted
        assert body["matches_in_play"] == [match["id"]]

    def test_unknown_and_other_platforms_players_are_404(self, platform, other_platform) -> None:
        problem(platform.get("/players/nobody"), 404, "not_found")
        other_platform.player("theirs")
        problem(platform.get("/players/theirs"), 404, "not_found")
        problem(platform.get("/players/has space"), 400, "invalid_input")

    def test_reading_takes_players_read_or_players_write(self, db) -> None:
        writer = new_platform("Writer", scopes=["players:write"])
        writer.player("p")
        assert writer.get("/players/p").status_code == 200
        assert writer.get("/players").status_code == 200
        reader = new_platform("Reader", scopes=["players:read"])
        assert reader.get("/players").status_code == 200
        problem(reader.get("/players/p"), 404, "not_found")
        problem(reader.put("/players/p", {"display_name": "P"}), 403, "missing_scope")
        problem(patch(reader, "/players/p", {"display_name": "P"}), 403, "missing_scope")
        problem(delete(reader, "/players/p"), 403, "missing_scope")
        problem(reader.post("/players/p/token"), 403, "missing_scope")
        problem(delete(reader, "/players/p/tokens"), 403, "missing_scope")
        matches_only = new_platform("Matches", scopes=["matches:read"])
        response = matches_only.get("/players")
        problem(response, 403, "missing_scope")
        assert response.json()["scope"] == "players:read"
        problem(matches_only.get("/players/p"), 403, "missing_scope")


class TestListing:
    def test_a_cursor_walk_sees_every_player_once(self, platform, other_platform) -> None:
        for number in range(7):
            platform.put(f"/players/p{number}", {"display_name": f"P{number}"})
        other_platform.player("not-mine")
        seen: list[str] = []
        path: str | None = f"{API}/platform/players?page_size=3"
        pages = 0
        while path:
            body = platform.client.get(path).json()
            seen += [player["external_id"] for player in body["results"]]
            if body["next"]:
                assert body["next"].startswith("/api/v1/platform/players?")
            path = body["next"]
            pages += 1
            if pages == 2:  # a player created during the walk comes at its end
                platform.put("/players/late", {"display_name": "Late"})
        assert seen == [f"p{number}" for number in range(7)] + ["late"]
        assert pages == 3
        last = platform.get("/players?page_size=3").json()
        assert last["previous"] is None

    def test_previous_goes_back(self, platform) -> None:
        for number in range(4):
            platform.put(f"/players/p{number}", {"display_name": "P"})
        second = platform.client.get(platform.get("/players?page_size=2").json()["next"]).json()
        assert second["previous"].startswith("/api/v1/platform/players?")
        back = platform.client.get(second["previous"]).json()
        assert [player["external_id"] for player in back["results"]] == ["p0", "p1"]

    def test_filters(self, platform) -> None:
        for external_id in ("team-a:1", "team-a:2", "team-b:1"):
            platform.put(f"/players/{external_id}", {"display_name": "X"})
        listed = platform.get("/players?external_id_prefix=team-a:").json()["results"]
        assert [player["external_id"] for player in listed] == ["team-a:1", "team-a:2"]
        PlatformPlayer.objects.update(updated_at=timezone.now() - timedelta(days=2))
        patch(platform, "/players/team-b:1", {"language": "fr"})
        since = (timezone.now() - timedelta(days=1)).isoformat()
        listed = platform.client.get(f"{API}/platform/players",
                                     {"updated_since": since}).json()["results"]
        assert [player["external_id"] for player in listed] == ["team-b:1"]

    def test_bad_queries_are_400(self, platform) -> None:
        problem(platform.get("/players?cursor=bm9wZQ"), 400, "invalid_cursor")
        for position in (b"yesterday", b"2026-13-45 10:00:00",  # well encoded, no time
                         # times a database cannot hold once in UTC (SQLite overflowed)
                         b"0001-01-01T00:00:00+14:00", b"9999-12-31T23:59:59-14:00"):
            forged = base64.b64encode(b"p=" + position).decode()
            problem(platform.client.get(f"{API}/platform/players", {"cursor": forged}), 400,
                    "invalid_cursor")
        problem(platform.get("/players?external_id_prefix=a%00"), 400, "invalid_input")
        problem(platform.get("/players?page_size=201"), 400, "invalid_input")
        problem(platform.get("/players?updated_since=yesterday"), 400, "invalid_input")


class TestUpdating:
    def test_patch_changes_only_what_it_sends_and_issues_no_token(self, platform) -> None:
        platform.put("/players/p", {"display_name": "Ayşe", "language": "tr"})
        response = patch(platform, "/players/p", {"display_name": "Ayşe K."})
        assert response.status_code == 200, response.content
        assert response.json()["display_name"] == "Ayşe K."
        assert response.json()["language"] == "tr" and "token" not in response.json()
        assert patch(platform, "/players/p", {"language": "fr"}).json()["display_name"] == (
            "Ayşe K.")
        assert AuthToken.objects.count() == 1

    def test_an_empty_patch_changes_nothing(self, platform) -> None:
        platform.put("/players/p", {"display_name": "P"})
        before = platform.get("/players/p").json()
        assert patch(platform, "/players/p", {}).json() == before

    def test_patch_never_creates(self, platform, other_platform) -> None:
        problem(patch(platform, "/players/p", {"display_name": "P"}), 404, "not_found")
        other_platform.player("p")
        problem(patch(platform, "/players/p", {"display_name": "P"}), 404, "not_found")
        assert PlatformPlayer.objects.count() == 1

    def test_patch_checks_its_fields(self, platform) -> None:
        platform.player("p")
        problem(patch(platform, "/players/p", {"display_name": ""}), 400, "invalid_input")
        problem(patch(platform, "/players/p", {"language": "xx"}), 400, "invalid_input")
        problem(patch(platform, "/players/p", {"token": "x"}), 400, "unknown_field")


class TestTokens:
    def test_refresh_issues_another_and_keeps_the_player(self, platform) -> None:
        first = platform.put("/players/p", {"display_name": "P", "language": "tr"}).json()
        before = platform.get("/players/p").json()
        response = platform.post("/players/p/token")
        assert response.status_code == 201, response.content
        assert response.json().keys() == {"token", "token_expiry"}
        assert response.json()["token"] != first["token"]
        assert app_with(first["token"]).get(f"{API}/me").status_code == 200
        assert app_with(response.json()["token"]).get(f"{API}/me").status_code == 200
        after = platform.get("/players/p").json()
        assert after == {**before, "active_tokens": 2}

    def test_refresh_or_put_may_revoke_the_others(self, platform) -> None:
        first = platform.put("/players/p", {"display_name": "P"}).json()["token"]
        only = platform.post("/players/p/token", {"revoke_others": True}).json()["token"]
        problem(app_with(first).get(f"{API}/me"), 401, "authentication_failed")
        assert app_with(only).get(f"{API}/me").status_code == 200
        again = platform.put("/players/p", {"display_name": "P", "revoke_others": True}).json()
        problem(app_with(only).get(f"{API}/me"), 401, "authentication_failed")
        assert app_with(again["token"]).get(f"{API}/me").status_code == 200
        problem(platform.post("/players/p/token", {"revoke_others": 1}), 400, "invalid_input")
        bare = platform.client.post(f"{API}/platform/players/p/token")  # no body at all
        assert bare.status_code == 201, bare.content
        assert app_with(again["token"]).get(f"{API}/me").status_code == 200

    def test_revoking_stops_every_token(self, platform, other_platform) -> None:
        tokens = [platform.put("/players/p", {"display_name": "P"}).json()["token"],
                  platform.post("/players/p/token").json()["token"]]
        problem(delete(other_platform, "/players/p/tokens"), 404, "not_found")
        assert app_with(tokens[0]).get(f"{API}/me").status_code == 200
        assert delete(platform, "/players/p/tokens").status_code == 204
        for token in tokens:
            problem(app_with(token).get(f"{API}/me"), 401, "authentication_failed")
        assert platform.get("/players/p").json()["active_tokens"] == 0
        fresh = platform.post("/players/p/token").json()["token"]
        assert app_with(fresh).get(f"{API}/me").json()["display_name"] == "P"

    def test_unknown_players_have_no_tokens(self, platform, other_platform) -> None:
        other_platform.player("p")
        problem(platform.post("/players/p/token"), 404, "not_found")
        problem(delete(platform, "/players/p/tokens"), 404, "not_found")


class TestErasure:
    def test_an_erased_player_is_gone_and_the_id_free(self, platform) -> None:
        token = platform.put("/players/p", {"display_name": "Ayşe", "language": "tr"}
                             ).json()["token"]
        user = PlatformPlayer.objects.get().user
        assert delete(platform, "/players/p").status_code == 204
        problem(app_with(token).get(f"{API}/me"), 401, "authentication_failed")
        problem(platform.get("/players/p"), 404, "not_found")
        problem(delete(platform, "/players/p"), 404, "not_found")
        assert platform.get("/players").json()["results"] == []
        user.refresh_from_db()
        assert user.first_name == "Former player" and not user.is_active
        assert not user.has_usable_password() and "Ayşe" not in user.username
        assert not AuthToken.objects.filter(user=user).exists()
        again = platform.put("/players/p", {"display_name": "Someone else"})
        assert again.status_code == 201
        assert again.json()["language"] == ""
        assert PlatformPlayer.objects.get().user_id != user.pk

    def test_the_kept_webhook_log_no_longer_names_them(self, platform) -> None:
        from platforms.models import WebhookEvent

        platform.post("/webhooks", {"url": "https://receiver.example/h", "event_types": [
            "match.started", "seat.left", "match.abandoned"]})
        platform.player("ext-1")
        platform.player("ext-2")
        platform.post("/matches", {"game": "auction", "deals": 1, "seats": TWO_PLAYERS})
        assert delete(platform, "/players/ext-1").status_code == 204
        events = list(WebhookEvent.objects.filter(platform=platform.platform))
        assert {event.type for event in events} == {"match.started", "seat.left"}
        assert all("ext-1" not in str(event.payload) for event in events)
        assert any("ext-2" in str(event.payload) for event in events)

    def test_another_platform_cannot_erase_your_player(self, platform, other_platform) -> None:
        platform.player("p")
        problem(delete(other_platform, "/players/p"), 404, "not_found")
        assert platform.get("/players/p").status_code == 200

    # Transactions committed: the computer players move once a move is committed.
    @pytest.mark.django_db(transaction=True)
    def test_a_match_in_play_goes_on_with_a_stand_in(self, platform) -> None:
        platform.player("ext-1")
        second = platform.player("ext-2")
        match = platform.post("/matches", {"game": "spades", "deals": 1, "seats": TWO_PLAYERS,
                                           "clock": None}).json()
        assert delete(platform, "/players/ext-1").status_code == 204
        seat = Seat.objects.get(match_id=match["id"], index=0)
        assert seat.left_at is not None and seat.display_name == "Former player"
        summary = platform.get(f"/matches/{match['id']}").json()
        assert summary["status"] == "active" and summary["players"] == [None, None, "ext-2",
                                                                        None]
        play_to_the_end(platform, {2: second}, match["id"], random.Random(5))
        assert platform.get(f"/matches/{match['id']}").json()["status"] == "finished"

    def test_the_last_person_leaving_abandons_the_match(self, platform) -> None:
        platform.player("ext-1")
        match = platform.post("/matches", {"game": "auction", "deals": 1, "seats": ONE_PLAYER,
                                           "clock": None}).json()
        assert delete(platform, "/players/ext-1").status_code == 204
        assert platform.get(f"/matches/{match['id']}").json()["status"] == "abandoned"

    @pytest.mark.django_db(transaction=True)
    def test_a_finished_match_keeps_its_play_under_the_neutral_name(self, platform) -> None:
        app = platform.player("ext-1", "Ayşe")
        match = platform.post("/matches", {"game": "spades", "deals": 1, "seats": ONE_PLAYER,
                                           "clock": None}).json()
        play_to_the_end(platform, {0: app}, match["id"], random.Random(7))
        before = platform.get(f"/matches/{match['id']}").json()
        assert before["status"] == "finished" and before["seats"][0]["display_name"] == "Ayşe"
        assert delete(platform, "/players/ext-1").status_code == 204
        after = platform.get(f"/matches/{match['id']}").json()
        assert after["status"] == "finished" and after["ranking"] == before["ranking"]
        assert after["totals"] == before["totals"]
        assert after["seats"][0]["display_name"] == "Former player"
        deals = platform.client.get(f"{API}/matches/{match['id']}/deals")
        assert deals.status_code == 200 and "Ayşe" not in deals.content.decode()


def test_of_erasures_of_one_player_at_once_one_erases_and_the_others_are_404(
    platform, monkeypatch
) -> None:
    # Found by probing: four DELETEs at once all answered 204. Each found the player before
    # the first erased them; the account's lock then lets one erase, and tells the others.
    from platforms import services

    platform.put("/players/user-42", {"display_name": "Ayşe"})
    found_before = services._existing(platform.platform, "user-42")
    assert delete(platform, "/players/user-42").status_code == 204
    monkeypatch.setattr(services, "_existing", lambda *args, **kwargs: found_before)
    problem(delete(platform, "/players/user-42"), 404, "not_found")
