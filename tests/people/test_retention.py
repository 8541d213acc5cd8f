"""FINISHED_MATCH_RETENTION_DAYS: matches ended longer ago are deleted with everything kept of
them, by the periodic job and by `manage.py purge_finished_matches`; 0 keeps everything."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games import seating, services, tasks
from games.models import Action, Deal, IdempotencyRecord, Match, MatchStatus, Seat
from games.tasks import purge_finished_matches
from ratings.models import GameRecord, PlayedMatch
from runtime.work import JOBS
from tests.admin.helpers import person, play_match

pytestmark = pytest.mark.django_db


def ended_days_ago(match: Match, days: float) -> None:
    when = timezone.now() - timedelta(days=days)
    Match.objects.filter(pk=match.pk).update(finished_at=when, updated_at=when)


def test_matches_past_the_retention_are_deleted_with_their_records(settings) -> None:
    someone = person("someone")
    old, recent = play_match(someone), play_match(someone, seed=1)
    in_play = play_match(someone, seed=2, finish=False)
    cancelled = services.create_match(
        user=someone,
        table=services.NewTable(
            game="auction",
            rules=None,
            deal_count=1,
            seats=[services.SeatSpec("me"), *[services.SeatSpec("open")] * 3],
        ),
    )
    seating.cancel_match(match_id=cancelled.pk, user=someone)
    ended_days_ago(old, 31)
    ended_days_ago(recent, 29)
    Match.objects.filter(pk=in_play.pk).update(updated_at=timezone.now() - timedelta(days=90))
    ended_days_ago(cancelled, 40)

    settings.FINISHED_MATCH_RETENTION_DAYS = 0
    assert purge_finished_matches() == 0 and Match.objects.count() == 4

    settings.FINISHED_MATCH_RETENTION_DAYS = 30
    assert purge_finished_matches() == 2
    assert set(Match.objects.values_list("pk", flat=True)) == {recent.pk, in_play.pk}
    for model in (Seat, Deal, Action, PlayedMatch):
        assert not model.objects.filter(match_id__in=[old.pk, cancelled.pk]).exists()
    # What was counted of it stays as counted.
    assert GameRecord.objects.get(user=someone).matches == 2
    assert Match.objects.get(pk=in_play.pk).status == MatchStatus.ACTIVE

    ended_days_ago(recent, 31)
    out = io.StringIO()
    call_command("purge_finished_matches", stdout=out)
    assert out.getvalue() == "1 match(es) deleted.\n"
    assert list(Match.objects.values_list("pk", flat=True)) == [in_play.pk]


def test_idempotency_records_past_their_hours_are_deleted_whatever_the_match_retention(
    settings,
) -> None:
    settings.FINISHED_MATCH_RETENTION_DAYS = 0
    settings.IDEMPOTENCY_KEY_HOURS = 24
    someone = person("someone")
    for key, hours in (("day-old", 25), ("recent", 23)):
        record = IdempotencyRecord.objects.create(user=someone, key=key, fingerprint="f",
                                                  status_code=200, body={})
        IdempotencyRecord.objects.filter(pk=record.pk).update(
            created_at=timezone.now() - timedelta(hours=hours))
    assert purge_finished_matches() == 0
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["recent"]


def test_the_purge_is_a_periodic_job() -> None:
    job = next(job for job in JOBS if job.name == "purge-finished-matches")
    assert job.task is tasks.purge_finished_matches
    assert job.interval_setting == "RETENTION_PURGE_INTERVAL_SECONDS"
