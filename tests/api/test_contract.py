"""The contract generated clients rely on: the cursor of the event feed, errors as documented,
one version per response, strict inputs and the schema's own promises."""

from __future__ import annotations

import json
import random
import time
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import Permission
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from games import services
from games.models import Action, Match

from .conftest import API, create_match, play_random_turn, table_of_four
from .schema import _document, assert_matches, assert_matches_schema

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = json.loads(response.content)
    assert body["code"] == code and body["status"] == status
    assert_matches(body, "Problem")
    # One rendering for every problem: compact UTF-8, whichever layer answered.
    assert response.content == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    return body


def play_to_the_end(players, match_id: str, seed: int) -> None:
    rng = random.Random(seed)
    while players[0].view(match_id)["status"] == "active":
        play_random_turn(players, match_id, rng)


def follow_feed(someone, match_id: str, limit: int) -> list[dict]:
    """Every event, as a client following the documented cursor sees them."""
    seen, after = [], 0
    while True:
        response = someone.get(f"/matches/{match_id}/events?after={after}&wait=0&limit={limit}")
        assert response.status_code == 200
        page = response.json()
        assert_matches(page, "EventPage")
        assert len(page["events"]) <= limit
        seen += page["events"]
        expected = page["events"][-1]["version"] if page["has_more"] else page["version"]
        assert page["next_after"] == expected
        after = page["next_after"]
        if not page["has_more"]:
            assert after == page["version"]
            return seen


# --- the event feed ----------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 7, 200])
def test_following_the_cursor_sees_every_event_once_in_order(player, limit) -> None:
    match_id, players = table_of_four(player, game="spades", deals=1)
    play_to_the_end(players, match_id, seed=limit)
    final = Match.objects.get(pk=match_id).version
    versions = [event["version"] for event in follow_feed(players[2], match_id, limit)]
    assert versions == list(range(1, final + 1))


def test_a_page_never_reaches_past_the_version_it_names(player) -> None:
    match_id, players = table_of_four(player)
    play_random_turn(players, match_id, random.Random(1))
    page = players[0].get(f"/matches/{match_id}/events?after=0&wait=0").json()
    assert page["version"] == 1 and page["next_after"] == 1 and not page["has_more"]
    assert [e["version"] for e in page["events"]] == [1]


def test_a_match_ended_without_an_action_leaves_nothing_more_to_follow(player) -> None:
    # Abandoning makes a version without an action: the cursor passes it, and a client that
    # follows `has_more` stops instead of asking again forever.
    match_id, players = table_of_four(player)
    play_random_turn(players, match_id, random.Random(1))
    services.abandon_match(match_id=match_id)
    page = players[0].get(f"/matches/{match_id}/events?after=0&wait=0").json()
    assert page["version"] == 2 and page["status"] == "abandoned"
    assert page["next_after"] == 2 and not page["has_more"]
    assert [e["version"] for e in page["events"]] == [1]


def test_a_dummy_card_names_the_dummy_and_who_submitted_it(player) -> None:
    match_id, players = table_of_four(player, game="partnership", partnership_dummy=True)
    play_to_the_end(players, match_id, seed=3)
    record = players[0].get(f"/matches/{match_id}/deals").json()[-1]
    owner = {card["card"]: card["seat"] for trick in record["tricks"] for card in trick["cards"]}
    declarer = record["declarer"]
    plays = [e for e in follow_feed(players[0], match_id, 50) if e["kind"] == "play"]
    assert plays and all(event["seat"] == owner[event["card"]] for event in plays)
    dummy_cards = [event for event in plays if event["seat"] == (declarer + 2) % 4]
    assert len(dummy_cards) == 13
    assert all(event["submitted_by"] == declarer for event in dummy_cards)
    assert all(e["submitted_by"] == e["seat"] for e in plays if e not in dummy_cards)


# --- errors as documented ----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
def test_unknown_api_paths_answer_a_problem_for_every_method(player, method) -> None:
    someone = player("A")
    response = getattr(someone.client, method)(f"{API}/matches/0/actions")
    assert_problem(response, 404, "not_found")


