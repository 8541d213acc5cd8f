import uuid

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games.models import Match, MatchStatus

from .conftest import API, Player, create_match, table_of_four
from .schema import assert_matches_schema, documented_examples


class TestCreate:
    def test_defaults_me_and_three_medium_bots(self, player) -> None:
        match = create_match(player("Ayşe"))
        assert match["game"] == "auction" and match["deal_count"] == 4
        assert [s["kind"] for s in match["seats"]] == ["person", "bot", "bot", "bot"]
        assert match["seats"][0]["display_name"] == "Ayşe"
        assert match["status"] == "active"  # no open seat: it starts at once
        assert match["rules"]["min_bid"] == 4

    def test_rules_overrides_and_presets(self, player) -> None:
        match = create_match(player(), game="partnership", deals=8,
                             rules={"min_bid": 8, "partnership_dummy": True})
        assert match["rules"]["min_bid"] == 8 and match["rules"]["partnership_dummy"]
        assert match["rules"]["all_pass_bid"] == 7 and match["deal_count"] == 8

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"game": "auction", "rules": {"min_bid": 7}}, "min_bid"),
            ({"game": "auction", "rules": {"spades_announcements": True}},
             "spades_announcements"),
            ({"game": "spades", "rules": {"all_pass": "redeal"}}, "all_pass"),
            ({"rules": {"trumps": "H"}}, "rules.trumps"),
            ({"deals": 0}, "deals"),
            ({"deals": 53}, "deals"),
            ({"game": "poker"}, "game"),
            ({"seats": [{"kind": "me"}]}, "seats"),
            ({"seats": [{"kind": "me"}, {"kind": "me"}, {"kind": "open"}, {"kind": "open"}]},
             "seats"),
            ({"seats": [{"kind": "me"}, {"kind": "bot"}, {"kind": "open"}, {"kind": "open"}]},
             "seats[1].bot_level"),
        ],
    )
    def test_invalid_settings_are_400_naming_the_field(self, player, body, field) -> None:
        someone = player()
        response = someone.post("/matches", body)
        assert response.status_code == 400, response.content
        problem = response.json()
        named = {e["field"] for e in problem.get("errors", [])} | {problem.get("field")}
        assert field in named, problem
        assert someone.get("/matches").json()["count"] == 0

    def test_malformed_json_is_400(self, player) -> None:
        someone = player()
        response = someone.client.post(f"{API}/matches", "{not json",
                                        content_type="application/json")
        assert response.status_code == 400 and response.json()["code"] == "malformed_request"


class TestListAndDetail:
    def test_lists_only_my_matches(self, player) -> None:
        me, other = player(), player()
        mine = create_match(me)
        create_match(other)
        listing = me.get("/matches").json()
        assert listing["count"] == 1 and listing["results"][0]["id"] == mine["id"]
        assert me.get("/matches?status=finished").json()["count"] == 0

    def test_unknown_match_is_404(self, player) -> None:
        response = player().get(f"/matches/{uuid.uuid4()}")
        assert response.status_code == 404 and response.json()["code"] == "not_found"

    def test_unknown_url_is_a_404_problem(self, player) -> None:
        response = player().get("/nothing-here")
        assert response.status_code == 404 and response.json()["code"] == "not_found"

    def test_presets(self, player) -> None:
        presets = player().get("/rules/presets").json()
        assert [p["game"] for p in presets] == ["auction", "partnership", "spades"]


class TestJoin:
    def test_join_starts_the_match_when_full(self, player) -> None:
        match_id, players = table_of_four(player)
        match = players[0].get(f"/matches/{match_id}").json()
        assert match["status"] == "active"
        assert [s["display_name"] for s in match["seats"]] == ["P0", "P1", "P2", "P3"]

    def test_join_errors(self, player) -> None:
        owner, guest, late = player(), player(), player()
        match = create_match(owner, visibility="public",
                             seats=[{"kind": "me"}, {"kind": "open"},
                                    {"kind": "bot", "bot_level": "easy"}, {"kind": "open"}])
        path = f"/matches/{match['id']}/join"
        assert owner.post(path).json()["code"] == "already_seated"
        assert guest.post(path, {"seat": 2}).json()["code"] == "seat_unavailable"
        assert guest.post(path, {"seat": 9}).status_code == 400
        assert guest.post(path, {"seat": 1}).status_code == 200
        assert late.post(path, {"seat": 3}).status_code == 200
        assert player().post(path).status_code == 409


