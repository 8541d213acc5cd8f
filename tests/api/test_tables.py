"""Tables between people: lobby, invitations, quick match, clocks, autopilot, presence, leaving
and spectators, through HTTP on the embedded default."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import computer_moves, sweeper
from games.models import Action, Match, Seat

from .conftest import create_match, new_player, submit, table_of_four
from .schema import assert_matches

OPEN3 = [{"kind": "me"}] + [{"kind": "open"}] * 3


def problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response.json()["code"] == code


def to_act(players, match_id: str) -> tuple[int, dict[str, Any]]:
    view = players[0].view(match_id)
    seat = view["deal"]["to_act"]
    return seat, players[seat].view(match_id)


def time_runs_out(match_id: str) -> None:
    Match.objects.filter(pk=match_id).update(turn_deadline=timezone.now() - timedelta(seconds=1))


# --- lobby ---------------------------------------------------------------------------------------


class TestLobby:
    def test_lists_public_tables_with_open_seats_only(self, player) -> None:
        owner = player("Owner")
        public = create_match(owner, visibility="public", seats=OPEN3)
        create_match(owner, seats=OPEN3)  # private
        create_match(owner, visibility="public", game="spades",
                     seats=[{"kind": "me"}] + [{"kind": "bot", "bot_level": "easy"}] * 3)
        listed = player("Looker").get("/lobby")
        assert listed.status_code == 200
        body = listed.json()
        for table in body["results"]:
            assert_matches(table, "LobbyTable")
        assert [table["id"] for table in body["results"]] == [public["id"]]
        table = body["results"][0]
        assert (table["seats_taken"], table["open_seats"], table["created_by"]) == (1, 3, "Owner")
        assert table["preset"] is True and table["rule_changes"] == {}
        assert table["clock"] == {"bid": 20, "card": 30}

    def test_filters_by_game_deals_and_rules(self, player) -> None:
        owner = player()
        plain = create_match(owner, visibility="public", seats=OPEN3, deals=4)
        changed = create_match(owner, visibility="public", seats=OPEN3, deals=4,
                               rules={"min_bid": 5})
        spades = create_match(owner, visibility="public", seats=OPEN3, game="spades", deals=8)

        def ids(query: str) -> list[str]:
            response = owner.get(f"/lobby?{query}")
            assert response.status_code == 200, response.content
            return [table["id"] for table in response.json()["results"]]

        assert ids("game=spades") == [spades["id"]]
        assert ids("deals=4") == [plain["id"], changed["id"]]
        assert ids("game=auction&preset=true") == [plain["id"]]
        assert ids("preset=false") == [changed["id"]]
        assert ids("min_bid=5") == [changed["id"]]
        assert ids("game=auction&min_bid=4") == [plain["id"]]
        entry = owner.get("/lobby?min_bid=5").json()["results"][0]
        assert entry["rule_changes"] == {"min_bid": 5}
        problem(owner.get("/lobby?game=chess"), 400, "invalid_input")
        problem(owner.get("/lobby?page=9"), 404, "not_found")

    def test_a_page_costs_the_same_queries_however_many_tables(self, player) -> None:
        owner = player()
        for _ in range(3):
            create_match(owner, visibility="public", seats=OPEN3)
        with CaptureQueriesContext(connection) as few:
            assert owner.get("/lobby").status_code == 200
        for _ in range(5):
            create_match(owner, visibility="public", seats=OPEN3)
        with CaptureQueriesContext(connection) as more:
            assert len(owner.get("/lobby").json()["results"]) == 8
        assert len(more.captured_queries) == len(few.captured_queries) <= 6


# --- invitations and cancelling ------------------------------------------------------------------


class TestInvitations:
    def test_a_private_match_is_joined_with_its_code_only(self, player) -> None:
        owner, friend, stranger = player("Owner"), player("Friend"), player("Stranger")
        match = create_match(owner, seats=OPEN3)
        problem(stranger.post(f"/matches/{match['id']}/join"), 403, "invitation_required")
        problem(stranger.get(f"/matches/{match['id']}/invitation"), 403, "not_match_creator")
        invitation = owner.get(f"/matches/{match['id']}/invitation")
        assert invitation.status_code == 200
        code = invitation.json()["code"]
        joined = friend.post(f"/invitations/{code}/join", {"seat": 2})
        assert joined.status_code == 200, joined.content
        assert joined.json()["seat"] == 2 and joined.json()["match"]["id"] == match["id"]
        problem(friend.post(f"/invitations/{code}/join"), 409, "already_seated")
        problem(stranger.post(f"/matches/{match['id']}/join", {"invitation": code}), 400,
                "unknown_field")

    def test_renewing_and_revoking_stop_the_old_code(self, player) -> None:
        owner, friend = player(), player()
        match_id = create_match(owner, seats=OPEN3)["id"]
        old = owner.get(f"/matches/{match_id}/invitation").json()["code"]
        new = owner.post(f"/matches/{match_id}/invitation").json()["code"]
        assert new != old
        problem(friend.post(f"/invitations/{old}/join"), 404, "not_found")
        assert owner.client.delete(f"/api/v1/matches/{match_id}/invitation").status_code == 204
        problem(friend.post(f"/invitations/{new}/join"), 404, "not_found")
        problem(owner.get(f"/matches/{match_id}/invitation"), 404, "not_found")

    def test_a_full_table_has_no_invitation(self, player) -> None:
        owner = player()
        match_id = create_match(owner, seats=OPEN3)["id"]
        code = owner.get(f"/matches/{match_id}/invitation").json()["code"]
        for _ in range(3):
            assert player().post(f"/invitations/{code}/join").status_code == 200
        assert Match.objects.get(pk=match_id).status == "active"
        problem(player().post(f"/invitations/{code}/join"), 404, "not_found")
        problem(owner.post(f"/matches/{match_id}/invitation"), 409, "match_started")

    def test_the_creator_cancels_a_match_before_its_start(self, player) -> None:
        owner, other = player(), player()
        match_id = create_match(owner, visibility="public", seats=OPEN3)["id"]
        problem(other.post(f"/matches/{match_id}/cancel"), 403, "not_match_creator")
        cancelled = owner.post(f"/matches/{match_id}/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        assert owner.get("/lobby").json()["results"] == []
        problem(other.post(f"/matches/{match_id}/join"), 409, "seat_unavailable")
        started, seated = table_of_four(player)
        problem(seated[0].post(f"/matches/{started}/cancel"), 409, "match_started")


# --- quick match ---------------------------------------------------------------------------------


class TestQuickMatch:
    def test_joins_the_oldest_compatible_table_or_opens_one(self, player) -> None:
        first, second, third = player("A"), player("B"), player("C")
        opened = first.post("/quick-match", {"game": "spades", "deals": 4})
        assert opened.status_code == 200, opened.content
        table = opened.json()["match"]
        assert table["visibility"] == "public" and table["fill_with_bots_at"] is not None
        again = first.post("/quick-match", {"game": "spades", "deals": 4}).json()
        assert again["match"]["id"] == table["id"] and again["seat"] == opened.json()["seat"]
        joined = second.post("/quick-match", {"game": "spades", "deals": 4}).json()
        assert joined["match"]["id"] == table["id"] and joined["seat"] == 1
        other = third.post("/quick-match", {"game": "spades", "deals": 8}).json()
        assert other["match"]["id"] != table["id"]

    def test_the_open_seats_go_to_computer_players_after_the_wait(self, player) -> None:
        someone = player()
        body = someone.post("/quick-match", {"game": "auction", "deals": 1,
                                             "fill_with_bots_after": 30,
                                             "bot_level": "easy"}).json()
        match_id = body["match"]["id"]
        assert sweeper.run_clocks() == 0
        Match.objects.filter(pk=match_id).update(fill_bots_at=timezone.now())
        assert sweeper.run_clocks() == 1
        match = someone.get(f"/matches/{match_id}").json()
        assert match["status"] == "active"
        assert [seat["bot_level"] for seat in match["seats"]] == [None, "easy", "easy", "easy"]
        assert sweeper.run_clocks() == 0

    def test_a_full_table_waits_for_a_person_who_was_away_until_they_look(
        self, player, settings
    ) -> None:
        """Their clock runs only once they have the table in front of them: the table that
        filled while they were away starts at their first look, its first turn's clock from
        then (and without them, on autopilot, after QUICK_MATCH_ARRIVAL_SECONDS)."""
        someone = player()
        match_id = someone.post("/quick-match", {
            "game": "auction", "deals": 1, "fill_with_bots_after": 30, "bot_level": "easy",
            "clock": {"bid": 20, "card": 20}}).json()["match"]["id"]
        away = timezone.now() - timedelta(seconds=settings.PRESENCE_SECONDS + 1)
        Seat.objects.filter(match_id=match_id, index=0).update(last_seen=away)
        Match.objects.filter(pk=match_id).update(fill_bots_at=timezone.now())
        assert sweeper.run_clocks() == 1
        waiting = Match.objects.get(pk=match_id)
        assert waiting.status == "waiting" and waiting.open_seats == 0
        assert waiting.ready_by is not None and waiting.turn_deadline is None
        assert waiting.fill_bots_at is None  # full: the sweep has nothing more to fill
        assert sweeper.run_clocks() == 0
        assert not Seat.objects.get(match_id=match_id, index=0).ready

        looked = timezone.now()
        view = someone.view(match_id)
        assert view["status"] == "active"
        started = Match.objects.get(pk=match_id)
        if started.turn_deadline is not None:  # the person is to act first
            assert started.turn_deadline >= looked + timedelta(seconds=19)

    def test_a_change_is_no_look(self, player) -> None:
        """Cancelling the table it waits for you at cancels it: only a read is a first look."""
        someone = player()
        match_id = someone.post("/quick-match", {
            "game": "auction", "deals": 1, "fill_with_bots_after": 30,
            "bot_level": "easy"}).json()["match"]["id"]
        Seat.objects.filter(match_id=match_id, index=0).update(last_seen=None)
        Match.objects.filter(pk=match_id).update(fill_bots_at=timezone.now())
        sweeper.run_clocks()
        assert someone.post(f"/matches/{match_id}/cancel").status_code == 200
        assert Match.objects.get(pk=match_id).status == "cancelled"

    def test_a_person_who_never_looks_is_put_on_autopilot(self, player, settings) -> None:
        someone = player()
        match_id = someone.post("/quick-match", {
            "game": "auction", "deals": 1, "fill_with_bots_after": 30,
            "bot_level": "easy"}).json()["match"]["id"]
        Seat.objects.filter(match_id=match_id, index=0).update(last_seen=None)
        Match.objects.filter(pk=match_id).update(fill_bots_at=timezone.now())
        sweeper.run_clocks()
        assert Match.objects.get(pk=match_id).status == "waiting"
        Match.objects.filter(pk=match_id).update(ready_by=timezone.now())
        sweeper.run_clocks()
        assert Match.objects.get(pk=match_id).status == "active"
        assert Seat.objects.get(match_id=match_id, index=0).autopilot

    def test_waiting_for_people_only(self, player) -> None:
        body = player().post("/quick-match", {"game": "auction",
                                              "fill_with_bots_after": None}).json()
        assert body["match"]["fill_with_bots_at"] is None


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_quick_matches_make_five_full_tables() -> None:
    players = [new_player(f"P{i}") for i in range(20)]
    barrier = threading.Barrier(len(players))
    answers: list[Any] = []

    def ask(someone) -> None:
        barrier.wait()
        try:
            answers.append(someone.post("/quick-match", {"game": "auction", "deals": 1,
                                                         "fill_with_bots_after": None}))
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(someone,)) for someone in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert [answer.status_code for answer in answers] == [200] * 20
    seats = Counter((a.json()["match"]["id"], a.json()["seat"]) for a in answers)
    assert max(seats.values()) == 1, "two people in one seat"
    tables = Counter(a.json()["match"]["id"] for a in answers)
    assert sorted(tables.values()) == [4] * 5
    assert set(Match.objects.values_list("status", flat=True)) == {"active"}


# --- clocks and autopilot ------------------------------------------------------------------------


class TestClocks:
    def test_the_view_shows_the_deadline_of_the_person_to_act(self, player) -> None:
        match_id, players = table_of_four(player)
        view = players[0].view(match_id)
        assert view["clock"] == {"bid": 20, "card": 30}
        deadline = timezone.datetime.fromisoformat(view["turn_deadline"])
        assert 15 < (deadline - timezone.now()).total_seconds() <= 20

    def test_one_person_against_computer_players_has_no_clock_by_default(self, player) -> None:
        match = create_match(player(), seats=[{"kind": "me"}] + [
            {"kind": "bot", "bot_level": "easy"}] * 3)
        assert match["clock"] is None and match["turn_deadline"] is None

    def test_a_clock_can_be_set_or_switched_off(self, player) -> None:
        owner = player()
        timed = create_match(owner, seats=OPEN3, clock={"bid": 5, "card": 600})
        assert timed["clock"] == {"bid": 5, "card": 600}
        assert create_match(owner, seats=OPEN3, clock=None)["clock"] is None
        for wrong in ({"bid": 4, "card": 30}, {"bid": 10}, {"bid": 10, "card": 30, "x": 1}):
            response = owner.post("/matches", {"seats": OPEN3, "clock": wrong})
            assert response.status_code == 400, wrong

    def test_a_timeout_moves_once_for_the_person(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, view = to_act(players, match_id)
        assert sweeper.run_clocks() == 0  # not due yet
        time_runs_out(match_id)
        assert sweeper.run_clocks() == 1
        assert sweeper.run_clocks() == 0  # never twice for one turn
        action = Action.objects.get(match_id=match_id)
        assert (action.seat, action.origin, action.version) == (seat, "timeout", 1)
        events = players[0].get(f"/matches/{match_id}/events?wait=0").json()["events"]
        assert events[0]["origin"] == "timeout"
        after = players[0].view(match_id)
        assert after["version"] == 1 and after["turn_deadline"] is not None
        assert after["turn_deadline"] != view["turn_deadline"]

    def test_a_clock_never_fires_after_the_move(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, view = to_act(players, match_id)
        stale = Match.objects.get(pk=match_id).version
        response = submit(players[seat], match_id, view["deal"]["legal_actions"][0])
        assert response.status_code == 200
        from bots.tasks import choose

        assert computer_moves.time_out_turn(match_id=match_id, version=stale, choose=choose) is None
        time_runs_out(match_id)
        assert computer_moves.time_out_turn(match_id=match_id, version=stale, choose=choose) is None
        assert Action.objects.filter(match_id=match_id).count() == 1

    def test_timeouts_in_a_row_put_the_seat_on_autopilot_until_return(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, _ = to_act(players, match_id)
        for _ in range(2):  # AUTOPILOT_AFTER_TIMEOUTS
            acting, _ = to_act(players, match_id)
            while acting != seat:  # the others answer in time
                _, view = to_act(players, match_id)
                submit(players[acting], match_id, view["deal"]["legal_actions"][0])
                acting, _ = to_act(players, match_id)
            time_runs_out(match_id)
            assert sweeper.run_clocks() == 1
        seats = players[1].get(f"/matches/{match_id}").json()["seats"]
        assert seats[seat]["autopilot"] is True
        assert Seat.objects.get(match_id=match_id, index=seat).timeouts_in_row == 2
        back = players[seat].post(f"/matches/{match_id}/return")
        assert back.status_code == 200 and back.json()["seats"][seat]["autopilot"] is False

    def test_an_action_of_the_person_ends_the_autopilot(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, view = to_act(players, match_id)
        Seat.objects.filter(match_id=match_id, index=seat).update(timeouts_in_row=1)
        response = submit(players[seat], match_id, view["deal"]["legal_actions"][0])
        assert response.status_code == 200
        assert Seat.objects.get(match_id=match_id, index=seat).timeouts_in_row == 0


class TestExactClocks:
    """A probe found a card played 21 to 40 ms after `turn_deadline` accepted (only the clock
    sweep, every second, looked at deadlines), and `POST /return` after a time-out restarting
    the running clock. The clock is the deadline itself now."""

    def test_a_move_after_the_deadline_is_refused_and_the_stand_in_moves(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, view = to_act(players, match_id)
        Match.objects.filter(pk=match_id).update(
            turn_deadline=timezone.now() - timedelta(milliseconds=30)
        )
        action = view["deal"]["legal_actions"][0]
        late = players[seat].post(f"/matches/{match_id}/actions",
                                  {**action, "expected_version": 0},
                                  HTTP_ACCEPT_LANGUAGE="tr")
        problem(late, 409, "turn_timed_out")
        assert "süreniz doldu" in late.json()["detail"]
        # Refused, and the time-out made in the same unit of work: once, as the sweep would.
        rows = list(Action.objects.filter(match_id=match_id).values_list("seat", "origin"))
        assert rows == [(seat, "timeout")]
        assert Seat.objects.get(match_id=match_id, index=seat).timeouts_in_row == 1
        assert sweeper.run_clocks() == 0
        after = players[seat].view(match_id)
        assert after["version"] == 1 and after["deal"]["to_act"] != seat

    def test_a_move_of_another_seat_first_makes_the_time_out_that_is_due(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, view = to_act(players, match_id)
        time_runs_out(match_id)
        other = (seat + 1) % 4
        problem(players[other].post(f"/matches/{match_id}/actions",
                                    {"kind": "pass", "expected_version": 0}), 409,
                "stale_version")  # the match moved on by the stand-in's move for `seat`
        assert list(Action.objects.filter(match_id=match_id).values_list("seat", "origin")) == [
            (seat, "timeout")
        ]

    def test_a_move_before_the_deadline_is_taken(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, view = to_act(players, match_id)
        Match.objects.filter(pk=match_id).update(
            turn_deadline=timezone.now() + timedelta(milliseconds=500)
        )
        response = submit(players[seat], match_id, view["deal"]["legal_actions"][0])
        assert response.status_code == 200, response.content

    def test_coming_back_or_another_leaving_never_restarts_a_running_clock(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, _ = to_act(players, match_id)
        running = timezone.now() + timedelta(seconds=3)
        Match.objects.filter(pk=match_id).update(turn_deadline=running)
        # Back after a time-out, on turn or not: the deadline of the turn stays where it was.
        Seat.objects.filter(match_id=match_id).update(timeouts_in_row=1)
        for back in (seat, (seat + 1) % 4):
            response = players[back].post(f"/matches/{match_id}/return")
            assert response.status_code == 200, response.content
            assert Match.objects.get(pk=match_id).turn_deadline == running
            assert Seat.objects.get(match_id=match_id, index=back).timeouts_in_row == 0
        left = players[(seat + 2) % 4].post(f"/matches/{match_id}/leave")
        assert left.status_code == 200, left.content
        assert Match.objects.get(pk=match_id).turn_deadline == running


@pytest.mark.django_db(transaction=True)
def test_a_seat_on_autopilot_is_played_by_a_computer_player() -> None:
    players = [new_player(f"P{i}") for i in range(4)]
    match = create_match(players[0], deals=1, visibility="public", seats=OPEN3)
    for index in (1, 2, 3):
        players[index].post(f"/matches/{match['id']}/join", {"seat": index})
    seat, _ = to_act(players, match["id"])
    Seat.objects.filter(match_id=match["id"], index=seat).update(timeouts_in_row=1)
    time_runs_out(match["id"])
    assert sweeper.run_clocks() == 1  # the second timeout in a row: autopilot from now on
    # The others play on until the autopilot seat's turn has come (after a timeout's pass,
    # perhaps only in the play of the cards).
    autopilot = Action.objects.filter(match_id=match["id"], seat=seat, origin="autopilot")
    for _ in range(60):
        if autopilot.exists():
            break
        acting, view = to_act(players, match["id"])
        assert acting != seat, "the autopilot seat waits for a move"
        submit(players[acting], match["id"], view["deal"]["legal_actions"][0])
    origins = Counter(
        Action.objects.filter(match_id=match["id"], seat=seat).values_list("origin", flat=True)
    )
    assert origins["timeout"] == 1 and origins["autopilot"] >= 1 and origins["player"] == 0


# --- presence ------------------------------------------------------------------------------------


def test_presence_shows_who_is_connected(player, settings) -> None:
    match_id, players = table_of_four(player)
    players[2].view(match_id)
    seats = players[0].get(f"/matches/{match_id}").json()["seats"]
    assert seats[2]["connected"] is True and seats[2]["last_seen"] is not None
    Seat.objects.filter(match_id=match_id, index=3).update(
        last_seen=timezone.now() - timedelta(seconds=settings.PRESENCE_SECONDS + 1)
    )
    seats = players[0].get(f"/matches/{match_id}").json()["seats"]
    assert seats[3]["connected"] is False


def test_a_move_counts_as_presence_refused_or_not(player, settings) -> None:
    match_id, players = table_of_four(player)
    seat, view = to_act(players, match_id)
    long_ago = timezone.now() - timedelta(seconds=settings.PRESENCE_SECONDS + 1)
    Seat.objects.filter(match_id=match_id).update(last_seen=long_ago)
    # Its own answer already shows the mover connected.
    answer = submit(players[seat], match_id, view["deal"]["legal_actions"][0]).json()
    assert answer["seats"][seat]["connected"] is True
    assert Seat.objects.get(match_id=match_id, index=seat).last_seen > long_ago
    # A refused action (another seat's turn) counts too.
    other = next(i for i in range(4) if i != answer["deal"]["to_act"])
    Seat.objects.filter(match_id=match_id, index=other).update(last_seen=long_ago)
    refused = players[other].post(f"/matches/{match_id}/actions", {"kind": "pass"})
    assert refused.status_code in (409, 422), refused.content
    assert Seat.objects.get(match_id=match_id, index=other).last_seen > long_ago


# --- leaving -------------------------------------------------------------------------------------


class TestLeaving:
    def test_leaving_before_the_start_opens_the_seat(self, player) -> None:
        owner, guest = player(), player()
        match_id = create_match(owner, visibility="public", seats=OPEN3)["id"]
        guest.post(f"/matches/{match_id}/join", {"seat": 1})
        left = guest.post(f"/matches/{match_id}/leave")
        assert left.status_code == 200 and left.json()["seats"][1]["kind"] == "open"
        assert owner.get("/lobby").json()["results"][0]["open_seats"] == 3
        last = owner.post(f"/matches/{match_id}/leave").json()
        assert last["status"] == "cancelled"

    def test_leaving_in_play_hands_the_seat_to_a_computer_player(self, player) -> None:
        match_id, players = table_of_four(player)
        seat, _ = to_act(players, match_id)
        left = players[seat].post(f"/matches/{match_id}/leave")
        assert left.status_code == 200, left.content
        assert left.json()["seats"][seat]["left_at"] is not None
        problem(players[seat].post(f"/matches/{match_id}/leave"), 403, "not_your_seat")
        problem(players[seat].post(f"/matches/{match_id}/return"), 403, "not_your_seat")
        assert Match.objects.get(pk=match_id).turn_deadline is None  # nobody waits for a person

    def test_a_match_nobody_is_left_at_is_abandoned(self, player) -> None:
        match_id, players = table_of_four(player)
        for someone in players:
            body = someone.post(f"/matches/{match_id}/leave").json()
        assert body["status"] == "abandoned"

    def test_leaving_a_tour_match_forfeits_it(self, player) -> None:
        someone = player()
        started = someone.post("/tour/tables/kose-kahvesi/start")
        assert started.status_code == 201, started.content
        match_id = started.json()["id"]
        assert someone.post(f"/matches/{match_id}/leave").json()["status"] == "abandoned"
        tables = someone.get("/tour/tables").json()
        assert tables[0]["progress"]["played"] == 1 and tables[0]["progress"]["won"] == 0


# --- spectators ----------------------------------------------------------------------------------


class TestSpectators:
    def test_a_spectator_sees_no_hand(self, player) -> None:
        match_id, players = table_of_four(player)
        watcher = player("Watcher")
        response = watcher.get(f"/matches/{match_id}/spectate")
        assert response.status_code == 200, response.content
        body = response.json()
        assert_matches(body, "SpectatorView")
        assert "hand" not in body["deal"] and "legal_actions" not in body["deal"]
        assert body["spectators"] == 1
        assert watcher.get(f"/matches/{match_id}/events?wait=0").status_code == 200
        assert players[0].get(f"/matches/{match_id}").json()["spectators"] == 1
        problem(watcher.get(f"/matches/{match_id}/view"), 403, "not_your_seat")

    def test_a_private_match_cannot_be_watched(self, player) -> None:
        owner = player()
        match_id = create_match(owner, seats=OPEN3)["id"]
        problem(player().get(f"/matches/{match_id}/spectate"), 403, "match_not_public")
        problem(player().get(f"/matches/{match_id}/events?wait=0"), 403, "not_your_seat")


def test_quick_match_tables_that_will_get_computer_players_count_towards_the_limits(
    player, settings
) -> None:
    settings.MAX_BOT_SEAT_DEALS = 20
    someone = player()
    body = {"game": "auction", "deals": 6, "fill_with_bots_after": 600}
    assert someone.post("/quick-match", body).status_code == 200  # 3 seats of 6 deals to come
    response = someone.post("/quick-match", {**body, "deals": 1})
    problem(response, 409, "too_many_bot_deals")
    waiting_for_people = {**body, "deals": 1, "fill_with_bots_after": None}
    assert someone.post("/quick-match", waiting_for_people).status_code == 200


# --- regressions of a review -------------------------------------------------------------------


def test_a_person_who_left_can_no_longer_act(player) -> None:
    match_id, players = table_of_four(player)
    seat, view = to_act(players, match_id)
    players[seat].post(f"/matches/{match_id}/leave")
    problem(submit(players[seat], match_id, view["deal"]["legal_actions"][0]), 403,
            "not_your_seat")


def test_the_sweeper_sees_a_stand_in_turn_after_the_person_left(player, settings) -> None:
    settings.BOT_STALE_AFTER_SECONDS = 0
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    match_id, players = table_of_four(player)
    seat, _ = to_act(players, match_id)
    assert sweeper.stuck_bot_turns() == []  # a person is to act: noted as waiting for them
    players[seat].post(f"/matches/{match_id}/leave")
    assert [stuck for stuck, _ in sweeper.stuck_bot_turns()] == [match_id]


def test_joining_counts_towards_the_account_limits(player, settings) -> None:
    settings.MAX_UNFINISHED_MATCHES = 1
    busy = player()
    create_match(busy, seats=OPEN3)
    other = create_match(player(), visibility="public", seats=OPEN3)
    problem(busy.post(f"/matches/{other['id']}/join"), 409, "too_many_matches")
