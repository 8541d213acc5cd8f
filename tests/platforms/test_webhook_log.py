"""The delivery log: kept after its subscription is deleted (whose pending deliveries are
cancelled), purged past WEBHOOK_LOG_RETENTION_DAYS; a delivery sent again and a range of events
replayed over the platform API, with their own webhook-ids, never two pending at once."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.models import Match, MatchStatus
from platforms import events as platform_events
from platforms import tasks, transport, webhooks
from platforms.api.serializers import SubscriptionInputSerializer
from platforms.models import (
    DeliveryStatus,
    EventType,
    WebhookDelivery,
    WebhookEvent,
    WebhookMatchSequence,
    WebhookSubscription,
)
from runtime import work

from .conftest import API, new_platform, problem

MATCH = uuid.uuid4()


def hooked(platform, types=("deal.ended", "turn.started")) -> int:
    response = platform.post("/webhooks", {"url": "https://a.example/h", "event_types": types})
    assert response.status_code == 201, response.content
    return response.json()["id"]


def events(platform, *types: str, match_id: uuid.UUID = MATCH) -> list[WebhookEvent]:
    """A move's events, those of the subscriptions' types (without a commit, nothing is
    sent)."""
    made_before = set(WebhookEvent.objects.values_list("pk", flat=True))
    platform_events.emit(platform.platform.pk, [
        (event_type, {"match_id": str(match_id), "version": 1}) for event_type in types
    ])
    return list(WebhookEvent.objects.exclude(pk__in=made_before).order_by("sequence"))


def test_a_deleted_subscription_is_sent_nothing_and_its_log_stays(platform) -> None:
    webhook = hooked(platform)
    events(platform, "deal.ended")
    WebhookDelivery.objects.update(status=DeliveryStatus.SUCCEEDED)
    events(platform, "turn.started")
    assert platform.client.delete(f"{API}/platform/webhooks/{webhook}").status_code == 204
    assert platform.get("/webhooks").json() == []
    log = platform.get(f"/webhooks/{webhook}/deliveries")
    assert log.status_code == 200
    rows = log.json()["results"]
    assert [(row["event_type"], row["status"]) for row in rows] == [
        ("turn.started", "cancelled"), ("deal.ended", "succeeded")]
    assert rows[0]["match_id"] == str(MATCH) and rows[0]["sequence"] == 2
    events(platform, "deal.ended")
    assert WebhookDelivery.objects.count() == 2  # nothing more for it
    assert webhooks.due_deliveries() == []
    problem(platform.client.delete(f"{API}/platform/webhooks/{webhook}"), 404, "not_found")
    delivery = WebhookDelivery.objects.first()
    assert delivery is not None
    problem(platform.post(f"/webhooks/{webhook}/deliveries/{delivery.pk}/redeliver"), 404,
            "not_found")
    problem(platform.post(f"/webhooks/{webhook}/replay", {"since": "2026-01-01T00:00:00Z"}),
            404, "not_found")


def test_an_attempt_under_way_when_deleted_is_not_recorded_nor_retried(platform) -> None:
    hooked(platform)
    [event] = events(platform, "deal.ended")
    claimed = webhooks._claim(WebhookDelivery.objects.get().pk)
    assert claimed is not None
    webhooks.delete_subscription(claimed.subscription)
    original = transport.post_all
    try:
        transport.post_all = lambda *args: [transport.Outcome(500, "", 0.0)]  # type: ignore[assignment]
        assert webhooks.attempt(claimed.pk) is None  # cancelled: not claimed again
    finally:
        transport.post_all = original
    assert WebhookDelivery.objects.get().status == DeliveryStatus.CANCELLED
    assert event.deliveries.get().last_error == "the subscription was deleted"


def test_the_purge_removes_what_is_past_retention(platform, settings) -> None:
    settings.WEBHOOK_LOG_RETENTION_DAYS = 30
    kept, gone = hooked(platform), hooked(platform, ["turn.started"])
    old = events(platform, "deal.ended", "turn.started")
    recent = events(platform, "deal.ended")
    long_ago = timezone.now() - timedelta(days=31)
    WebhookEvent.objects.filter(pk__in=[event.pk for event in old]).update(created_at=long_ago)
    WebhookDelivery.objects.filter(event__in=old, subscription_id=kept).update(
        status=DeliveryStatus.SUCCEEDED)
    # An old event with a delivery still pending (to `gone`, until it is deleted) is kept.
    assert webhooks.purge_log() == 1
    assert set(WebhookEvent.objects.values_list("pk", flat=True)) == {
        old[1].pk, recent[0].pk}
    webhooks.delete_subscription(WebhookSubscription.objects.get(pk=gone))
    WebhookSubscription.objects.filter(pk=gone).update(deleted_at=long_ago)
    assert webhooks.purge_log() == 2  # the subscription, then its old event
    assert list(WebhookSubscription.objects.values_list("pk", flat=True)) == [kept]
    assert list(WebhookEvent.objects.values_list("pk", flat=True)) == [recent[0].pk]
    assert "purge-webhook-log" in {
        job.name for job in work.JOBS if job.task is tasks.purge_webhook_log}


def test_a_delivery_is_sent_again_on_the_platform_s_request(platform, other_platform) -> None:
    webhook = hooked(platform)
    events(platform, "deal.ended")
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.update(status=DeliveryStatus.FAILED, attempts=11,
                                   last_status_code=503, last_error="HTTP 503")
    path = f"/webhooks/{webhook}/deliveries/{delivery.pk}/redeliver"
    answer = platform.post(path)
    assert answer.status_code == 202, answer.content
    body = answer.json()
    assert body["id"] == delivery.pk and body["status"] == "pending"
    assert body["event_id"] == delivery.event_id and body["next_attempt_at"]
    problem(other_platform.post(path), 404, "not_found")
    problem(platform.post(f"/webhooks/{webhook}/deliveries/{delivery.pk + 1}/redeliver"), 404,
            "not_found")
    reader = new_platform("Reader", scopes=["matches:read"])
    problem(reader.post(path), 403, "missing_scope")
    # While an attempt is under way, that attempt is the one more.
    claimed = webhooks._claim(delivery.pk)
    assert claimed is not None
    assert platform.post(path).status_code == 202
    delivery.refresh_from_db()
    assert delivery.in_flight_until is not None and delivery.attempts == 12


def test_a_range_of_events_is_replayed(platform, monkeypatch) -> None:
    webhook = hooked(platform)
    other_match = uuid.uuid4()
    before = timezone.now()
    first = events(platform, "deal.ended", "turn.started")
    second = events(platform, "deal.ended", match_id=other_match)
    events(platform, "match.finished")  # not a type of the subscription: no event
    assert WebhookEvent.objects.count() == 3
    WebhookDelivery.objects.filter(event=first[0]).update(
        status=DeliveryStatus.SUCCEEDED, attempts=1, delivered_at=timezone.now())
    WebhookDelivery.objects.filter(event=second[0]).delete()  # (e.g. subscribed after it)
    replay = platform.post(f"/webhooks/{webhook}/replay", {"since": before.isoformat()})
    assert replay.status_code == 202, replay.content
    assert replay.json() == {"count": 3, "next_since": None}
    rows = WebhookDelivery.objects.order_by("event__created_at", "event__sequence")
    assert [(row.event_id, row.status, row.attempts) for row in rows] == [
        (first[0].pk, "pending", 0), (first[1].pk, "pending", 0), (second[0].pk, "pending", 0)]
    # Again, at once: nothing pending twice (one row per subscription and event).
    assert platform.post(f"/webhooks/{webhook}/replay",
                         {"since": before.isoformat()}).json()["count"] == 3
    assert WebhookDelivery.objects.count() == 3
    WebhookDelivery.objects.update(status=DeliveryStatus.SUCCEEDED)
    only = platform.post(f"/webhooks/{webhook}/replay", {
        "since": before.isoformat(), "event_types": ["deal.ended"],
        "match_id": str(other_match)})
    assert only.json()["count"] == 1
    assert list(WebhookDelivery.objects.filter(status="pending").values_list(
        "event_id", flat=True)) == [second[0].pk]
    monkeypatch.setattr(webhooks, "REPLAY_MAX_EVENTS", 2)
    bounded = platform.post(f"/webhooks/{webhook}/replay", {"since": before.isoformat()}).json()
    assert bounded["count"] == 2 and bounded["next_since"]
    rest = platform.post(f"/webhooks/{webhook}/replay", {"since": bounded["next_since"]})
    assert rest.json() == {"count": 1, "next_since": None}
    nothing = platform.post(f"/webhooks/{webhook}/replay", {
        "since": before.isoformat(), "until": before.isoformat()})
    problem(nothing, 400, "invalid_input")
    assert [error["field"] for error in nothing.json()["errors"]] == ["until"]


def test_a_subscription_may_want_every_event_type() -> None:
    field = SubscriptionInputSerializer().fields["event_types"]
    assert field.max_length == len(EventType.choices) + 1  # and `*`


def test_a_subscription_to_every_type_gets_each_type_and_replays_them(platform) -> None:
    response = platform.post("/webhooks", {"url": "https://a.example/h",
                                           "event_types": ["*", "deal.ended"]})
    assert response.status_code == 201, response.content
    assert response.json()["event_types"] == ["*"]
    webhook = response.json()["id"]
    made = events(platform, "deal.ended", "turn.started", "rating.changed")
    assert sorted(WebhookDelivery.objects.values_list("event__type", flat=True)) == sorted(
        event.type for event in made)
    WebhookDelivery.objects.update(status=DeliveryStatus.FAILED)
    replayed = platform.post(f"/webhooks/{webhook}/replay", {
        "since": (timezone.now() - timedelta(minutes=1)).isoformat()})
    assert replayed.status_code == 202, replayed.content
    assert WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).count() == 3
    problem(platform.post("/webhooks", {"url": "https://a.example/h", "event_types": ["**"]}),
            400, "invalid_input")


def test_a_match_idle_past_retention_goes_on_with_its_sequence(platform, settings) -> None:
    """The purge removes a match's old events, never its counter while it may still emit: the
    next event does not start again at 1 (a receiver keeping the newest would drop it)."""
    settings.WEBHOOK_LOG_RETENTION_DAYS = 30
    hooked(platform)
    idle = events(platform, "deal.ended", "turn.started")
    WebhookDelivery.objects.update(status=DeliveryStatus.SUCCEEDED)
    WebhookEvent.objects.update(created_at=timezone.now() - timedelta(days=31))
    assert webhooks.purge_log() == 2 and not WebhookEvent.objects.exists()
    [later] = events(platform, "deal.ended")
    assert [event.sequence for event in idle] == [1, 2]
    assert later.sequence == later.payload["sequence"] == 3
    # Once the match has ended and none of its events is left, its counter goes too.
    ended = Match.objects.create(
        game="auction", rules={}, deal_count=1, status=MatchStatus.FINISHED, first_dealer=0,
        created_by=platform.platform.user)
    events(platform, "deal.ended", match_id=ended.pk)
    WebhookDelivery.objects.update(status=DeliveryStatus.SUCCEEDED)
    WebhookEvent.objects.update(created_at=timezone.now() - timedelta(days=31))
    assert webhooks.purge_log() == 2
    assert list(WebhookMatchSequence.objects.values_list("match_id", "last")) == [(MATCH, 3)]


def test_a_match_s_sequence_is_given_once(platform) -> None:
    hooked(platform)
    [event] = events(platform, "deal.ended")
    with pytest.raises(IntegrityError), transaction.atomic():
        WebhookEvent.objects.create(id="msg_again", platform=platform.platform,
                                    type="deal.ended", payload={}, match_id=MATCH,
                                    sequence=event.sequence)


def test_an_erased_player_s_id_is_removed_from_the_log(platform, other_platform) -> None:
    hooked(platform, ["deal.ended", "turn.started", "seat.left"])
    hooked(other_platform, ["seat.left"])
    other_match = uuid.uuid4()

    def emit(on, event_type: str, match_id: uuid.UUID, **data) -> None:
        platform_events.emit(on.platform.pk, [(event_type, {"match_id": str(match_id), **data})])

    emit(platform, "deal.ended", MATCH, players=["ayse", "bora", None, "ayse"])
    emit(platform, "turn.started", MATCH, seat=0, external_id="ayse")
    emit(platform, "turn.started", MATCH, seat=1, external_id="bora")
    emit(platform, "seat.left", other_match, seat=0, external_id="ayse")
    emit(other_platform, "seat.left", MATCH, seat=2, external_id="ayse")  # another's "ayse"
    assert platform_events.redact_player(platform_id=platform.platform.pk, external_id="ayse",
                                  match_ids=[MATCH]) == 2
    data = {(event.platform_id, event.match_id, event.sequence): event.payload["data"]
            for event in WebhookEvent.objects.all()}
    mine, theirs = platform.platform.pk, other_platform.platform.pk
    assert data[mine, MATCH, 1]["players"] == [None, "bora", None, None]
    assert data[mine, MATCH, 2]["external_id"] is None
    assert data[mine, MATCH, 3]["external_id"] == "bora"
    assert data[mine, other_match, 1]["external_id"] == "ayse"  # not among the matches given
    assert data[theirs, MATCH, 4]["external_id"] == "ayse"
    assert platform_events.redact_player(
        platform_id=mine, external_id="ayse", match_ids=[MATCH]) == 0



def test_replay_calls_send_each_event_once_across_instants_shared(platform, monkeypatch) -> None:
    """Calls going on from `next_since` (inclusive) send every event of the range once: a call
    ends before an instant its last events share with the next, unless a whole call's worth
    was made at that instant (then all of those)."""
    webhook = hooked(platform)
    made = events(platform, "deal.ended", "turn.started", "deal.ended", "turn.started",
                  "deal.ended")
    start = timezone.now() - timedelta(minutes=1)
    instants = [start, start, start + timedelta(seconds=1), start + timedelta(seconds=1),
                start + timedelta(seconds=2)]
    for event, instant in zip(made, instants, strict=True):
        WebhookEvent.objects.filter(pk=event.pk).update(created_at=instant)
    monkeypatch.setattr(webhooks, "REPLAY_MAX_EVENTS", 3)
    subscription = WebhookSubscription.objects.get(pk=webhook)
    WebhookDelivery.objects.update(status=DeliveryStatus.SUCCEEDED)
    calls: list[tuple[int, set[str]]] = []
    since = start
    while True:
        replayed = webhooks.replay(subscription, since=since)
        pending = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING)
        calls.append((replayed.count, set(pending.values_list("event_id", flat=True))))
        pending.update(status=DeliveryStatus.SUCCEEDED)
        if replayed.next_since is None:
            break
        since = replayed.next_since
    ids = [event.pk for event in made]
    assert calls == [(2, set(ids[:2])), (3, set(ids[2:]))]
    # Four made at one instant, three a call: the four at once, then what follows.
    WebhookEvent.objects.filter(pk__in=ids[:4]).update(created_at=start)
    first = webhooks.replay(subscription, since=start)
    assert (first.count, first.next_since) == (4, instants[4])


def test_the_log_is_filtered_by_status_type_and_match(platform) -> None:
    webhook = hooked(platform)
    other_match = uuid.uuid4()
    events(platform, "deal.ended", "turn.started")
    events(platform, "turn.started", match_id=other_match)
    WebhookDelivery.objects.filter(event__type="deal.ended").update(
        status=DeliveryStatus.FAILED)
    log = f"/webhooks/{webhook}/deliveries"

    def listed(query: str) -> list[tuple[str, str, str]]:
        answer = platform.get(f"{log}?{query}")
        assert answer.status_code == 200, answer.content
        return sorted((row["status"], row["event_type"], row["match_id"])
                      for row in answer.json()["results"])

    assert len(listed("")) == 3
    assert listed("status=failed") == [("failed", "deal.ended", str(MATCH))]
    assert [row[2] for row in listed("event_type=turn.started")] == sorted(
        [str(MATCH), str(other_match)])
    assert listed(f"match_id={other_match}&status=pending") == [
        ("pending", "turn.started", str(other_match))]
    assert listed(f"match_id={other_match}&status=failed") == []
    for bad in ("status=lost", "event_type=match.nothing", "match_id=7", "status="):
        problem(platform.get(f"{log}?{bad}"), 400, "invalid_input")


def test_the_log_pages_by_cursor_newest_first_while_deliveries_are_made(platform) -> None:
    webhook = hooked(platform, types=("turn.started",))
    for _ in range(5):
        events(platform, "turn.started")
    log = f"/webhooks/{webhook}/deliveries"
    first = platform.get(f"{log}?page_size=2").json()
    assert set(first) == {"next", "previous", "results"}
    seen = [row["id"] for row in first["results"]]
    events(platform, "turn.started")  # made during the walk: before its first page
    link = first["next"]
    while link:
        page = platform.get(link.removeprefix(API + "/platform")).json()
        seen += [row["id"] for row in page["results"]]
        link = page["next"]
    newest_first = list(WebhookDelivery.objects.order_by("-created_at", "-pk").values_list(
        "pk", flat=True))
    assert seen == newest_first[1:]
    problem(platform.get(f"{log}?cursor=bm9wZQ"), 400, "invalid_cursor")
    problem(platform.get(f"{log}?page_size=201"), 400, "invalid_input")


def test_recover_sends_every_failed_delivery_again_and_nothing_else(platform) -> None:
    webhook = hooked(platform)
    before = timezone.now()
    failed = events(platform, "deal.ended", "turn.started")
    succeeded = events(platform, "turn.started")
    WebhookDelivery.objects.filter(event__in=failed).update(
        status=DeliveryStatus.FAILED, attempts=9, last_status_code=503)
    WebhookDelivery.objects.filter(event__in=succeeded).update(
        status=DeliveryStatus.SUCCEEDED, attempts=1, delivered_at=timezone.now())
    recover = f"/webhooks/{webhook}/recover"

    answer = platform.post(recover, {"since": before.isoformat()})
    assert answer.status_code == 202, answer.content
    assert answer.json() == {"count": 2, "next_since": None}
    rows = WebhookDelivery.objects.order_by("event__created_at", "event__sequence")
    assert [(row.event_id, row.status, row.attempts) for row in rows] == [
        (failed[0].pk, "pending", 0), (failed[1].pk, "pending", 0),
        (succeeded[0].pk, "succeeded", 1)]
    # Again at once: what is pending is on its way, nothing is sent twice.
    assert platform.post(recover, {"since": before.isoformat()}).json()["count"] == 0
    problem(platform.post(recover, {"since": before.isoformat(),
                                    "until": before.isoformat()}), 400, "invalid_input")
    problem(platform.post(recover, {"since": before.isoformat(), "event_types": ["x"]}),
            400, "unknown_field")
    problem(platform.post("/webhooks/999999/recover", {"since": before.isoformat()}),
            404, "not_found")
