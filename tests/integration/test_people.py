"""The people-at-a-table scenario (tests/people/scenario.py) scaled out: gunicorn and a Celery
worker on PostgreSQL and Redis, the clocks run by beat."""

from __future__ import annotations

import pytest

from games.models import Match
from tests.integration.conftest import assert_log_matches_replay
from tests.people import leaving, scenario

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_people_play_through_a_dropout(web: str) -> None:
    scenario.people_play_through_a_dropout(web)
    match = Match.objects.filter(status="finished").order_by("-created_at").first()
    assert match is not None
    assert_log_matches_replay(str(match.id), [])


def test_a_leaver_reads_nothing_and_a_late_move_is_refused(web: str) -> None:
    leaving.a_leaver_reads_nothing_and_a_late_move_is_refused(web)


def test_a_leavers_stream_ends_at_once(web: str, stream: str) -> None:
    leaving.a_leavers_stream_ends_at_once(web, stream)