class TestSeatView:
    def test_only_seated_players_see_a_view(self, player) -> None:
        match_id, players = table_of_four(player)
        stranger = player()
        response = stranger.get(f"/matches/{match_id}/view")
        assert response.status_code == 403 and response.json()["code"] == "not_your_seat"

    def test_live_hands_are_nobodys_but_their_seats(self, player, caplog) -> None:
        match_id, players = table_of_four(player)
        staff = get_user_model().objects.create_user(
            "referee", is_staff=True, is_superuser=True
        )
        client = APIClient()
        client.force_authenticate(staff)
        staff_player = Player(client, staff.pk, "referee")
        live = staff_player.get(f"/matches/{match_id}/view?seat=2")
        assert live.status_code == 403 and live.json()["code"] == "hand_in_play"
        # A player naming another seat is refused too, told which seat is theirs; naming
        # their own is their view.
        other = players[1].get(f"/matches/{match_id}/view?seat=2")
        assert other.status_code == 403 and other.json()["code"] == "other_seat"
        assert other.json()["detail"].endswith("you sit at seat 1.")
        assert players[1].get(f"/matches/{match_id}/view?seat=1").json()["seat"] == 1
        assert staff_player.post(f"/matches/{match_id}/actions",
                                 {"kind": "pass"}).status_code == 403
        Match.objects.filter(pk=match_id).update(status=MatchStatus.ABANDONED)
        with caplog.at_level("INFO", logger="games.api.play"):
            view = staff_player.get(f"/matches/{match_id}/view?seat=2").json()
        # Abandoned: nobody can play that deal any more, so its hands may be reviewed.
        assert view["seat"] == 2 and len(view["deal"]["hand"]) == 13
        record = next(r for r in caplog.records if r.getMessage() == "staff read another seat")
        assert (record.staff_user, record.seat) == (staff.pk, 2)

    def test_a_staff_member_at_the_table_reads_no_other_seat(self, player) -> None:
        owner = player("A")
        staff = get_user_model().objects.create_user("dealer", is_staff=True)
        client = APIClient()
        client.force_authenticate(staff)
        match = create_match(owner, visibility="public",
                             seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"},
                                    {"kind": "open"}])
        assert client.post(f"/api/v1/matches/{match['id']}/join", {"seat": 1},
                           format="json").status_code == 200
        for seat in (2, 3):
            player("X").post(f"/matches/{match['id']}/join", {"seat": seat})
        response = client.get(f"/api/v1/matches/{match['id']}/view?seat=0")
        assert response.status_code == 403 and response.json()["code"] == "hand_in_play"

    def test_etag_and_304(self, player) -> None:
        match_id, players = table_of_four(player)
        first = players[1].get(f"/matches/{match_id}/view")
        etag = first["ETag"]
        again = players[1].get(f"/matches/{match_id}/view", HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304 and again["ETag"] == etag
        other_seat = players[2].get(f"/matches/{match_id}/view")
        assert other_seat["ETag"] != etag

    def test_view_shows_own_hand_and_the_commitment(self, player) -> None:
        match_id, players = table_of_four(player)
        hands = [set(p.view(match_id)["deal"]["hand"]) for p in players]
        assert all(len(h) == 13 for h in hands) and len(set().union(*hands)) == 52
        commitments = {p.view(match_id)["deal"]["commitment"] for p in players}
        assert len(commitments) == 1 and len(commitments.pop()) == 64


@pytest.mark.parametrize(("operation", "schema", "value"), documented_examples(),
                         ids=lambda item: item if isinstance(item, str) else "")
def test_documented_examples_match_the_schema(operation, schema, value) -> None:
    assert_matches_schema(value, schema)


@pytest.mark.django_db
def test_page_links_are_the_path_and_query_of_the_neighbouring_pages(player) -> None:
    """Relative to the server, so that they hold behind any proxy; following them walks the
    list, and the lobby's and a platform's lists link the same way."""
    me = player("Pages")
    for _ in range(3):
        create_match(me, visibility="public", seats=[{"kind": "me"}, *[{"kind": "open"}] * 3])
    first = me.get("/matches?page_size=1").json()
    assert first["previous"] is None
    assert first["next"].startswith(f"{API}/matches?") and "page=2" in first["next"]
    second = me.client.get(first["next"]).json()
    assert second["previous"].startswith(f"{API}/matches?")
    assert second["results"][0]["id"] != first["results"][0]["id"]
    lobby = me.get("/lobby?page_size=1").json()
    assert lobby["next"].startswith(f"{API}/lobby?")
