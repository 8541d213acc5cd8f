"""Seasons start on schedule: a week from Monday 00:00 UTC, a month from its first day; a rated
match counts in the seasons of the moment it finished, and a new season starts from nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.models import Match
from games.services import SeatSpec
from ratings.models import Period, SeasonStanding
from ratings.seasons import season_end, season_start
from ratings.services import recount
from tests.admin.helpers import person, play_match

ISTANBUL = timezone(timedelta(hours=3))


def test_weeks_start_on_monday_and_months_on_the_first_in_utc() -> None:
    sunday_night = datetime(2026, 12, 6, 23, 59, tzinfo=UTC)
    assert season_start(Period.WEEK, sunday_night) == date(2026, 11, 30)
    assert season_start(Period.WEEK, sunday_night + timedelta(minutes=1)) == date(2026, 12, 7)
    # 01:30 on Monday in Istanbul is still Sunday in UTC: last week's.
    assert season_start(Period.WEEK, datetime(2026, 12, 7, 1, 30, tzinfo=ISTANBUL)) == date(
        2026, 11, 30)
    assert season_start(Period.MONTH, datetime(2026, 12, 31, 23, 0, tzinfo=UTC)) == date(
        2026, 12, 1)
    assert season_end(Period.MONTH, date(2026, 12, 1)) == date(2027, 1, 1)
    assert season_end(Period.MONTH, date(2027, 2, 1)) == date(2027, 3, 1)


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                    timezones=st.just(UTC)), st.sampled_from(list(Period)))
def test_every_moment_is_in_exactly_its_season(moment: datetime, period: Period) -> None:
    starts = season_start(period, moment)
    assert starts <= moment.date() < season_end(period, starts)
    assert season_start(period, datetime.combine(starts, datetime.min.time(), UTC)) == starts


@pytest.mark.django_db
def test_a_new_week_starts_from_nothing() -> None:
    ayse, ali = person("ayse"), person("ali")
    seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
             SeatSpec("person", user=ali), SeatSpec("bot", bot_level="medium")]
    first = play_match(ayse, seats=seats, rated=True)
    second = play_match(ayse, seats=seats, rated=True, seed=1)
    assert SeasonStanding.objects.get(user=ayse, period=Period.WEEK).matches == 2
    # Had the second finished a week later (the recount counts each match as it finished):
    next_week = first.finished_at + timedelta(days=7)
    Match.objects.filter(pk=second.pk).update(finished_at=next_week)
    recount()
    weeks = list(SeasonStanding.objects.filter(user=ayse, period=Period.WEEK).order_by("starts"))
    assert [(week.starts, week.matches) for week in weeks] == [
        (season_start(Period.WEEK, first.finished_at), 1),
        (season_start(Period.WEEK, next_week), 1),
    ]
    assert weeks[1].points == second.rating_changes.get(user=ayse).delta
