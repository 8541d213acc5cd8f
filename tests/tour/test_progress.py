"""Progress through the tour over the API: what opens when, replays, and every finished match
counted exactly once. Matches are ended directly here (`finish`); `test_full_tables.py` plays
them out."""

import threading

import pytest
from django.db import connection

from games.models import Match, MatchStatus, Seat
from tests.api.conftest import new_player
from tests.api.schema import assert_matches
from tour import content
from tour.models import TableProgress, TourMatch

from .conftest import finish, open_tables, open_up_to, start, tables

FIRST, SECOND, THIRD = (table.slug for table in content.TABLES[:3])


class TestTheTour:
    def test_a_newcomer_sees_five_tables_with_only_the_first_open(self, player) -> None:
        response = player("Ayşe").get("/tour/tables")
        assert response.status_code == 200
        body = response.json()
        for table in body:
            assert_matches(table, "TourTable")
        assert [table["slug"] for table in body] == [table.slug for table in content.TABLES]
        assert [table["open"] for table in body] == [True, False, False, False, False]
        assert body[0]["progress"] == {"played": 0, "won": 0, "best_place": None,
                                       "best_total": None}
        assert [c["name"] for c in body[0]["characters"]] == ["Rıfat Amca", "Nermin Teyze",
                                                             "Kaan"]
        assert body[-1]["rules"]["min_bid"] == 5 and body[-1]["deal_count"] == 4

    def test_the_partnership_table_seats_a_partner_opposite(self, player) -> None:
        partnership = next(t for t in content.TABLES if t.game == "partnership")
        table = player().get(f"/tour/tables/{partnership.slug}").json()
        assert [(c["seat"], c["role"]) for c in table["characters"]] == [
            (1, "opponent"), (2, "partner"), (3, "opponent")]

    def test_one_table_and_an_unknown_one(self, player) -> None:
        someone = player()
        assert someone.get(f"/tour/tables/{FIRST}").json()["open"] is True
        response = someone.get("/tour/tables/nowhere")
        assert response.status_code == 404 and response.json()["code"] == "not_found"

    def test_the_tour_needs_an_account(self, client) -> None:
        assert client.get("/api/v1/tour/tables").status_code == 401


class TestStart:
    def test_starts_a_four_deal_match_against_the_tables_characters(self, player) -> None:
        someone = player("Ayşe")
        match = start(someone, FIRST)
        assert_matches(match, "Match")
        assert match["status"] == "active" and match["deal_count"] == 4
        assert match["rules"]["game"] == "auction" and match["rules"]["min_bid"] == 4
        characters = content.TABLES[0].characters
        assert [(s["kind"], s["display_name"], s["bot_level"]) for s in match["seats"]] == [
            ("person", "Ayşe", None),
            *(("bot", c.name, c.level) for c in characters),
        ]
        seats = Seat.objects.filter(match_id=match["id"]).order_by("index")
        assert [seat.character for seat in seats] == ["", *(c.slug for c in characters)]
        assert seats[0].user_id == someone.user_id
        assert TourMatch.objects.get(match_id=match["id"]).table == FIRST
        assert someone.get(f"/matches/{match['id']}/view").json()["seat"] == 0

    def test_a_locked_table_refuses_with_409(self, player) -> None:
        someone = player()
        response = someone.post(f"/tour/tables/{SECOND}/start")
        assert response.status_code == 409 and response.json()["code"] == "table_locked"
        assert not Match.objects.exists()

    def test_an_unknown_table_is_404_in_the_request_language(self, player) -> None:
        response = player().post("/tour/tables/nowhere/start", HTTP_ACCEPT_LANGUAGE="tr")
        assert response.status_code == 404
        assert response.json()["detail"] == "Masa Turu'nda böyle bir masa yok."

    def test_a_table_rule_variant_reaches_the_match(self, player) -> None:
        someone = player()
        open_up_to(someone, THIRD)
        match = start(someone, THIRD)
        assert match["game"] == "spades" and match["rules"]["spades_announcements"] is True


class TestUnlocking:
    def test_first_place_opens_the_next_table_and_only_that(self, player) -> None:
        someone = player()
        match = start(someone, FIRST)
        assert open_tables(someone) == [FIRST]
        finish(match["id"], [1, 2, 3, 4], [120, 60, 40, -20])
        assert open_tables(someone) == [FIRST, SECOND]
        assert tables(someone)[FIRST]["progress"] == {"played": 1, "won": 1, "best_place": 1,
                                                     "best_total": 120}

    def test_a_shared_first_place_opens_the_next_table(self, player) -> None:
        someone = player()
        match = start(someone, FIRST)
        # Equal totals and equal tricks in the last deal: the engine shares first place.
        finish(match["id"], [1, 1, 3, 4], [90, 90, 40, -20])
        assert open_tables(someone) == [FIRST, SECOND]
        assert tables(someone)[FIRST]["progress"]["won"] == 1

    def test_second_place_does_not(self, player) -> None:
        someone = player()
        match = start(someone, FIRST)
        finish(match["id"], [2, 1, 3, 4], [90, 90, 40, -20])
        assert open_tables(someone) == [FIRST]
        assert tables(someone)[FIRST]["progress"] == {"played": 1, "won": 0, "best_place": 2,
                                                     "best_total": 90}
        assert someone.post(f"/tour/tables/{SECOND}/start").status_code == 409

    def test_a_win_opens_the_next_table_even_unread(self, player) -> None:
        """Starting the next table right after the last card, without reading the tour."""
        someone = player()
        finish(start(someone, FIRST)["id"], [1, 2, 3, 4], [120, 60, 40, -20])
        assert start(someone, SECOND)["rules"]["game"] == "auction"

    def test_the_partnership_table_counts_the_team_place(self, player) -> None:
        someone = player()
        partnership = next(t for t in content.TABLES if t.game == "partnership")
        open_up_to(someone, partnership.slug)
        match = start(someone, partnership.slug)
        finish(match["id"], [1, 2, 1, 2], [140, 60, 140, 60])
        following = content.next_table(partnership)
        assert following is not None and following.slug in open_tables(someone)

    def test_players_progress_apart(self, player) -> None:
        winner, other = player("A"), player("B")
        finish(start(winner, FIRST)["id"], [1, 2, 3, 4], [120, 60, 40, -20])
        assert open_tables(winner) == [FIRST, SECOND]
        assert open_tables(other) == [FIRST]


