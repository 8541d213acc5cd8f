"""A platform controls its matches: cancelling them, starting them once every player is ready,
open seats and quick match among its own players."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games import sweeper
from games.models import Action, Match
from tests.api.conftest import new_player

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

    def test_a_waiting_match_is_cancelled(self, platform) -> None:
        match = create(platform, TWO_PLAYERS, start="when_ready")  # awaits its players
        assert match["status"] == "waiting"
        response = platform.post(f"/matches/{match['id']}/cancel")
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "cancelled"

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


def ready(app, match_id: str):
    return app.post(f"{API}/matches/{match_id}/ready")


class TestStartWhenReady:
    def test_the_clock_waits_until_every_player_is_ready(self, platform) -> None:
        before = timezone.now()
        match = create(platform, PLAYERS, start="when_ready")
        assert match["status"] == "waiting" and match["turn_deadline"] is None
        assert [seat["ready"] for seat in match["seats"]] == [False] * 4
        assert match["ready_by"] is not None
        ready_by = Match.objects.get(pk=match["id"]).ready_by
        assert ready_by is not None
        assert timedelta(seconds=119) < ready_by - before < timedelta(seconds=121)
        apps = [platform.player(f"p{seat}") for seat in range(4)]
        for seat in range(3):
            answer = ready(apps[seat], match["id"])
            assert answer.status_code == 200, answer.content
            body = answer.json()
            assert body["status"] == "waiting" and body["turn_deadline"] is None
            assert [s["ready"] for s in body["seats"]] == [s <= seat for s in range(4)]
            assert sweeper.run_clocks() == 0  # not due: nothing starts it
        body = ready(apps[3], match["id"]).json()
        assert body["status"] == "active" and body["turn_deadline"] is not None
        assert not any(seat["autopilot"] for seat in body["seats"])
        assert Match.objects.get(pk=match["id"]).deals.count() == 1

    def test_saying_it_twice_is_harmless(self, platform) -> None:
        match = create(platform, TWO_PLAYERS, start="when_ready")
        first = platform.player("p0")
        assert ready(first, match["id"]).status_code == 200
        again = ready(first, match["id"])
        assert again.status_code == 200 and again.json()["status"] == "waiting"
        assert ready(platform.player("p1"), match["id"]).json()["status"] == "active"
        assert ready(first, match["id"]).status_code == 200  # started: still harmless

    def test_the_wait_is_bounded_the_late_on_autopilot(self, platform) -> None:
        match = create(platform, PLAYERS, start="when_ready", ready_within=10)
        ready(platform.player("p0"), match["id"])
        assert sweeper.run_clocks() == 0
        Match.objects.filter(pk=match["id"]).update(ready_by=timezone.now())
        assert sweeper.run_clocks() >= 1
        body = platform.get(f"/matches/{match['id']}").json()
        assert body["status"] == "active"
        assert [seat["autopilot"] for seat in body["seats"]] == [False, True, True, True]
        assert [seat["ready"] for seat in body["seats"]] == [True, False, False, False]
        late = platform.player("p2")
        problem(ready(late, match["id"]), 409, "not_waiting_for_ready")
        back = late.post(f"{API}/matches/{match['id']}/return")
        assert back.status_code == 200 and back.json()["seats"][2]["autopilot"] is False

    def test_only_its_players_say_it(self, platform, other_platform) -> None:
        match = create(platform, TWO_PLAYERS, start="when_ready")
        problem(ready(platform.player("p3"), match["id"]), 403, "not_your_seat")
        problem(ready(other_platform.player("p0"), match["id"]), 403, "not_your_seat")
        problem(platform.client.post(f"{API}/matches/{match['id']}/ready"), 403,
                "platform_key_not_accepted")
        problem(ready(platform.player("p0"), "6990c34b-402a-4832-b7a0-91140a5b4ddf"), 404,
                "not_found")

    def test_a_match_that_did_not_wait_refuses_it(self, platform) -> None:
        match = create(platform, TWO_PLAYERS)
        problem(ready(platform.player("p0"), match["id"]), 409, "not_waiting_for_ready")
        waiting = create(platform, TWO_PLAYERS, start="when_ready")
        platform.post(f"/matches/{waiting['id']}/cancel")
        problem(ready(platform.player("p0"), waiting["id"]), 409, "not_waiting_for_ready")

    @pytest.mark.parametrize("fields", [{"start": "soon"}, {"ready_within": 60},
                                        {"start": "when_ready", "ready_within": 9},
                                        {"start": "when_ready", "ready_within": 901}])
    def test_its_settings_are_checked(self, platform, fields) -> None:
        platform.player("p0")
        platform.player("p1")
        problem(platform.post("/matches", {"game": "auction", "seats": TWO_PLAYERS, **fields}),
                400, "invalid_input")


@pytest.mark.django_db(transaction=True)
def test_the_last_two_ready_at_once_start_it_once(platform) -> None:
    match = create(platform, PLAYERS, start="when_ready")
    apps = [platform.player(f"p{seat}") for seat in range(4)]
    assert ready(apps[0], match["id"]).status_code == 200
    assert ready(apps[1], match["id"]).status_code == 200
    barrier = threading.Barrier(2)
    answers: list[Any] = []

    def say(app) -> None:
        barrier.wait()
        try:
            answers.append(ready(app, match["id"]))
        finally:
            connection.close()

    threads = [threading.Thread(target=say, args=(app,)) for app in apps[2:]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert [answer.status_code for answer in answers] == [200, 200]
    assert sorted(answer.json()["status"] for answer in answers) == ["active", "waiting"]
    row = Match.objects.get(pk=match["id"])
    assert row.status == "active" and row.deals.count() == 1
    assert not row.seats.filter(autopilot=True).exists()


OPEN_SEATS = [{"kind": "player", "external_id": "p0"}, {"kind": "open"},
              {"kind": "bot", "bot_level": "easy"}, {"kind": "open"}]


class TestOpenSeats:
    def test_the_platforms_players_take_a_public_matchs_open_seats(self, platform) -> None:
        from platforms.models import WebhookEvent

        platform.post("/webhooks", {"url": "https://receiver.example/h",
                                    "event_types": ["seat.taken", "match.started"]})
        match = create(platform, OPEN_SEATS, visibility="public")
        assert match["status"] == "waiting" and match["invitation_code"] is None
        assert [seat["kind"] for seat in match["seats"]] == ["person", "open", "bot", "open"]
        joined = platform.player("p1").post(f"{API}/matches/{match['id']}/join", {},
                                            format="json")
        assert joined.status_code == 200, joined.content
        assert joined.json()["seat"] == 1 and joined.json()["match"]["status"] == "waiting"
        platform.player("p2").post(f"{API}/matches/{match['id']}/join", {}, format="json")
        body = platform.get(f"/matches/{match['id']}").json()
        assert body["status"] == "active" and body["players"] == ["p0", "p1", None, "p2"]
        told = [(event.type, event.payload["data"].get("external_id")) for event in
                WebhookEvent.objects.filter(platform=platform.platform).order_by("sequence")]
        assert told == [("seat.taken", "p1"), ("seat.taken", "p2"), ("match.started", None)]

    def test_a_private_ones_by_the_code_the_platform_is_given(self, platform) -> None:
        match = create(platform, OPEN_SEATS)
        code = match["invitation_code"]
        assert code
        for external_id in ("p1", "p2"):
            joined = platform.player(external_id).post(f"{API}/invitations/{code}/join", {},
                                                       format="json")
            assert joined.status_code == 200, joined.content
        body = platform.get(f"/matches/{match['id']}").json()
        assert body["status"] == "active" and body["invitation_code"] is None

    def test_nobody_else_sits_there(self, platform, other_platform) -> None:
        public = create(platform, OPEN_SEATS, visibility="public")["id"]
        private = create(platform, OPEN_SEATS)
        outsiders = [other_platform.player("p1"), new_player("Ordinary").client]
        for outsider in outsiders:
            problem(outsider.post(f"{API}/matches/{public}/join", {}, format="json"), 403,
                    "closed_table")
            problem(outsider.post(f"{API}/invitations/{private['invitation_code']}/join", {},
                                  format="json"), 403, "closed_table")
        assert platform.get(f"/matches/{public}").json()["players"] == ["p0", None, None, None]

    def test_the_platforms_players_sit_at_no_ordinary_table(self, platform) -> None:
        owner = new_player("Ordinary")
        match = owner.post("/matches", {"visibility": "public", "deals": 1,
                                        "seats": [{"kind": "me"}, *[{"kind": "open"}] * 3]})
        assert match.status_code == 201, match.content
        problem(platform.player("p1").post(f"{API}/matches/{match.json()['id']}/join", {},
                                           format="json"), 403, "closed_table")

    def test_an_open_seat_does_not_wait_for_ready(self, platform) -> None:
        platform.player("p0")
        answer = platform.post("/matches", {"game": "auction", "seats": OPEN_SEATS,
                                            "start": "when_ready"})
        problem(answer, 400, "invalid_input")
        assert [(error["field"], error["code"]) for error in answer.json()["errors"]] == [
            ("seats[1].kind", "open_when_ready"), ("seats[3].kind", "open_when_ready")]


class TestQuickMatchAndLobby:
    def test_a_platforms_players_meet_only_each_other(self, platform, other_platform) -> None:
        body = {"game": "auction", "deals": 1, "fill_with_bots_after": None}
        ordinary = new_player("Ordinary").post("/quick-match", body).json()
        first = platform.player("p0").post(f"{API}/quick-match", body, format="json").json()
        other = other_platform.player("p0").post(f"{API}/quick-match", body,
                                                 format="json").json()
        second = platform.player("p1").post(f"{API}/quick-match", body, format="json").json()
        tables = {ordinary["match"]["id"], first["match"]["id"], other["match"]["id"]}
        assert len(tables) == 3, "a table shared across circles"
        assert second["match"]["id"] == first["match"]["id"] and second["seat"] == 1
        also_ordinary = new_player("Another").post("/quick-match", body).json()
        assert also_ordinary["match"]["id"] == ordinary["match"]["id"]

    def test_the_lobby_shows_each_their_own_tables(self, platform, other_platform) -> None:
        mine = create(platform, OPEN_SEATS, visibility="public")["id"]
        ordinary = new_player("Ordinary")
        theirs = ordinary.post("/matches", {"visibility": "public", "deals": 1,
                                            "seats": [{"kind": "me"}, *[{"kind": "open"}] * 3]})

        def lobby(client) -> list[str]:
            answer = client.get(f"{API}/lobby")
            assert answer.status_code == 200, answer.content
            return [table["id"] for table in answer.json()["results"]]

        assert lobby(platform.player("p1")) == [mine]
        assert lobby(other_platform.player("p1")) == []
        assert lobby(ordinary.client) == [theirs.json()["id"]]


class TestLeavingBeforeTheStart:
    """A match that waits for its people has no open seat for anyone to take: a player who
    leaves (or is erased) before the start gives their seat to a computer player, and the
    match starts as the others are ready."""

    def test_the_others_start_it_a_computer_player_in_the_leavers_seat(self, platform) -> None:
        match = create(platform, TWO_PLAYERS, start="when_ready")
        assert platform.client.delete(f"{API}/platform/players/p1").status_code == 204
        body = platform.get(f"/matches/{match['id']}").json()
        assert body["status"] == "waiting"
        assert Match.objects.get(pk=match["id"]).open_seats == 0
        started = ready(platform.player("p0"), match["id"]).json()
        assert started["status"] == "active"
        assert started["seats"][2]["left_at"] is not None

    def test_the_bound_starts_it_too(self, platform) -> None:
        match = create(platform, TWO_PLAYERS, start="when_ready", ready_within=10)
        assert platform.player("p1").post(f"{API}/matches/{match['id']}/leave").status_code == 200
        Match.objects.filter(pk=match["id"]).update(ready_by=timezone.now())
        assert sweeper.run_clocks() >= 1
        assert Match.objects.get(pk=match["id"]).status == "active"

    def test_when_nobody_is_left_it_is_cancelled_after_the_seats_told(self, platform) -> None:
        from platforms.models import WebhookEvent

        platform.post("/webhooks", {"url": "https://receiver.example/h", "event_types": [
            "seat.left", "match.cancelled"]})
        match = create(platform, TWO_PLAYERS, start="when_ready")
        for external_id in ("p0", "p1"):
            left = platform.player(external_id).post(f"{API}/matches/{match['id']}/leave")
            assert left.status_code == 200
        assert Match.objects.get(pk=match["id"]).status == "cancelled"
        events = WebhookEvent.objects.filter(platform=platform.platform).order_by("sequence")
        assert [event.type for event in events] == ["seat.left", "seat.left", "match.cancelled"]


def test_an_erasure_leaves_a_match_made_for_the_player_meanwhile(platform, monkeypatch) -> None:
    """A match created for a player while they are being erased (between leaving their
    matches and the end) is left too: the erasure looks again under the player's lock, which
    creating a match takes as well."""
    from games import privacy

    create(platform, TWO_PLAYERS)
    leave = privacy._leave_every_match
    made: list[dict[str, Any]] = []

    def leave_then_a_new_match(user: Any) -> None:
        leave(user)
        if not made:  # the first time: a concurrent request seats them again
            made.append(create(platform, TWO_PLAYERS))

    monkeypatch.setattr(privacy, "_leave_every_match", leave_then_a_new_match)
    assert platform.client.delete(f"{API}/platform/players/p1").status_code == 204
    seat = Match.objects.get(pk=made[0]["id"]).seats.get(index=2)
    assert seat.left_at is not None
