"""Push-first play: a seat's stream carries its own news (its hand when a deal starts, its
`turn` with what it may do) among the public events, in one order with the version as the id,
so that a person plays a whole match with one stream and one POST per own action, and nobody
else hears a card that is not theirs."""

from __future__ import annotations

import random

import pytest

from tests import sse
from tests.integration.harness import client

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_person_plays_a_whole_match_from_the_stream_alone(asgi_server) -> None:
    me = client.guest(asgi_server, "Me")
    bot = {"kind": "bot", "bot_level": "easy"}
    match_id = client.expect(me.post(f"{client.API}/matches", {
        "deals": 2, "visibility": "public", "seats": [{"kind": "me"}, bot, bot, bot]}),
        201, "match")["id"]
    watcher = client.guest(asgi_server, "Watcher")
    played = client.play_from_stream(me, match_id, random.Random(7))
    feed = client.expect(me.get(f"{client.API}/matches/{match_id}/events?limit=500"), 200,
                         "feed")
    assert feed["status"] == "finished"
    assert sum(m.event == "retry" for m in played.messages) == 1  # one stream
    assert played.moves == sum(event["submitted_by"] == 0 for event in feed["events"])
    got = played.messages
    assert [m.json() for m in got if m.event == "action"] == feed["events"]
    # A hand when each deal starts, as it was dealt.
    hands = [m.json() for m in got if m.event == "hand"]
    assert [hand["deal_sequence"] for hand in hands] == [1, 2]
    for hand in hands:
        record = client.expect(me.get(
            f"{client.API}/matches/{match_id}/deals/{hand['deal_sequence']}"), 200, "deal")
        assert sorted(hand["hand"]) == sorted(record["hands"][0])
    # A turn exactly when it is the seat's move, at the version it may act at.
    events = {event["version"]: event for event in feed["events"]}
    turns = [m.json() for m in got if m.event == "turn"]
    assert [turn["version"] for turn in turns] == [
        event["version"] - 1 for event in feed["events"] if event["submitted_by"] == 0]
    assert all(events[turn["version"] + 1]["kind"] in
               {action["kind"] for action in turn["legal_actions"]} for turn in turns)
    # A turn closes its version: a client resuming from it misses nothing of it.
    assert all(m.id == str(m.json()["version"]) for m in got if m.event == "turn")
    # Someone else following the finished match hears no hand and no turn.
    other = [m.event for m in sse.Follower(asgi_server, match_id, watcher.token)]
    assert "action" in other and not {"hand", "turn"} & set(other)


def test_a_stream_opened_mid_deal_tells_the_hand_now_and_the_turn(asgi_server) -> None:
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    rng = random.Random(2)
    for _ in range(6):  # a few moves in, by the view
        view = client.view(me, match_id)
        while not client.my_turn(view):
            client.events(me, match_id, view["version"], 5)
            view = client.view(me, match_id)
        client.expect(client.act(me, match_id, client.random_action(view, rng),
                                 expected_version=view["version"]), 200, "move")
    view = client.view(me, match_id)
    while not client.my_turn(view):
        client.events(me, match_id, view["version"], 5)
        view = client.view(me, match_id)
    follower = sse.Follower(asgi_server, match_id, me.token,
                            last_event_id=str(view["version"]))
    heard = []
    for message in follower:
        heard.append(message)
        if message.event == "turn":
            break
    follower.close()
    hand = next(m.json() for m in heard if m.event == "hand")
    turn = next(m.json() for m in heard if m.event == "turn")
    assert hand["version"] == turn["version"] == view["version"]
    assert hand["hand"] == view["deal"]["hand"]
    assert turn["legal_actions"] == view["deal"]["legal_actions"]
    assert turn["legal_cards"] == view["deal"]["legal_cards"]
    assert turn["refusals"] == view["deal"]["refusals"]
