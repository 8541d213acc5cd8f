"""A rated match's rating changes are told once rated: the `ratings_changed` signal in the
transaction, the live streams' announcement once it commits."""

from __future__ import annotations

from typing import Any

import pytest

from games import notify
from games.services import SeatSpec
from ratings.models import RatingChange
from ratings.signals import ratings_changed
from tests.admin.helpers import person, play_match

pytestmark = pytest.mark.django_db


def test_the_ratings_are_signalled_and_announced_after_the_commit(
    monkeypatch, django_capture_on_commit_callbacks
) -> None:
    announced: list[tuple[Any, list[dict[str, Any]]]] = []
    monkeypatch.setattr(notify, "announce_ratings",
                        lambda match_id, changes: announced.append((match_id, changes)))
    signalled: list[Any] = []

    def receiver(sender: Any, *, match: Any, changes: list[RatingChange], **kwargs: Any) -> None:
        signalled.append((match.pk, sorted(change.user_id for change in changes)))
        assert not announced  # in the transaction, before the commit

    ratings_changed.connect(receiver, dispatch_uid="test")
    try:
        ayse, ali = person("ayse"), person("ali")
        with django_capture_on_commit_callbacks(execute=True):
            match = play_match(ayse, rated=True, seats=[
                SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
                SeatSpec("person", user=ali), SeatSpec("bot", bot_level="hard")])
    finally:
        ratings_changed.disconnect(dispatch_uid="test")
    assert signalled == [(match.pk, sorted([ayse.pk, ali.pk]))]
    rows = {row.seat: row for row in RatingChange.objects.filter(match=match)}
    assert announced == [(match.id, [
        {"seat": seat, "place": row.place, "rating_before": row.rating_before,
         "rating_after": row.rating_after, "delta": row.delta, "deviation": row.deviation_after}
        for seat, row in sorted(rows.items())
    ])]
