"""A rated match's people are rated once, as it finishes, against the computer players'
published ratings; a casual match changes nothing."""

from __future__ import annotations

import pytest

from games.services import SeatSpec
from ratings.models import Rating, RatingChange, SeasonStanding
from ratings.services import rate_match
from tests.admin.helpers import person, play_match

pytestmark = pytest.mark.django_db

TWO_PEOPLE = (
    SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
    SeatSpec("person"), SeatSpec("bot", bot_level="hard"),
)


def two_people_match(rated: bool, **kwargs):
    ayse, ali = person("ayse"), person("ali")
    seats = list(TWO_PEOPLE)
    seats[2] = SeatSpec("person", user=ali)
    return play_match(ayse, seats=seats, rated=rated, **kwargs), ayse, ali


def test_a_rated_match_rates_its_people_once() -> None:
    match, ayse, ali = two_people_match(True)
    assert match.rated
    changes = {change.user_id: change for change in RatingChange.objects.filter(match=match)}
    assert set(changes) == {ayse.pk, ali.pk}
    for user in (ayse, ali):
        rating = Rating.objects.get(user=user, game="auction")
        change = changes[user.pk]
        assert (rating.matches, rating.rating) == (1, change.rating_after)
        assert change.rating_before == 1500 and change.place == match.ranking[change.seat]
        assert rating.deviation < 200
        assert SeasonStanding.objects.filter(user=user).count() == 2
    # Asked again (a retried end), nothing changes.
    assert rate_match(match) == []
    assert RatingChange.objects.count() == 2


def test_a_casual_match_rates_nobody() -> None:
    two_people_match(False)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
