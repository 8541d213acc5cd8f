"""The seasons: a week from Monday 00:00 UTC, a month from its first day. Nothing resets them:
a new season is a new key, so its board starts empty on schedule."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from ratings.models import Period


def season_start(period: str, moment: datetime) -> date:
    day = moment.astimezone(UTC).date()
    if period == Period.WEEK:
        return day - timedelta(days=day.weekday())
    return day.replace(day=1)


def season_end(period: str, starts: date) -> date:
    """The first day of the next season."""
    if period == Period.WEEK:
        return starts + timedelta(days=7)
    return (starts.replace(day=28) + timedelta(days=4)).replace(day=1)
