"""A platform makes many matches in one call, all or none, each optionally starting at a given
time with its clocks; it lists, reads, follows and cancels a batch."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games import seating
from games import tasks as games_tasks
from games.models import Match, MatchStatus
from platforms import services
from platforms.models import MatchBatch, Scope
from tests.platforms.conftest import PlatformClient, new_platform, problem

pytestmark = pytest.mark.django_db


def one_match(player: str, game: str = "auction") -> dict[str, object]:
    return {"game": game, "deals": 2, "seats": [
        {"kind": "player", "external_id": player}, {"kind": "bot", "bot_level": "easy"},
        {"kind": "bot", "bot_level": "easy"}, {"kind": "bot", "bot_level": "easy"}]}


@pytest.fixture
def players(platform: PlatformClient) -> list[str]:
    names = [f"p{number}" for number in range(6)]
    for name in names:
        platform.player(name)
    return names


def test_a_batch_is_made_and_read_in_the_order_asked(platform, players) -> None:
    made = platform.post("/batches", {"matches": [one_match(name) for name in players[:3]]})
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["match_count"] == 3 and body["starts_at"] is None
    assert [match["players"][0] for match in body["matches"]] == players[:3]
    assert {match["status"] for match in body["matches"]} == {"active"}  # started as made
    again = platform.get(f"/batches/{body['id']}")
    assert again.json() == body
    listed = platform.get("/batches").json()
    assert [batch["id"] for batch in listed["results"]] == [body["id"]]
    assert "matches" not in listed["results"][0]
    # Another platform sees none of it.
    other = new_platform("Beta Games")
    problem(other.get(f"/batches/{body['id']}"), 404, "not_found")
    assert other.get("/batches").json()["results"] == []


def test_a_batch_is_all_or_none(platform, players) -> None:
    asked = [one_match(players[0]), one_match("nobody"), one_match(players[1])]
    refused = platform.post("/batches", {"matches": asked})
    problem(refused, 400, "unknown_player")
    assert refused.json()["field"].startswith("matches[1]")
    assert not Match.objects.exists() and not MatchBatch.objects.exists()
    invalid = platform.post("/batches", {"matches": [one_match(players[0]), {"game": "x"}]})
    problem(invalid, 400, "invalid_input")
    assert {error["field"] for error in invalid.json()["errors"]} >= {"matches[1].game"}
    problem(platform.post("/batches", {"matches": []}), 400, "invalid_input")
    # Counted against the platform's cap like as many matches.
    services.Platform.objects.filter(pk=platform.platform.pk).update(max_unfinished_matches=2)
    problem(platform.post("/batches", {"matches": [one_match(name) for name in players[:3]]}),
            409, "too_many_matches")
    assert not Match.objects.exists()


def test_a_scheduled_batch_starts_at_its_time_with_its_clocks(platform, players) -> None:
    starts_at = timezone.now() + timedelta(minutes=5)
    # Four people at each table: whoever acts first has a clock.
    asked = [{"game": "auction", "deals": 2, "clock": {"bid": 30, "card": 20}, "seats": [
        {"kind": "player", "external_id": name} for name in names]}
        for names in (players[:4], players[2:])]
    made = platform.post("/batches", {"matches": asked, "starts_at": starts_at.isoformat()})
    assert made.status_code == 201, made.content
    body = made.json()
    assert [match["status"] for match in body["matches"]] == ["waiting", "waiting"]
    assert {datetime.fromisoformat(match["ready_by"]) for match in body["matches"]} == {
        datetime.fromisoformat(body["starts_at"])}
    ids = [match["id"] for match in body["matches"]]
    # Before its time nothing starts it: not the start task, nor its people being ready.
    assert games_tasks.start_scheduled.run(ids) == 0
    # At its time (the task's, or the clock sweep's if the task was lost).
    Match.objects.filter(pk__in=ids).update(starts_at=timezone.now(),
                                            ready_by=timezone.now())
    assert games_tasks.start_scheduled.run(ids) == 2
    for match in Match.objects.filter(pk__in=ids):
        assert match.status == MatchStatus.ACTIVE
        assert match.turn_deadline is not None
        left = (match.turn_deadline - timezone.now()).total_seconds()
        assert 25 < left <= 30  # the bid clock runs from the start
        assert not match.seats.filter(autopilot=True).exists()  # ready from the first
    assert seating.start_after_wait(match_id=Match.objects.first().pk) is False


def test_a_batch_prepared_before_its_time_appears_at_it(platform, players) -> None:
    """Its start task comes SCHEDULED_START_LEAD_SECONDS early: the matches are dealt then,
    dated their time, their clocks from it, and committed at it; one far too early (a clock
    out of step) starts nothing."""
    starts_at = timezone.now() + timedelta(seconds=0.6)
    asked = [{"game": "auction", "deals": 1, "clock": {"bid": 30, "card": 20}, "seats": [
        {"kind": "player", "external_id": name} for name in players[:4]]}]
    made = platform.post("/batches", {"matches": asked, "starts_at": starts_at.isoformat()})
    ids = [match["id"] for match in made.json()["matches"]]
    far = timezone.now() + timedelta(seconds=3 * seating.SCHEDULED_START_LEAD_SECONDS)
    assert games_tasks.start_scheduled.run(ids, far.isoformat()) == 0
    assert games_tasks.start_scheduled.run(ids, starts_at.isoformat()) == 1
    assert timezone.now() >= starts_at  # committed at its time, not before
    match = Match.objects.get(pk=ids[0])
    assert match.status == MatchStatus.ACTIVE
    assert match.deals.get().started_at == starts_at
    assert match.turn_deadline == starts_at + timedelta(seconds=30)


def test_a_scheduled_start_is_a_time_to_come_and_takes_no_start(platform, players) -> None:
    past = (timezone.now() - timedelta(minutes=1)).isoformat()
    far = (timezone.now() + timedelta(days=8)).isoformat()
    soon = (timezone.now() + timedelta(minutes=1)).isoformat()
    for starts_at in (past, far):
        problem(platform.post("/batches", {"matches": [one_match(players[0])],
                                           "starts_at": starts_at}), 400, "invalid_input")
    problem(platform.post("/batches", {
        "matches": [{**one_match(players[0]), "start": "when_ready"}], "starts_at": soon}),
        400, "invalid_input")


def test_a_batch_is_cancelled_as_a_whole(platform, players) -> None:
    now_made = platform.post("/batches", {"matches": [one_match(players[0])]}).json()
    later = platform.post("/batches", {
        "matches": [one_match(name) for name in players[1:3]],
        "starts_at": (timezone.now() + timedelta(hours=1)).isoformat()}).json()
    assert platform.post(f"/batches/{later['id']}/cancel").json() == {
        "cancelled": 2, "abandoned": 0}
    assert platform.post(f"/batches/{now_made['id']}/cancel").json() == {
        "cancelled": 0, "abandoned": 1}
    assert platform.post(f"/batches/{now_made['id']}/cancel").json() == {
        "cancelled": 0, "abandoned": 0}
    problem(new_platform("Beta Games").post(f"/batches/{later['id']}/cancel"), 404,
            "not_found")
    reader = new_platform("Gamma Games", scopes=[Scope.MATCHES_READ.value])
    problem(reader.post(f"/batches/{later['id']}/cancel"), 403, "missing_scope")
    problem(reader.post("/batches", {"matches": [one_match(players[0])]}), 403,
            "missing_scope")
