"""A partner platform follows its own matches with its key (`matches:read`): the match, the
event feed, the live stream, the spectator's view and the ended deals' records, as their
creator. Never another's match (404, as if it did not exist), never a seat's hand in play, and
nothing else of the API for people (403 `platform_key_not_accepted`)."""

from __future__ import annotations

import random

import pytest
from rest_framework.test import APIClient

from platforms.models import Scope
from tests import sse
from tests.api.conftest import API, create_match, new_player
from tests.platforms.conftest import PlatformClient, new_platform, play_to_the_end, problem

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = [{"kind": "player", "external_id": f"p{seat}"} for seat in range(4)]
READS = ["", "/events?after=0&wait=0", "/spectate", "/deals", "/deals/1"]


def platform_match(platform: PlatformClient, deals: int = 1) -> tuple[str, dict[int, APIClient]]:
    apps = {seat: platform.player(f"p{seat}") for seat in range(4)}
    response = platform.post("/matches", {"game": "auction", "deals": deals, "seats": PLAYERS,
                                          "clock": None})
    assert response.status_code == 201, response.content
    return response.json()["id"], apps


def test_a_platform_reads_its_own_match_as_it_is_played(platform) -> None:
    match_id, apps = platform_match(platform, deals=2)
    key = platform.client
    rng = random.Random(5)
    for _ in range(6):  # a few moves of the first deal
        view = apps[0].get(f"{API}/matches/{match_id}/view").json()
        seat = view["deal"]["to_act"]
        seat_view = apps[seat].get(f"{API}/matches/{match_id}/view").json()
        action = rng.choice(seat_view["deal"]["legal_actions"])
        assert apps[seat].post(f"{API}/matches/{match_id}/actions", action,
                               format="json").status_code == 200

    summary = key.get(f"{API}/matches/{match_id}")
    assert summary.status_code == 200, summary.content
    events = key.get(f"{API}/matches/{match_id}/events?after=0&wait=0").json()["events"]
    assert [event["version"] for event in events] == list(range(1, 7))
    # The private match's table as a spectator sees it: no hand while the deal is in play.
    table = key.get(f"{API}/matches/{match_id}/spectate")
    assert table.status_code == 200, table.content
    assert table.json()["deal"]["phase"] in ("auction", "trump", "play")
    assert "hand" not in table.json()["deal"]
    # Nor a seat's view of it (that is the seat's own).
    problem(key.get(f"{API}/matches/{match_id}/view"), 403, "platform_key_not_accepted")
    # The ended deals' records, once there are some.
    assert key.get(f"{API}/matches/{match_id}/deals").json() == []
    play_to_the_end(platform, apps, match_id, rng)
    assert len(key.get(f"{API}/matches/{match_id}/deals").json()) == 2
    assert key.get(f"{API}/matches/{match_id}/deals/1").status_code == 200


def test_a_platform_streams_its_own_match(platform) -> None:
    match_id, apps = platform_match(platform)
    play_to_the_end(platform, apps, match_id, random.Random(8))
    response = platform.client.get(f"{API}/matches/{match_id}/stream",
                                   HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200
    got = sse.parse(b"".join(response.streaming_content))
    actions = [message.json() for message in got if message.event == "action"]
    feed = apps[0].get(f"{API}/matches/{match_id}/events?after=0&limit=500").json()["events"]
    assert actions == feed
    assert got[-1].event == "end"


def test_never_another_platforms_match_nor_a_persons(platform, other_platform) -> None:
    theirs, _ = platform_match(other_platform)
    person = new_player("Ayşe")
    public = create_match(person, deals=1, visibility="public",
                          seats=[{"kind": "me"}, *[{"kind": "open"}] * 3])["id"]
    key = platform.client
    for match_id in (theirs, public):
        for read in (*READS, "/stream"):
            problem(key.get(f"{API}/matches/{match_id}{read}"), 404, "not_found")


def test_a_key_without_matches_read_is_refused(platform) -> None:
    match_id, _ = platform_match(platform)
    writer = new_platform("Writes only", scopes=[Scope.PLAYERS_WRITE.value,
                                                 Scope.MATCHES_WRITE.value])
    for read in READS:
        problem(writer.client.get(f"{API}/matches/{match_id}{read}"), 403, "missing_scope")


@pytest.mark.parametrize(("method", "path", "body"), [
    ("get", "/me", None),
    ("get", "/matches", None),
    ("post", "/matches", {"deals": 1, "seats": [{"kind": "me"}, *[{"kind": "open"}] * 3]}),
    ("get", "/lobby", None),
    ("post", "/auth/logout", {}),
    ("get", "/tour/tables", None),
])
def test_a_key_does_nothing_else_of_the_api_for_people(platform, method, path, body) -> None:
    response = getattr(platform.client, method)(f"{API}{path}", body, format="json")
    problem(response, 403, "platform_key_not_accepted")


def test_a_key_makes_no_move_in_its_own_match(platform) -> None:
    match_id, apps = platform_match(platform)
    view = apps[0].get(f"{API}/matches/{match_id}/view").json()
    action = view["deal"]["legal_actions"][0] if view["deal"]["legal_actions"] else {
        "kind": "pass"}
    for path, body in ((f"/matches/{match_id}/actions", action),
                       (f"/matches/{match_id}/leave", {}), (f"/matches/{match_id}/cancel", {})):
        problem(platform.client.post(f"{API}{path}", body, format="json"), 403,
                "platform_key_not_accepted")



def test_a_key_reads_its_matchs_rematch_offer_and_makes_none(platform) -> None:
    match_id, apps = platform_match(platform)
    rematch = f"{API}/matches/{match_id}/rematch"
    play_to_the_end(platform, apps, match_id, random.Random(3))
    problem(platform.client.get(rematch), 404, "not_found")  # nobody offered one
    assert apps[0].post(rematch, {}, format="json").status_code == 201
    offer = platform.client.get(rematch)
    assert offer.status_code == 200, offer.content
    assert offer.json()["offered_by"] == 0
    problem(platform.client.post(rematch, {}, format="json"), 403, "platform_key_not_accepted")


def test_a_match_made_before_circles_is_the_platforms_after_the_migration(platform) -> None:
    import importlib

    from django.apps import apps

    from games.models import Match

    platform.player("ext-1")
    made = platform.post("/matches", {"game": "auction", "deals": 1, "seats": [
        {"kind": "player", "external_id": "ext-1"}, {"kind": "bot", "bot_level": "easy"},
        {"kind": "bot", "bot_level": "easy"}, {"kind": "bot", "bot_level": "easy"}]}).json()
    Match.objects.filter(pk=made["id"]).update(circle=None)  # as before circles
    migration = importlib.import_module("platforms.migrations.0012_circles_of_older_matches")
    migration.circles_of_older_matches(apps, None)
    assert Match.objects.get(pk=made["id"]).circle_id == platform.platform.user_id
    assert platform.get(f"/matches/{made['id']}").status_code == 200
