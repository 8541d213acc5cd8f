"""A platform follows every event of its matches and players on one stream, with one cursor
across matches: in each match's order, exactly once across reconnections, filtered by type and
match, never another platform's."""

from __future__ import annotations

import random
import uuid
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import event_log
from platforms import events as platform_events
from platforms import stream
from platforms.api import stream as stream_api
from platforms.models import PlatformStreamEvent, Scope
from tests import sse
from tests.platforms.conftest import API, PlatformClient, new_platform, play_to_the_end, problem
from tests.platforms.test_platform_reads import platform_match

pytestmark = pytest.mark.django_db

MATCH = uuid.uuid4()
STREAM = f"{API}/platform/stream"


def emit(platform: PlatformClient, *types: str, match_id: uuid.UUID = MATCH) -> None:
    platform_events.emit(platform.platform.pk, [
        (event_type, {"match_id": str(match_id), "version": 1}) for event_type in types
    ])


@pytest.fixture(autouse=True)
def short_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streams served in a thread (the test client's) end after a moment, with all there is."""
    monkeypatch.setattr(stream_api, "MAX_WSGI_SECONDS", 0.3)


def read(platform: PlatformClient, query: str = "", **headers: str) -> list[sse.Message]:
    """The events of a new stream (its comments and retry left out)."""
    response = platform.client.get(f"{STREAM}{query}", HTTP_ACCEPT="text/event-stream",
                                   **headers)
    assert response.status_code == 200, response.content
    return [message for message in sse.parse(b"".join(response.streaming_content))
            if message.event not in ("comment", "retry")]


def test_every_event_of_every_match_in_order_and_resumed_exactly_once(platform) -> None:
    # No subscription wants any of them: the stream has them all the same.
    other = uuid.uuid4()
    emit(platform, "match.started", "turn.started")
    emit(platform, "turn.started", match_id=other)
    emit(platform, "deal.ended", "match.finished")

    first = read(platform, "?after=0.0")
    assert [(message.event, message.json()["data"]["match_id"]) for message in first] == [
        ("match.started", str(MATCH)), ("turn.started", str(MATCH)),
        ("turn.started", str(other)), ("deal.ended", str(MATCH)), ("match.finished", str(MATCH))]
    assert [message.json()["sequence"] for message in first if message.json()["data"][
        "match_id"] == str(MATCH)] == [1, 2, 3, 4]
    cursors = [event_log.Cursor.parse(message.id or "") for message in first]
    assert cursors == sorted(cursors)  # type: ignore[type-var]
    # Resumed after the third: the two after it, then what came since, nothing twice.
    emit(platform, "rematch.offered")
    again = read(platform, HTTP_LAST_EVENT_ID=first[2].id)
    assert [message.event for message in again] == [
        "deal.ended", "match.finished", "rematch.offered"]
    assert [message.id for message in again[:2]] == [message.id for message in first[3:]]


def test_a_stream_without_a_cursor_starts_now(platform) -> None:
    emit(platform, "match.started")
    response = platform.client.get(STREAM, HTTP_ACCEPT="text/event-stream")
    # Served in a thread: it says how long it lasts and where streams last longer.
    assert "stream server" in response["X-Stream-Notice"]
    chunks = iter(response.streaming_content)
    assert sse.parse(next(chunks))[0].event == "retry"
    emit(platform, "turn.started")
    got = sse.parse(b"".join(chunks))
    assert [message.event for message in got if message.event not in ("comment", "retry")] \
        == ["turn.started"]


def test_filters_by_type_and_match_and_nothing_of_another_platform(platform) -> None:
    other_platform = new_platform("Beta Games")
    other = uuid.uuid4()
    emit(other_platform, "turn.started", "deal.ended")
    emit(platform, "turn.started", "deal.ended")
    emit(platform, "turn.started", "match.finished", match_id=other)
    emit(platform, "rating.changed", match_id=other)

    types = read(platform, "?after=0.0&event_type=turn.started&event_type=rating.changed")
    assert [(message.event, message.json()["data"]["match_id"]) for message in types] == [
        ("turn.started", str(MATCH)), ("turn.started", str(other)),
        ("rating.changed", str(other))]
    one_match = read(platform, f"?after=0.0&match_id={other}")
    assert [message.event for message in one_match] == [
        "turn.started", "match.finished", "rating.changed"]
    mine = {message.json()["data"]["match_id"] for message in read(platform, "?after=0.0")}
    assert mine == {str(MATCH), str(other)}


def test_refusals(platform) -> None:
    for bad in ("?after=1", "?after=1.2.3", "?after=x.1", "?event_type=nothing",
                "?match_id=7"):
        problem(platform.client.get(f"{STREAM}{bad}"), 400, "invalid_input")
    problem(platform.client.get(STREAM, HTTP_LAST_EVENT_ID="12"), 400, "invalid_last_event_id")
    reader = new_platform("Gamma Games", scopes=[Scope.PLAYERS_READ.value])
    problem(reader.client.get(STREAM), 403, "missing_scope")


def test_a_whole_match_streams_as_its_webhooks_would_send_it(platform) -> None:
    match_id, apps = platform_match(platform)
    play_to_the_end(platform, apps, match_id, random.Random(3))
    rows = PlatformStreamEvent.objects.filter(platform=platform.platform).order_by("txid", "id")
    got = read(platform, "?after=0.0")
    assert [message.event for message in got] == [row.type for row in rows]
    assert got[0].event == "match.started" and got[-1].event == "match.finished"
    sequences = [message.json()["sequence"] for message in got]
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)


def test_the_stream_keeps_its_events_for_the_retention(platform, settings) -> None:
    settings.PLATFORM_STREAM_RETENTION_HOURS = 1
    emit(platform, "turn.started", "deal.ended")
    PlatformStreamEvent.objects.filter(type="turn.started").update(
        created_at=timezone.now() - timedelta(hours=2))
    assert stream.LOG.purge() == 1
    assert list(PlatformStreamEvent.objects.values_list("type", flat=True)) == ["deal.ended"]


@pytest.mark.django_db(transaction=True)
def test_the_stream_server_sends_each_event_as_it_is_committed(asgi_server) -> None:
    platform = new_platform("Live Games")
    follower = sse.Follower(asgi_server, "", platform.key, scheme="Api-Key",
                            path="/api/v1/platform/stream")
    assert follower.status == 200
    messages = iter(follower)
    assert next(messages).event == "retry"  # open, from now
    try:
        for number in range(3):
            with transaction.atomic():
                emit(platform, "turn.started", match_id=uuid.UUID(int=number))
            got = next(message for message in messages if message.event != "comment")
            assert got.json()["data"]["match_id"] == str(uuid.UUID(int=number))
    finally:
        follower.close()


def test_a_batch_is_followed_on_the_stream(platform) -> None:
    for name in ("p0", "p1", "p2"):
        platform.player(name)

    def table(name: str) -> dict[str, object]:
        return {"game": "auction", "deals": 1, "seats": [
            {"kind": "player", "external_id": name}, *[{"kind": "bot", "bot_level": "easy"}] * 3]}

    batch = platform.post("/batches", {"matches": [table("p0"), table("p1")]}).json()
    alone = platform.post("/matches", table("p2")).json()
    got = read(platform, f"?after=0.0&batch_id={batch['id']}&event_type=match.started")
    assert sorted(message.json()["data"]["match_id"] for message in got) == sorted(
        match["id"] for match in batch["matches"])
    assert alone["id"] not in {message.json()["data"]["match_id"] for message in got}
    problem(platform.client.get(f"{STREAM}?batch_id={uuid.uuid4()}"), 404, "not_found")
