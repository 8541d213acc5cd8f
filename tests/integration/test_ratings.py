"""Ratings on PostgreSQL under races: two matches of one person finishing at the same moment
both count, in the order their ends commit (the recount agrees), and the newest point of their
history is their rating now whichever finished first; one match's last card sent twice at once
rates it once. Over HTTP on the scaled-out form, a rated match whose people all leave, while the
workers play the first leaver's seat, ends finished and rated."""

from __future__ import annotations

import io
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, connections, transaction

from games import engine, selectors, services
from games.errors import ServiceError
from games.models import Match, MatchStatus
from games.services import SeatSpec
from ratings.api.players import RatingPagination
from ratings.models import Rating, RatingChange
from tests.admin.helpers import person
from tests.integration.harness import client

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def rated_match(first, second, seed: int) -> Match:
    """A rated match of ``first`` and ``second`` with two more people, played to its last card
    (not played). People only: no computer player's turn goes to the stack's workers, which
    would play on beside the test."""
    seats = [SeatSpec("me"), SeatSpec("person", user=person(f"east{seed}")),
             SeatSpec("person", user=second), SeatSpec("person", user=person(f"west{seed}"))]
    match = services.create_match(
        user=first,
        table=services.NewTable(
            game="auction",
            deal_count=1,
            seats=seats,
            rated=True,
        ),
    )
    rng = random.Random(seed)
    while True:
        match.refresh_from_db()
        assert match.status == MatchStatus.ACTIVE and match.rated
        deal = selectors.replay_deal(match, selectors.current_deal(match))
        if sum(len(deal.hand(seat)) for seat in range(4)) == 1:
            return match
        last_move(match, deal, lambda legal: rng.choice(legal))()


def last_move(match: Match, deal: engine.Deal,
              choose: Callable[[list[engine.Action]], engine.Action]) -> Callable[[], Any]:
    """The move of the person to act, as a call to make (the service call their app makes)."""
    seat = deal.to_act
    assert seat is not None
    legal = [a for a in deal.legal_actions(seat) if a.kind != engine.ActionKind.REDEAL]
    action = choose(legal)
    acting = match.seats.get(index=seat)
    return lambda: services.submit_action(match_id=match.id, action=action,
                                          user=acting.user, expected_version=match.version)


def at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Make the calls from threads of their own, released together; what each returned or
    raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            barrier.wait()
            results[index] = calls[index]()
        except Exception as error:  # the test fails on any but a refusal
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, ServiceError)]
    return results


def final_move(match: Match) -> Callable[[], Any]:
    deal = selectors.replay_deal(match, selectors.current_deal(match))
    return last_move(match, deal, lambda legal: legal[0])


def test_two_matches_of_one_person_ending_at_once_both_count() -> None:
    ayse, ali, veli = person("ayse"), person("ali"), person("veli")
    for round_ in range(3):
        first, second = rated_match(ayse, ali, round_), rated_match(ayse, veli, 10 + round_)
        at_once([final_move(first), final_move(second)])
        assert Match.objects.filter(status=MatchStatus.FINISHED).count() == 2 * (round_ + 1)
        assert Rating.objects.get(user=ayse).matches == 2 * (round_ + 1)
    assert RatingChange.objects.count() == 24
    call_command("recount_ratings", "--check", stdout=io.StringIO())


def test_a_last_card_sent_twice_at_once_rates_once() -> None:
    ayse, ali = person("ayse"), person("ali")
    match = rated_match(ayse, ali, 7)
    results = at_once([final_move(match), final_move(match)])
    assert sum(isinstance(result, ServiceError) for result in results) == 1
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    assert RatingChange.objects.filter(match=match).count() == 4
    assert Rating.objects.get(user=ayse).matches == Rating.objects.get(user=ali).matches == 1


def test_the_first_to_finish_rated_second_is_the_newest_point() -> None:
    """Ayşe's match with Xavier finishes first, but its ratings wait for Xavier's row (held
    locked here; rows are locked in the order of the user ids, his first); her other match
    finishes meanwhile and is rated first. The waiting one's change is the newer point."""
    xavier = person("xavier")  # the lowest user id at both tables
    ayse, ali = person("ayse"), person("ali")
    for someone in (xavier, ayse):
        Rating.objects.create(user=someone, game="auction")
    first, second = rated_match(ayse, xavier, 1), rated_match(ayse, ali, 2)
    holding, release, rated = threading.Event(), threading.Event(), threading.Event()

    def hold_xaviers_row() -> None:
        try:
            with transaction.atomic():
                Rating.objects.select_for_update().get(user=xavier)
                holding.set()
                release.wait(10)
        finally:
            connection.close()

    def finish_first() -> None:
        try:
            final_move(first)()
            rated.set()
        finally:
            connection.close()

    holder = threading.Thread(target=hold_xaviers_row)
    holder.start()
    assert holding.wait(10)
    finishing = threading.Thread(target=finish_first)
    finishing.start()
    assert not rated.wait(0.5)  # finished, its ratings waiting for Xavier's row
    final_move(second)()
    release.set()
    holder.join(10)
    finishing.join(10)
    assert rated.is_set()
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.finished_at < second.finished_at
    history = RatingChange.objects.filter(user=ayse).order_by(*RatingPagination.ordering)
    assert [change.match_id for change in history] == [first.pk, second.pk]
    assert history[0].rating_after == Rating.objects.get(user=ayse).rating
    call_command("recount_ratings", "--check", stdout=io.StringIO())


def named(web: str, username: str) -> client.Api:
    """A new named account (a guest's result is never rated), signed in."""
    api = client.Api(web)
    body = client.expect(api.post(f"{client.API}/auth/register", {
        "username": username, "password": "correct horse battery", "display_name": username,
    }), 201, "register")
    api.token = body["token"]
    return api


def test_a_rated_match_its_people_all_leave_ends_rated(web: str) -> None:
    ayse, ali = named(web, "ayse"), named(web, "ali")
    seats = [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot_level": "easy"},
             {"kind": "bot", "bot_level": "easy"}]
    match = client.expect(ayse.post(f"{client.API}/matches", {
        "game": "auction", "deals": 2, "seats": seats, "visibility": "public", "rated": True,
        "clock": None}), 201, "create")["id"]
    joined = client.expect(ali.post(f"{client.API}/matches/{match}/join", {"seat": 1}), 200,
                           "join")
    assert joined["match"]["rated"]
    client.expect(ali.post(f"{client.API}/matches/{match}/leave"), 200, "leave")
    # The workers play his seat meanwhile, up to her turn.
    left = client.expect(ayse.post(f"{client.API}/matches/{match}/leave"), 200, "leave")
    assert left["status"] == "finished"
    places = dict(RatingChange.objects.filter(match_id=match).values_list("seat", "place"))
    assert places == {0: 3, 1: 4}
