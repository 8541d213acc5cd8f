"""What ratings keep of a person, on request (games/privacy.py): an erased person leaves the
leaderboards; an export has their ratings, their history of changes, seasons and statistics."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from django.contrib.auth.models import User

from ratings.models import GameRecord, Privacy, Rating, RatingChange, SeasonStanding
from ratings.services import take_off_the_boards


def on_account_erasing(sender: Any, *, user: User, **kwargs: Any) -> None:
    # Before the account row changes (`privacy.erase_account` sends this first).
    take_off_the_boards(user.pk)


def personal_data(sender: Any, *, user: User, **kwargs: Any) -> dict[str, Any]:
    privacy = Privacy.objects.filter(user=user).first()
    return {
        "ratings": list(Rating.objects.filter(user=user).order_by("game").values(
            "game", "rating", "deviation", "matches", "wins", "updated_at")),
        "rating_changes": _rating_changes(user),
        "seasons": list(SeasonStanding.objects.filter(user=user).order_by(
            "game", "period", "starts").values(
            "game", "period", "starts", "points", "matches", "wins")),
        "statistics": list(GameRecord.objects.filter(user=user).order_by("game").values(
            "game", "matches", "wins", "deals", "points", "declared", "made", "batak")),
        "privacy": {
            "history_public": privacy.history_public if privacy else True,
            "statistics_public": privacy.statistics_public if privacy else True,
        },
    }


def _rating_changes(user: User) -> Iterator[Mapping[str, object]]:
    changes = RatingChange.objects.filter(user=user).order_by("created_at", "pk").values(
        "match_id", "game", "seat", "place", "rating_before", "rating_after",
        "deviation_after", "created_at")
    yield from changes.iterator(chunk_size=500)
