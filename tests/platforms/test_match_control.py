"""A platform controls its matches: cancelling them, starting them once every player is ready,
open seats and quick match among its own players."""

from __future__ import annotations

from typing import Any

from games.models import Action, Match

from .conftest import API, PlatformClient, new_platform, problem

PLAYERS = [{"kind": "player", "external_id": f"p{seat}"} for seat in range(4)]
TWO_PLAYERS = [
    {"kind": "player", "external_id": "p0"},
    {"kind": "bot", "bot_level": "easy"},
    {"kind": "player", "external_id": "p1"},
    {"kind": "bot", "bot_level": "easy"},
]


def create(platform: PlatformClient, seats: list[dict[str, Any]] | None = None,
           **fields: Any) -> dict[str, Any]:
    for seat in seats or PLAYERS:
        if seat["kind"] == "player":
            platform.player(seat["external_id"])
    response = platform.post("/matches", {"game": "auction", "deals": 1,
                                          "seats": seats or PLAYERS, **fields})
    assert response.status_code == 201, response.content
    return response.json()


class TestCancel:
    def test_a_match_in_play_is_abandoned_its_log_kept(self, platform) -> None:
        match = create(platform, TWO_PLAYERS)
        assert match["status"] == "active"
        app = platform.player("p0")
        view = app.get(f"{API}/matches/{match['id']}/view").json()
        assert view["deal"] is not None
        response = platform.post(f"/matches/{match['id']}/cancel")
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["status"] == "abandoned"
        assert body["players"] == ["p0", None, "p1", None]
        assert body["turn_deadline"] is None
        assert Match.objects.get(pk=match["id"]).deals.count() == 1
        assert Action.objects.filter(match_id=match["id"]).count() == body["version"] - 1

    def test_cancelling_again_says_how_it_ended(self, platform) -> None:
        match = create(platform, TWO_PLAYERS)
        assert platform.post(f"/matches/{match['id']}/cancel").status_code == 200
        again = platform.post(f"/matches/{match['id']}/cancel")
        problem(again, 409, "match_over")
        assert again.json()["match_status"] == "abandoned"
        assert platform.get(f"/matches/{match['id']}").json()["status"] == "abandoned"

    def test_another_platforms_match_is_not_found(self, platform, other_platform) -> None:
        match = create(platform, TWO_PLAYERS)
        problem(other_platform.post(f"/matches/{match['id']}/cancel"), 404, "not_found")
        problem(other_platform.post("/matches/6990c34b-402a-4832-b7a0-91140a5b4ddf/cancel"),
                404, "not_found")
        assert platform.get(f"/matches/{match['id']}").json()["status"] == "active"

    def test_it_needs_the_write_scope(self, db) -> None:
        reader = new_platform("Reader", scopes=["matches:read"])
        problem(reader.post("/matches/6990c34b-402a-4832-b7a0-91140a5b4ddf/cancel"), 403,
                "missing_scope")

    def test_a_players_token_cannot_cancel(self, platform) -> None:
        match = create(platform, TWO_PLAYERS)
        app = platform.player("p0")
        assert app.post(f"{API}/platform/matches/{match['id']}/cancel").status_code == 401
