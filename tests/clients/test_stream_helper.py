"""The Python stream helper (clients/python/batak_sse.py) with a client generated from the
committed schema, against a scripted server: events typed by the generated models, an event it
does not know passed through, a stream closed early resumed with `Last-Event-ID`, and, when
asked, the events after `end` (ratings, rematch, the last deal's analysis) read until the server
closes the stream."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "openapi" / "schema.yaml"
EVENT = {"version": 1, "deal_number": 1, "deal_sequence": 1, "seat": 2, "submitted_by": 2,
         "origin": "player", "kind": "play", "card": "9S",
         "created_at": "2026-12-03T10:00:00+00:00"}
DEAL_ENDED = {"version": 2, "deal_number": 1, "deal_sequence": 1, "scores": [5, -3, 2, 1],
              "outcomes": ["made", "down", "scored", "scored"], "totals": [5, -3, 2, 1]}
END = 'id: 2\nevent: end\ndata: {"version": 2, "status": "finished"}\n\n'
OLD_ID, NEW_ID = str(uuid.uuid4()), str(uuid.uuid4())
RATINGS = {"changes": [{"seat": 0, "place": 1, "rating_before": 1500, "rating_after": 1523,
                        "delta": 23, "deviation": 190}]}
OFFER = {"match_id": OLD_ID, "status": "open", "offered_by": 0,
         "seats": [{"seat": 0, "new_seat": 1, "asked": True, "answer": "accepted"},
                   {"seat": 1, "new_seat": 0, "asked": True, "answer": None}],
         "created_at": "2026-12-03T10:00:00+00:00", "expires_at": "2026-12-03T10:02:00+00:00",
         "new_match_id": None}
READY = {"match_id": OLD_ID, "deal_sequence": 3, "partial": False,
         "players": [{"seat": 1, "points_given_up": 12.5, "points_given_up_known": 20.0,
                      "judged": 13, "inaccuracies": 1, "mistakes": 1, "blunders": 0}]}
AFTER_END = (
    f"event: rating_changed\ndata: {json.dumps(RATINGS)}\n\n: heartbeat\n\n"
    f"event: rematch_offered\ndata: {json.dumps(OFFER)}\n\n"
    f"event: rematch_offered\ndata: "
    f"{json.dumps({**OFFER, 'status': 'accepted', 'new_match_id': NEW_ID})}\n\n"
    f"event: rematch_started\ndata: "
    f"{json.dumps({'match_id': OLD_ID, 'new_match_id': NEW_ID})}\n\n"
    f"event: analysis_ready\ndata: {json.dumps(READY)}\n\n"
)


@pytest.fixture(scope="module")
def sse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    generated = tmp_path_factory.mktemp("client") / "python"
    subprocess.run(
        [Path(sys.executable).parent / "openapi-python-client", "generate", "--path", SCHEMA,
         "--output-path", generated],
        check=True, capture_output=True,
    )
    sys.path[:0] = [str(generated), str(ROOT / "clients" / "python")]
    try:
        yield importlib.import_module("batak_sse")
    finally:
        del sys.path[:2]
        for name in [name for name in sys.modules
                     if name == "batak_sse" or name.startswith("batak_api_client")]:
            del sys.modules[name]


def _client(bodies: list[str], seen: list[httpx.Request]) -> Any:
    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = bodies[len(seen) - 1]
        return httpx.Response(204 if body == "" else 200, text=body,
                              headers={"Content-Type": "text/event-stream"})

    client_module = importlib.import_module("batak_api_client")
    return client_module.AuthenticatedClient(
        base_url="http://batak.test", token="secret", prefix="Token",
        httpx_args={"transport": httpx.MockTransport(answer)},
    )


def test_events_are_typed_unknown_ones_pass_and_a_closed_stream_resumes(sse) -> None:
    seen: list[httpx.Request] = []
    client = _client([
        # closed by the server after an action, a heartbeat and an event the helper does not know
        f"retry: 10\n\nid: 1\nevent: action\ndata: {json.dumps(EVENT)}\n\n: heartbeat\n\n"
        'event: clock\ndata: {"version": 1, "deadline": null}\n\n'
        'event: rematch_proposed\ndata: {"seat": 3}\n\n',
        f"event: action\ndata: {json.dumps({**EVENT, 'version': 2})}\n\n"
        f"id: 2\nevent: deal_ended\ndata: {json.dumps(DEAL_ENDED)}\n\n"
        'event: seats\ndata: {"seats": [{"seat": 0, "open": false, "ready": true, '
        '"autopilot": true, "left": false}]}\n\n' + END,
    ], seen)
    action, clock, other, last_card, result, seats, end = list(sse.follow(client, uuid.uuid4()))
    assert isinstance(action, sse.ActionMessage) and action.version == 1
    assert type(action.event).__name__ == "PlayEvent"
    assert action.event.card.name == "NINE_OF_SPADES"
    assert isinstance(clock, sse.ClockMessage) and clock.clock.deadline is None
    assert (other.name, other.id, json.loads(other.data)) == ("rematch_proposed", None, {"seat": 3})
    assert isinstance(last_card, sse.ActionMessage) and last_card.version == 2
    assert isinstance(result, sse.DealEndedMessage) and result.result.totals == [5, -3, 2, 1]
    assert isinstance(seats, sse.SeatsMessage) and seats.seats.seats[0].autopilot
    assert isinstance(end, sse.EndMessage)
    assert (end.end.version, end.end.status.value) == (2, "finished")
    assert "Last-Event-ID" not in seen[0].headers and seen[0].url.params["after"] == "0"
    assert seen[1].headers["Last-Event-ID"] == "1"
    assert seen[0].headers["Authorization"] == "Token secret"


def test_a_match_over_with_nothing_to_send_ends_the_stream(sse) -> None:
    seen: list[httpx.Request] = []
    assert list(sse.follow(_client([""], seen), uuid.uuid4(), after=7)) == []
    assert seen[0].url.params["after"] == "7"


def test_by_default_the_stream_stops_at_end(sse) -> None:
    seen: list[httpx.Request] = []
    messages = list(sse.follow(_client([END + AFTER_END], seen), uuid.uuid4()))
    assert [type(message).__name__ for message in messages] == ["EndMessage"]


def test_after_end_ratings_rematch_and_analysis_are_typed_until_the_server_closes(sse) -> None:
    seen: list[httpx.Request] = []
    # a request more would fail (no body scripted for it): the stream closed after `end` is over
    messages = list(sse.follow(_client([END + AFTER_END], seen), uuid.uuid4(), after_end=True))
    end, ratings, offered, accepted, started, ready = messages
    assert isinstance(end, sse.EndMessage)
    assert isinstance(ratings, sse.RatingChangedMessage)
    change = ratings.ratings.changes[0]
    assert (change.seat, change.rating_before, change.rating_after, change.delta) == (
        0, 1500, 1523, 23)
    assert isinstance(offered, sse.RematchOfferedMessage)
    assert offered.offer.status.value == "open" and offered.offer.new_match_id is None
    assert str(offered.offer.match_id) == OLD_ID
    assert offered.offer.seats[0].answer.value == "accepted"
    assert offered.offer.seats[1].answer is None
    assert offered.offer.expires_at.minute == 2
    assert isinstance(accepted, sse.RematchOfferedMessage)
    assert accepted.offer.status.value == "accepted"
    assert str(accepted.offer.new_match_id) == NEW_ID
    assert isinstance(started, sse.RematchStartedMessage)
    assert (str(started.started.match_id), str(started.started.new_match_id)) == (OLD_ID, NEW_ID)
    assert isinstance(ready, sse.AnalysisReadyMessage)
    assert (ready.ready.deal_sequence, ready.ready.partial) == (3, False)
    player = ready.ready.players[0]
    assert (player.seat, player.points_given_up, player.mistakes) == (1, 12.5, 1)
    assert len(seen) == 1


def test_after_end_a_stream_resumed_before_end_reads_on_and_a_204_ends_it(sse) -> None:
    seen: list[httpx.Request] = []
    client = _client([
        f"retry: 10\n\nid: 1\nevent: action\ndata: {json.dumps(EVENT)}\n\n",  # closed early
        END + f"event: rating_changed\ndata: {json.dumps(RATINGS)}\n\n",
    ], seen)
    names = [type(m).__name__ for m in sse.follow(client, uuid.uuid4(), after_end=True)]
    assert names == ["ActionMessage", "EndMessage", "RatingChangedMessage"]
    assert seen[1].headers["Last-Event-ID"] == "1" and len(seen) == 2
    assert list(sse.follow(_client([""], []), uuid.uuid4(), after_end=True)) == []
