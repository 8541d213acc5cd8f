"""A rated match's rating changes are written once its finish is committed (the ratings' handler
of what follows a match's change) and told: to what follows (the webhooks), and to the live
streams once the ratings commit."""

from __future__ import annotations

from typing import Any

import pytest

from games import follow_ups, notify
from games.services import SeatSpec
from ratings.models import RatingChange
from tests.admin.helpers import person, play_match

pytestmark = pytest.mark.django_db


def test_the_ratings_are_told_and_announced_after_the_commit(
    monkeypatch, django_capture_on_commit_callbacks
) -> None:
    announced: list[tuple[Any, list[dict[str, Any]]]] = []
    monkeypatch.setattr(notify, "announce_ratings",
                        lambda match_id, changes: announced.append((match_id, changes)))
    told: list[follow_ups.RatingsChanged] = []
    tell = follow_ups.tell

    def telling(events: Any) -> None:
        events = list(events)
        ratings = [event for event in events if isinstance(event, follow_ups.RatingsChanged)]
        if ratings:
            assert not announced  # in the ratings' transaction, before its commit
        told.extend(ratings)
        tell(events)

    monkeypatch.setattr(follow_ups, "tell", telling)
    ayse, ali = person("ayse"), person("ali")
    with django_capture_on_commit_callbacks(execute=True):
        match = play_match(ayse, rated=True, seats=[
            SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
            SeatSpec("person", user=ali), SeatSpec("bot", bot_level="hard")])
    assert [(event.match_id, sorted(change["user_id"] for change in event.changes))
            for event in told] == [(str(match.pk), sorted([ayse.pk, ali.pk]))]
    rows = {row.seat: row for row in RatingChange.objects.filter(match=match)}
    assert announced == [(match.id, [
        {"seat": seat, "place": row.place, "rating_before": row.rating_before,
         "rating_after": row.rating_after, "delta": row.delta, "deviation": row.deviation_after}
        for seat, row in sorted(rows.items())
    ])]