def test_a_session_without_csrf_token_gets_a_problem_not_a_page(player, django_user_model) -> None:
    user = django_user_model.objects.create_user("sessioned", password="kozmaca-2026")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert_problem(browser.post(f"{API}/matches/0/actions"), 404, "not_found")
    body = assert_problem(
        browser.post(f"{API}/matches", {}, content_type="application/json"), 403, "csrf_failed"
    )
    assert "CSRF" in body["detail"]


def test_an_api_request_without_a_session_skips_the_browsers_middleware(player) -> None:
    someone = player("A")
    made = mock.Mock(side_effect=AssertionError("a session made for a token's request"))
    with mock.patch.object(SessionStore, "__init__", made):
        assert someone.get("/matches").status_code == 200
        assert someone.get("/matches/0/view").status_code == 404
    made.assert_not_called()


def test_problems_are_in_the_request_language(player) -> None:
    someone = player("A")
    body = assert_problem(
        someone.get(f"{API}/nowhere", HTTP_ACCEPT_LANGUAGE="tr"), 404, "not_found"
    )
    assert body["title"] == "Bulunamadı" and body["detail"] == "Bulunamadı."


def test_malformed_json_is_a_problem(player) -> None:
    someone = player("A")
    response = someone.client.post(f"{API}/matches", "{nope", content_type="application/json")
    assert_problem(response, 400, "malformed_request")


def test_deeply_nested_json_is_refused_without_a_server_error(player) -> None:
    someone = player("A")
    body = "[" * 1000 + "]" * 1000
    response = someone.client.post(f"{API}/matches", body, content_type="application/json")
    assert_problem(response, 400, "malformed_request")
    nested = '{"rules":' * 20 + "{}" + "}" * 20
    response = someone.client.post(f"{API}/matches", nested, content_type="application/json")
    assert_problem(response, 400, "malformed_request")


def test_a_body_that_is_not_json_is_415(player) -> None:
    someone = player("A")
    response = someone.client.post(f"{API}/matches", "game=auction", content_type="text/plain")
    assert_problem(response, 415, "unsupported_media_type")


@pytest.mark.parametrize(
    "query", ["page=0", "page=x", "page_size=0", "page_size=101", "status=AAA"]
)
def test_list_parameters_outside_the_schema_are_400(player, query) -> None:
    someone = player("A")
    assert_problem(someone.get(f"/matches?{query}"), 400, "invalid_input")


def test_a_page_past_the_last_is_a_documented_404(player) -> None:
    someone = player("A")
    assert "404" in _document()["paths"]["/api/v1/matches"]["get"]["responses"]
    assert_problem(someone.get("/matches?page=2"), 404, "not_found")


@pytest.mark.parametrize(
    "query", ["after=-1", "wait=31", "limit=0", "limit=501", "after=x"]
)
def test_event_parameters_outside_the_schema_are_400(player, query) -> None:
    someone = player("A")
    match = create_match(someone)
    assert_problem(someone.get(f"/matches/{match['id']}/events?{query}"), 400, "invalid_input")


# --- strict inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"gmae": "spades"}, "gmae"),
        ({"rules": {"min_bids": 5}}, "rules.min_bids"),
        ({"seats": [{"kind": "me", "colour": "red"}, {"kind": "open"}, {"kind": "open"},
                    {"kind": "open"}]}, "seats[0].colour"),
    ],
)
def test_unknown_fields_are_refused_not_ignored(player, body, field) -> None:
    someone = player("A")
    problem = assert_problem(someone.post("/matches", body), 400, "unknown_field")
    assert problem["errors"] == [
        {"field": field, "code": "unknown_field", "message": "This field is not part of the API."}
    ]
    assert Match.objects.count() == 0


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/matches", {"deals": "4"}),
        ("/matches", {"deals": True}),
        ("/matches", {"game": 1}),
        ("/matches", {"rules": {"must_trump": "true"}}),
        ("/matches", {"rules": {"min_bid": 9}}),
        ("/matches", {"seats": [{"kind": "me", "display_name": 0}, {"kind": "open"},
                                {"kind": "open"}, {"kind": "open"}]}),
        ("/auth/guest", {"display_name": 0}),
        ("/auth/register", {"username": "ayşe", "password": "kozmaca-2026"}),
    ],
)
def test_values_of_the_wrong_type_or_range_are_refused(player, path, body) -> None:
    someone = player("A")
    assert_problem(someone.post(path, body), 400, "invalid_input")


