"""A match's and an ended deal's notation, and a match started from a deal's notation."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

from games.engine import Card, TableRules
from games.engine.notation import read_deal, read_match, write_deal
from games.engine.play import next_seat_table
from games.engine.shuffle import hands_from_deck
from games.models import Match

from .conftest import create_match, play_random_turn
from .schema import _document
from .test_contract import assert_problem

MEDIA_TYPE = "text/x-batak-notation; charset=utf-8"
GOLDEN = Path(__file__).parent.parent / "engine" / "golden"


def four_people(player, **body):
    """Four people seated 0..3 at a started match created with ``body``."""
    players = [player(f"P{i}") for i in range(4)]
    body = {"deals": 1, **body}
    match = create_match(players[0], visibility="public",
                         seats=[{"kind": "me"}] + [{"kind": "open"}] * 3, **body)
    for index, someone in enumerate(players[1:], start=1):
        response = someone.post(f"/matches/{match['id']}/join", {"seat": index})
        assert response.status_code == 200, response.content
    return match["id"], players


def play_to_the_end(players, match_id: str, seed: int) -> None:
    rng = random.Random(seed)
    while players[0].view(match_id)["status"] == "active":
        play_random_turn(players, match_id, rng)


def notation(someone, path: str, **headers) -> str:
    response = someone.get(path, **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == MEDIA_TYPE
    assert response["Content-Disposition"].startswith('attachment; filename="batak-')
    return response.content.decode()


class TestExport:
    def test_a_finished_match_and_its_deals_as_notation(self, player) -> None:
        match_id, players = four_people(player, game="spades",
                                        rules={"spades_announcements": True})
        play_to_the_end(players, match_id, seed=3)
        records = players[1].get(f"/matches/{match_id}/deals").json()
        text = notation(players[1], f"/matches/{match_id}/notation")
        match = read_match(text)
        assert [deal.start.to_dict()["hands"] for deal in match.deals] == [
            record["hands"] for record in records
        ]
        assert match.names == ("P0", "P1", "P2", "P3")
        row = Match.objects.get(pk=match_id)
        assert match.replay().totals == row.totals and match.replay().is_over
        for record in records:
            deal_text = notation(players[2],
                                 f"/matches/{match_id}/deals/{record['sequence']}/notation",
                                 HTTP_ACCEPT=MEDIA_TYPE)
            deal = read_deal(deal_text)
            assert [{"seat": s, **a.to_dict()} for s, a in deal.log] == record["actions"]
            assert [str(Card(i)) for i in deal.start.deck or ()] == record["deck"]
            assert write_deal(deal.start, deal.log) == deal_text

    def test_a_live_match_shows_no_card_of_the_deal_in_play(self, player) -> None:
        match_id, players = four_people(player)
        play_random_turn(players, match_id, random.Random(1))
        text = notation(players[0], f"/matches/{match_id}/notation")
        assert read_match(text).deals == ()
        assert "[Hand" not in text and "[Deal " not in text
        assert_problem(players[0].get(f"/matches/{match_id}/deals/1/notation"), 404,
                       "not_found")

    def test_read_as_the_deal_records_are(self, player) -> None:
        match_id, players = four_people(player)
        play_to_the_end(players, match_id, seed=5)
        stranger = player("S")
        # A public match's spectator reads its feed, not its deals.
        for path in ("notation", "deals/1/notation"):
            assert_problem(stranger.get(f"/matches/{match_id}/{path}"), 403, "not_your_seat")
        assert_problem(players[0].get(f"/matches/{match_id}/deals/9/notation"), 404,
                       "not_found")
        assert_problem(players[0].get(
            "/matches/6990c34b-402a-4832-b7a0-91140a5b4ddf/notation"), 404, "not_found")


def golden(name: str = "standard_made.bdn") -> str:
    return (GOLDEN / name).read_text()


class TestImport:
    def test_the_first_deal_is_dealt_with_the_notations_cards(self, player) -> None:
        text = golden()
        imported = read_deal(text).start
        waiting = create_match(player("C"), deal=text, visibility="public",
                               seats=[{"kind": "me"}] + [{"kind": "open"}] * 3)
        lobby = player("L").get("/lobby").json()["results"]
        assert [table["deal_imported"] for table in lobby if table["id"] == waiting["id"]] == [
            True]
        match_id, players = four_people(player, deal=text, deals=2)
        summary = players[2].get(f"/matches/{match_id}").json()
        assert summary["deal_imported"] is True and summary["rated"] is False
        assert summary["game"] == "auction" and summary["rules"] == imported.rules.to_dict()
        for seat, someone in enumerate(players):
            view = someone.view(match_id)
            assert view["deal_imported"] is True
            assert view["deal"]["dealer"] == imported.dealer
            assert sorted(view["deal"]["hand"]) == sorted(imported.to_dict()["hands"][seat])
        commitment = players[0].view(match_id)["deal"]["commitment"]
        play_to_the_end(players, match_id, seed=2)
        record = players[0].get(f"/matches/{match_id}/deals/1").json()
        assert record["hands"] == imported.to_dict()["hands"]
        # The deck commitment holds: the revealed order deals these hands from the dealer.
        digest = hashlib.sha256(f"{' '.join(record['deck'])}:{record['salt']}".encode())
        assert digest.hexdigest() == record["commitment"] == commitment
        deck = [Card.parse(card).index for card in record["deck"]]
        assert tuple(hands_from_deck(deck, imported.dealer, next_seat_table(False))) == \
            imported.hands
        assert Match.objects.get(pk=match_id).table_key == ""
        # Later deals are shuffled as usual.
        later = players[0].get(f"/matches/{match_id}/deals/2").json()
        assert later["hands"] != record["hands"] and later["dealer"] == 0

    def test_the_request_may_repeat_the_deals_game_and_rules(self, player) -> None:
        text = golden("contract_scoring.bdn")
        created = create_match(player("A"), deal=text, game="auction",
                               rules={"scoring": "contract"})
        assert created["deal_imported"] is True
        assert created["rules"] == TableRules.create("auction", scoring="contract").to_dict()
        assert create_match(player("B"))["deal_imported"] is False

    def test_refusals(self, player) -> None:
        someone = player("A")
        text = golden()
        body = assert_problem(someone.post("/matches", {"deal": text.replace("0 6,", "0 3,")}),
                              400, "invalid_deal")
        assert body["field"] == "deal" and body["line"] == 13
        assert "line 13" in body["detail"]
        assert_problem(someone.post("/matches", {"deal": "hello"}), 400, "invalid_deal")
        assert_problem(someone.post("/matches", {"deal": text, "game": "spades"}), 400,
                       "deal_rules_differ")
        assert_problem(someone.post("/matches", {"deal": text, "rules": {"min_bid": 5}}), 400,
                       "deal_rules_differ")
        assert_problem(someone.post("/matches", {
            "deal": text, "rated": True,
            "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot_level": "easy"},
                      {"kind": "bot", "bot_level": "easy"}],
        }), 400, "imported_deal_not_rated")

    def test_refusals_speak_the_requests_language(self, player) -> None:
        someone = player("A")
        bad = golden().replace('[Dealer "3"]', '[Dealer "3"]\n[Dealer "3"]')
        english = someone.post("/matches", {"deal": bad}).json()["detail"]
        for language in ("es", "fr", "pt", "ru", "tr"):
            detail = someone.post("/matches", {"deal": bad},
                                  HTTP_ACCEPT_LANGUAGE=language).json()["detail"]
            assert detail != english and "5" in detail, language
        illegal = golden().replace("0 6,", "0 3,")
        turkish = someone.post("/matches", {"deal": illegal},
                               HTTP_ACCEPT_LANGUAGE="tr").json()["detail"]
        english = someone.post("/matches", {"deal": illegal}).json()["detail"]
        assert turkish != english and "0 3" in turkish


def test_the_schema_documents_the_text_and_its_file_name() -> None:
    for path, name in (("/api/v1/matches/{match_id}/notation", "getMatchNotation"),
                       ("/api/v1/matches/{match_id}/deals/{sequence}/notation",
                        "getDealNotation")):
        operation = _document()["paths"][path]["get"]
        assert operation["operationId"] == name
        ok = operation["responses"]["200"]
        assert list(ok["content"]) == ["text/x-batak-notation"]
        assert ok["headers"]["Content-Disposition"]["required"] is True
        for example in ok["content"]["text/x-batak-notation"]["examples"].values():
            (read_match if name == "getMatchNotation" else read_deal)(example["value"])
        assert {"401", "403", "404"} <= set(operation["responses"])
