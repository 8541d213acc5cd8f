"""The platform API: keys and scopes, players by external id and their tokens, matches, quotas,
and every platform's data kept from every other's."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from games.engine.notation import read_deal
from platforms import services
from platforms.models import PlatformKey

from .conftest import API, new_platform, play_to_the_end, problem

GOLDEN = Path(__file__).parents[1] / "engine" / "golden"
TWO_PLAYERS = [
    {"kind": "player", "external_id": "ext-1"},
    {"kind": "bot", "bot_level": "easy"},
    {"kind": "player", "external_id": "ext-2"},
    {"kind": "bot", "bot_level": "easy"},
]


class TestKeys:
    def test_without_a_key_or_with_a_wrong_one_is_401(self, platform) -> None:
        anonymous = APIClient()
        assert anonymous.get(f"{API}/platform/matches").status_code == 401
        wrong = APIClient()
        wrong.credentials(HTTP_AUTHORIZATION="Api-Key abc.def")
        assert wrong.get(f"{API}/platform/matches").status_code == 401
        assert platform.get("/matches").status_code == 200

    def test_a_key_does_only_what_its_scopes_allow(self, db) -> None:
        reader = new_platform("Reader", scopes=["matches:read"])
        problem(reader.put("/players/x", {"display_name": "X"}), 403, "missing_scope")
        problem(reader.post("/matches", {"game": "auction", "seats": TWO_PLAYERS}), 403,
                "missing_scope")
        assert reader.get("/matches").status_code == 200

    def test_a_user_token_is_no_platform_key(self, platform) -> None:
        app = platform.player("ext-1")
        assert app.get(f"{API}/platform/matches").status_code == 401

    def test_revoked_keys_stop_and_rotated_ones_lapse(self, platform) -> None:
        key = PlatformKey.objects.get(platform=platform.platform)
        new, secret = services.rotate_key(key=key)
        key.refresh_from_db()
        assert key.expiry_date is not None
        assert key.expiry_date - timezone.now() <= services.ROTATION_GRACE
        assert platform.get("/matches").status_code == 200  # still in its grace
        PlatformKey.objects.filter(pk=key.pk).update(
            expiry_date=timezone.now() - timedelta(seconds=1))
        assert platform.get("/matches").status_code == 401
        platform.client.credentials(HTTP_AUTHORIZATION=f"Api-Key {secret}")
        assert platform.get("/matches").status_code == 200
        services.revoke_key(key=new)
        assert platform.get("/matches").status_code == 401


class TestPlayers:
    def test_put_creates_then_updates_and_issues_a_token(self, platform) -> None:
        created = platform.put("/players/user-42", {"display_name": "Ayşe", "language": "tr"})
        assert created.status_code == 201, created.content
        app = APIClient()
        app.credentials(HTTP_AUTHORIZATION=f"Token {created.json()['token']}")
        me = app.get(f"{API}/me").json()
        assert me["display_name"] == "Ayşe" and me["is_guest"] is False
        updated = platform.put("/players/user-42", {"display_name": "Ayşe K."})
        assert updated.status_code == 200 and updated.json()["token"] != created.json()["token"]
        assert app.get(f"{API}/me").json()["display_name"] == "Ayşe K."  # same account

    def test_a_put_leaves_the_language_it_does_not_send(self, platform) -> None:
        assert platform.put("/players/p", {"display_name": "Ayşe"}).json()["language"] == ""
        assert platform.put("/players/p", {"display_name": "Ayşe", "language": "tr"}
                            ).json()["language"] == "tr"
        again = platform.put("/players/p", {"display_name": "Ayşe K."})
        assert again.status_code == 200 and again.json()["language"] == "tr"
        assert platform.put("/players/p", {"display_name": "Ayşe K.", "language": "fr"}
                            ).json()["language"] == "fr"

    def test_a_player_token_is_short_lived_and_not_extended_by_use(self, platform) -> None:
        body = platform.put("/players/u", {"display_name": "U"}).json()
        expiry = timezone.datetime.fromisoformat(body["token_expiry"])
        assert timedelta(minutes=59) < expiry - timezone.now() <= timedelta(minutes=60)
        app = APIClient()
        app.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
        AuthToken.objects.update(created=timezone.now() - timedelta(minutes=30))
        assert app.get(f"{API}/me").status_code == 200
        assert AuthToken.objects.get().expiry == expiry

    def test_external_ids_and_names_are_checked(self, platform) -> None:
        problem(platform.put("/players/has space", {"display_name": "X"}), 400, "invalid_input")
        problem(platform.put("/players/" + "x" * 129, {"display_name": "X"}), 400,
                "invalid_input")
        assert platform.put("/players/ok", {"display_name": ""}).status_code == 400
        assert platform.put("/players/ok", {"display_name": "X", "extra": 1}).status_code == 400

    @pytest.mark.parametrize("dots", [".", "..", "..."])
    def test_an_external_id_of_dots_only_is_refused(self, platform, dots) -> None:
        """`.` and `..` are path segments a URL resolves away: a generated client asked for
        /players/.. reads /players."""
        problem(platform.put(f"/players/{dots}", {"display_name": "X"}), 400, "invalid_input")
        seats = [{"kind": "player", "external_id": dots}, *TWO_PLAYERS[1:2] * 3]
        refused = platform.post("/matches", {"game": "auction", "seats": seats})
        problem(refused, 400, "invalid_input")
        assert refused.json()["errors"][0]["field"] == "seats[0].external_id"
        assert platform.put("/players/.a.", {"display_name": "X"}).status_code == 201


class TestMatches:
    def test_a_platform_seats_its_players_by_external_id(self, platform) -> None:
        first, second = platform.player("ext-1", "One"), platform.player("ext-2", "Two")
        response = platform.post("/matches", {"game": "auction", "deals": 1,
                                              "seats": TWO_PLAYERS})
        assert response.status_code == 201, response.content
        match = response.json()
        assert match["players"] == ["ext-1", None, "ext-2", None]
        assert match["status"] == "active" and match["clock"] == {"bid": 20, "card": 30}
        for index, app in ((0, first), (2, second)):
            view = app.get(f"{API}/matches/{match['id']}/view").json()
            assert view["seat"] == index and len(view["deal"]["hand"]) == 13
        listed = platform.get("/matches").json()
        assert [m["id"] for m in listed["results"]] == [match["id"]]
        assert platform.get(f"/matches/{match['id']}").json()["players"][2] == "ext-2"

    def test_a_platform_deals_the_first_deal_from_a_deals_notation(self, platform) -> None:
        first = platform.player("ext-1", "One")
        platform.player("ext-2", "Two")
        text = (GOLDEN / "contract_scoring.bdn").read_text()
        imported = read_deal(text).start
        response = platform.post("/matches", {"game": "auction", "deals": 1, "deal": text,
                                              "seats": TWO_PLAYERS})
        assert response.status_code == 201, response.content
        match = response.json()
        assert match["deal_imported"] is True and match["rules"]["scoring"] == "contract"
        view = first.get(f"{API}/matches/{match['id']}/view").json()
        assert sorted(view["deal"]["hand"]) == sorted(imported.to_dict()["hands"][0])
        problem(platform.post("/matches", {"game": "spades", "deal": text,
                                           "seats": TWO_PLAYERS}), 400, "deal_rules_differ")
        problem(platform.post("/matches", {"game": "auction", "deal": text[:40],
                                           "seats": TWO_PLAYERS}), 400, "invalid_deal")

    def test_a_platform_opens_a_table_with_hints_never_rated(self, platform) -> None:
        apps = {seat: platform.player(f"ext-{seat}") for seat in range(4)}
        seats = [{"kind": "player", "external_id": f"ext-{seat}"} for seat in range(4)]
        response = platform.post("/matches", {"game": "auction", "deals": 1, "hints": True,
                                              "seats": seats})
        assert response.status_code == 201, response.content
        match = response.json()
        assert match["hints"] is True and match["rated"] is False
        view = apps[0].get(f"{API}/matches/{match['id']}/view").json()
        assert view["hints"] is True
        to_act = apps[view["deal"]["to_act"]]
        assert to_act.get(f"{API}/matches/{match['id']}/hint").status_code == 200
        problem(platform.post("/matches", {"game": "auction", "hints": True, "rated": True,
                                           "seats": TWO_PLAYERS}), 400, "hints_not_rated")

    def test_unknown_players_and_bad_seats_are_refused(self, platform) -> None:
        problem(platform.post("/matches", {"game": "auction", "seats": TWO_PLAYERS}), 400,
                "unknown_player")
        platform.player("ext-1")
        twice = [{"kind": "player", "external_id": "ext-1"}] * 2 + TWO_PLAYERS[1:2] * 2
        refused = platform.post("/matches", {"game": "auction", "seats": [*twice[:3], twice[0]]})
        problem(refused, 400, "invalid_input")
        # Each seat that repeats a player is named, with the seat the player already has.
        assert [(error["field"], error["code"]) for error in refused.json()["errors"]] == [
            ("seats[1].external_id", "duplicate"), ("seats[3].external_id", "duplicate")]
        assert "0" in refused.json()["errors"][0]["message"]
        bots = [{"kind": "bot", "bot_level": "easy"}] * 4
        problem(platform.post("/matches", {"game": "auction", "seats": bots}), 403,
                "person_seat_required")

    def test_the_platform_quota_holds(self, platform) -> None:
        platform.platform.max_unfinished_matches = 1
        platform.platform.save()
        platform.player("ext-1")
        platform.player("ext-2")
        body = {"game": "auction", "seats": TWO_PLAYERS}
        assert platform.post("/matches", body).status_code == 201
        problem(platform.post("/matches", body), 409, "too_many_matches")


class TestIsolation:
    """Platform B never reads or touches platform A's players or matches."""

    def test_matrix(self, platform, other_platform) -> None:
        platform.player("ext-1")
        platform.player("ext-2")
        match = platform.post("/matches", {"game": "auction", "seats": TWO_PLAYERS}).json()
        # B's own player of the same external id is another account.
        b_app = other_platform.player("ext-1")
        assert b_app.get(f"{API}/matches/{match['id']}/view").status_code == 403
        problem(other_platform.get(f"/matches/{match['id']}"), 404, "not_found")
        assert other_platform.get("/matches").json()["results"] == []
        problem(other_platform.post("/matches", {"game": "auction", "seats": TWO_PLAYERS}),
                400, "unknown_player")
        # B's PUT of "ext-2" makes B's player; A's "ext-2" keeps its name and seat.
        other_platform.put("/players/ext-2", {"display_name": "Intruder"})
        seats = platform.get(f"/matches/{match['id']}").json()["seats"]
        assert seats[2]["display_name"] == "ext-2"


@pytest.mark.django_db(transaction=True)
def test_two_players_play_a_whole_match_with_their_tokens() -> None:
    platform = new_platform("Gamma")
    apps = {0: platform.player("ext-1"), 2: platform.player("ext-2")}
    match = platform.post("/matches", {"game": "spades", "deals": 1, "seats": TWO_PLAYERS,
                                       "clock": None}).json()
    play_to_the_end(platform, apps, match["id"], random.Random(3))
    result = platform.get(f"/matches/{match['id']}").json()
    assert result["status"] == "finished" and result["ranking"] is not None
