"""A recount from the stored results gets the same numbers as the ratings written match by
match."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games.services import SeatSpec
from ratings.management.commands.recount_ratings import snapshot
from ratings.models import Rating
from tests.admin.helpers import person, play_match

pytestmark = pytest.mark.django_db


def test_a_recount_gets_the_same_numbers() -> None:
    ayse, ali, veli = person("ayse"), person("ali"), person("veli")
    for seed, (first, second, game) in enumerate([
        (ayse, ali, "auction"), (ali, veli, "auction"), (ayse, veli, "spades"),
        (ayse, ali, "partnership"), (veli, ayse, "auction"),
    ]):
        seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
                 SeatSpec("person", user=second), SeatSpec("bot", bot_level="medium")]
        assert play_match(first, game=game, seats=seats, rated=True, seed=seed).rated
    stored = snapshot()
    assert len(stored["rating changes"]) == 10
    out = io.StringIO()
    call_command("recount_ratings", "--check", stdout=out)
    assert "(differ)" not in out.getvalue()
    call_command("recount_ratings", stdout=io.StringIO())
    assert snapshot() == stored


def test_a_check_fails_on_a_stored_number_that_differs() -> None:
    ayse, ali = person("ayse"), person("ali")
    seats = [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
             SeatSpec("person", user=ali), SeatSpec("bot", bot_level="medium")]
    play_match(ayse, seats=seats, rated=True)
    Rating.objects.filter(user=ayse).update(rating=2900)
    with pytest.raises(CommandError, match="ratings"):
        call_command("recount_ratings", "--check", stdout=io.StringIO())
    assert Rating.objects.get(user=ayse).rating == 2900  # a check changes nothing