def test_card_and_suit_strings_follow_their_pattern(player) -> None:
    match_id, players = table_of_four(player)
    for card in ({"card": "1H"}, {"card": " AS"}, {"card": 12}, {"card": "AS", "x": 1}):
        response = players[0].post(f"/matches/{match_id}/actions", {"kind": "play", **card})
        assert response.status_code == 400
    response = players[0].post(f"/matches/{match_id}/actions", {"kind": "trump", "suit": "X"})
    assert_problem(response, 400, "invalid_input")


def test_join_answers_the_seat_taken(player) -> None:
    owner, guest = player("A"), player("B")
    match = create_match(owner, visibility="public",
                         seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"},
                                {"kind": "bot", "bot_level": "easy"}])
    response = guest.post(f"/matches/{match['id']}/join", {"seat": 2})
    assert response.status_code == 200
    body = response.json()
    assert_matches(body, "Joined")
    assert body["seat"] == 2 and body["match"]["seats"][2]["kind"] == "person"


# --- one version per response ------------------------------------------------------------------
# Computer players move once the move that hands them the turn commits: these tests commit.


def test_a_match_of_computer_players_answers_what_a_read_right_after_shows(
    player, transactional_db, django_user_model
) -> None:
    someone = player("A")
    django_user_model.objects.get(pk=someone.user_id).user_permissions.add(
        Permission.objects.get(codename="play_bot_only_matches")
    )
    created = create_match(someone, deals=8, seats=[{"kind": "bot", "bot_level": "easy"}] * 4)
    # On the embedded default a table of computer players alone plays on in the background: the
    # request that made it does not wait for eight deals.
    assert created["status"] == "active" and created["deals_played"] < 8
    assert created["version"] == Action.objects.filter(
        match_id=created["id"], version__lte=created["version"]
    ).count()
    deadline = time.monotonic() + 120
    while (fetched := someone.get(f"/matches/{created['id']}").json())["status"] == "active":
        assert time.monotonic() < deadline, "the computer players stopped"
        time.sleep(0.2)
    assert fetched["status"] == "finished" and fetched["deals_played"] == 8
    assert fetched["version"] == Action.objects.filter(match_id=created["id"]).count()


def test_an_action_answers_the_state_right_after_it(player, transactional_db) -> None:
    someone = player("A")
    match = create_match(someone, seats=[{"kind": "me"}] + [{"kind": "bot",
                                                             "bot_level": "easy"}] * 3)
    view = someone.view(match["id"])
    assert view["deal"]["to_act"] == 0
    action = view["deal"]["legal_actions"][0]
    answer = someone.post(f"/matches/{match['id']}/actions", action).json()
    mine = Action.objects.get(match_id=match["id"], seat=0, version=answer["version"])
    assert mine.kind == action["kind"]
    # The answer holds nothing of a later version: a replay up to it gives the same view.
    later = Action.objects.filter(match_id=match["id"], version__gt=answer["version"])
    assert answer["deal"] is None or all(
        row.payload.get("card") not in str(answer["deal"]["tricks"]) for row in later
        if row.kind == "play"
    )


# --- the schema's own promises -----------------------------------------------------------------