class TestReplays:
    def test_any_open_table_can_be_played_again_keeping_the_best(self, player) -> None:
        someone = player()
        finish(start(someone, FIRST)["id"], [1, 2, 3, 4], [120, 60, 40, -20])
        finish(start(someone, FIRST)["id"], [3, 1, 2, 4], [150, 200, 160, -20])
        finish(start(someone, SECOND)["id"], [4, 1, 2, 3], [-40, 90, 80, 60])
        finish(start(someone, FIRST)["id"], [1, 4, 2, 3], [100, -20, 60, 30])
        progress = tables(someone)
        assert progress[FIRST]["progress"] == {"played": 3, "won": 2, "best_place": 1,
                                              "best_total": 150}
        assert progress[SECOND]["progress"] == {"played": 1, "won": 0, "best_place": 4,
                                               "best_total": -40}
        # A later loss never closes a table again.
        assert open_tables(someone) == [FIRST, SECOND]

    def test_a_match_in_play_or_abandoned_counts_for_nothing(self, player) -> None:
        someone = player()
        start(someone, FIRST)
        abandoned = start(someone, FIRST)
        Match.objects.filter(pk=abandoned["id"]).update(status=MatchStatus.ABANDONED)
        assert tables(someone)[FIRST]["progress"]["played"] == 0
        assert not TableProgress.objects.exists()


class TestMatchResult:
    def test_in_play_then_finished(self, player) -> None:
        someone = player()
        match = start(someone, FIRST)
        response = someone.get(f"/tour/matches/{match['id']}")
        assert response.status_code == 200
        body = response.json()
        assert_matches(body, "TourMatch")
        assert (body["table"], body["place"], body["won"], body["next_table"]) == (
            FIRST, None, None, None)
        assert body["match"]["id"] == match["id"]
        finish(match["id"], [1, 3, 4, 2], [120, 20, -40, 60])
        body = someone.get(f"/tour/matches/{match['id']}").json()
        assert_matches(body, "TourMatch")
        assert (body["place"], body["won"], body["next_table"]) == (1, True, SECOND)
        assert body["match"]["status"] == "finished"

    def test_a_loss_opens_nothing(self, player) -> None:
        someone = player()
        match = start(someone, FIRST)
        finish(match["id"], [3, 1, 4, 2], [20, 120, -40, 60])
        body = someone.get(f"/tour/matches/{match['id']}").json()
        assert (body["place"], body["won"], body["next_table"]) == (3, False, None)

    def test_only_its_player_sees_it(self, player) -> None:
        match = start(player(), FIRST)
        response = player().get(f"/tour/matches/{match['id']}")
        assert response.status_code == 404 and response.json()["code"] == "not_found"

    def test_a_match_outside_the_tour_is_not_a_tour_match(self, player) -> None:
        someone = player()
        match = someone.post("/matches", {}).json()
        assert someone.get(f"/tour/matches/{match['id']}").status_code == 404


class TestCountedOnce:
    def test_however_often_it_is_read(self, player) -> None:
        someone = player()
        match = start(someone, FIRST)
        finish(match["id"], [1, 2, 3, 4], [120, 60, 40, -20])
        for _ in range(3):
            assert someone.get(f"/tour/matches/{match['id']}").status_code == 200
            tables(someone)
            someone.get(f"/tour/tables/{FIRST}")
        start(someone, FIRST)
        assert tables(someone)[FIRST]["progress"]["played"] == 1
        assert TourMatch.objects.get(match_id=match["id"]).recorded


@pytest.mark.django_db(transaction=True)
def test_counted_once_under_concurrent_reads(settings) -> None:
    # Twelve reads of one account at once, all in flight (not refused: games/api/in_flight.py).
    settings.API_MAX_IN_FLIGHT_PER_ACCOUNT = 100
    someone = new_player("Ayşe")
    matches = [start(someone, FIRST)["id"] for _ in range(2)]
    for match_id in matches:
        finish(match_id, [1, 2, 3, 4], [120, 60, 40, -20])
    paths = [f"/tour/matches/{match_id}" for match_id in matches] + ["/tour/tables"] * 2
    statuses: list[int] = []

    def read(path: str) -> None:
        try:
            statuses.append(someone.get(path).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=read, args=(path,)) for path in paths * 3]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * len(threads)
    progress = TableProgress.objects.get(user_id=someone.user_id, table=FIRST)
    assert (progress.played, progress.won) == (2, 2)