OPERATION_IDS = {
    "getApiRoot", "createGuest", "register", "logIn", "logOut", "logOutEverywhere", "getMe",
    "closeAccount", "exportMyData",
    "listRulePresets", "listMatches",
    "createMatch", "getMatch", "joinMatch", "getSeatView", "getBidEstimate", "getHint",
    "submitAction", "listEvents",
    "streamEvents", "streamMyEvents",
    "listDeals", "getDeal", "getDealAnalysis", "getDealNotation", "getMatchNotation",
    "listTourTables",
    "getTourTable", "startTourTable", "getTourMatch",
    "listLobby", "quickMatch", "getInvitation", "renewInvitation", "revokeInvitation",
    "joinByInvitation", "cancelMatch", "leaveMatch", "returnToSeat", "readyForMatch",
    "spectateMatch", "getRematch", "offerRematch", "acceptRematch", "declineRematch",
    "getLeaderboard", "getLeaderboardAroundMe", "getLeaderboardEntry",
    "putPlatformPlayer", "getPlatformPlayer", "listPlatformPlayers", "patchPlatformPlayer",
    "deletePlatformPlayer", "refreshPlatformPlayerToken", "revokePlatformPlayerTokens",
    "listPlatformMatches", "createPlatformMatch", "getPlatformMatch", "cancelPlatformMatch",
    "getPlatformLeaderboard",
    "listPlatformWebhooks", "createPlatformWebhook", "deletePlatformWebhook",
    "listPlatformWebhookDeliveries", "redeliverPlatformWebhookDelivery", "replayPlatformWebhook",
    "recoverPlatformWebhook", "streamPlatformEvents", "listPlatformMatchBatches",
    "createPlatformMatchBatch", "getPlatformMatchBatch", "cancelPlatformMatchBatch",
    "getPlatformPlayerProfile", "listPlatformPlayerMatches",
    "getPlayer", "listPlayerMatches", "listPlayerRatings", "getPrivacy", "patchPrivacy",
    "getDailyDealSet", "createDealSet", "getDealSet", "playDealSet", "getDealSetResults",
}


def test_operation_ids_are_the_stable_sdk_names() -> None:
    found = {
        operation["operationId"]
        for operations in _document()["paths"].values()
        for operation in operations.values()
    }
    assert found == OPERATION_IDS


def test_every_error_is_documented_as_a_problem_document() -> None:
    for path, operations in _document()["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status[0] in "45":
                    assert list(response["content"]) == [PROBLEM], (method, path, status)
            assert {"413", "429"} <= set(operation["responses"]), (method, path)
            if "requestBody" in operation:
                assert "415" in operation["responses"], (method, path)


def test_request_objects_are_closed() -> None:
    schemas = _document()["components"]["schemas"]
    requests = [
        name for name, schema in schemas.items()
        if name.endswith("Request") and "oneOf" not in schema
    ]
    assert requests and all(schemas[name]["additionalProperties"] is False for name in requests)


def test_a_seat_of_a_new_match_is_one_kind_and_at_most_one_is_mine() -> None:
    schemas = _document()["components"]["schemas"]
    assert "bot_level" in schemas["BotSeatRequest"]["required"]
    assert "bot_level" not in schemas["MeSeatRequest"]["properties"]
    seats = schemas["MatchCreateRequest"]["properties"]["seats"]
    assert (seats["minItems"], seats["maxItems"], seats["maxContains"]) == (4, 4, 1)


def _properties_with_defaults(node: Any) -> list[tuple[str, Any]]:
    found = []
    if isinstance(node, dict):
        for name, schema in (node.get("properties") or {}).items():
            if isinstance(schema, dict) and "default" in schema:
                found.append((name, schema))
        for value in node.values():
            found += _properties_with_defaults(value)
    elif isinstance(node, list):
        for value in node:
            found += _properties_with_defaults(value)
    return found


def test_every_documented_default_is_valid_for_its_own_schema() -> None:
    # A default outside its enum made openapi-python-client drop an operation from the client.
    document = _document()
    for name, schema in _properties_with_defaults(document):
        assert_matches_schema(schema["default"], {k: v for k, v in schema.items()
                                                  if k != "default"}), name



def test_a_rule_changed_to_null_matches_the_lobby_tables_schema() -> None:
    """`rule_changes` takes any value, null included: a nullable child was `oneOf` of any value
    and null, which a null matches twice, so `oneOf` refused it (and typed generators made
    types that do not exist of it)."""
    rule_changes = _document()["components"]["schemas"]["LobbyTable"]["properties"][
        "rule_changes"]
    assert_matches_schema({"min_bid": None, "clock": 5, "dummy": True}, rule_changes)
