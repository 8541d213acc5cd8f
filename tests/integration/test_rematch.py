"""Rematches on the scaled-out form (gunicorn on PostgreSQL): the last two acceptances of an
offer, sent at once, start one rematch."""

from __future__ import annotations

import random
import threading

import pytest

from games.models import Match, RematchOffer
from tests.integration.harness import client

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

SEATS = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "bot", "bot_level": "easy"}]


def accepted_at_once(match: str, people: list[client.Api]) -> list[client.Response]:
    barrier = threading.Barrier(len(people))
    answers: list[client.Response] = []

    def accept(someone: client.Api) -> None:
        barrier.wait()
        answers.append(someone.post(f"{client.API}/matches/{match}/rematch/accept"))

    threads = [threading.Thread(target=accept, args=(someone,)) for someone in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers


def test_two_last_acceptances_at_once_start_one_rematch(web: str) -> None:
    people = [client.guest(web, name) for name in ("Ayşe", "Ali", "Can")]
    for round_ in range(3):
        match = client.expect(people[0].post(f"{client.API}/matches", {
            "game": "auction", "deals": 1, "seats": SEATS, "visibility": "public",
            "clock": None}), 201, "create")["id"]
        for seat, someone in ((1, people[1]), (2, people[2])):
            client.expect(someone.post(f"{client.API}/matches/{match}/join", {"seat": seat}),
                          200, "join")
        client.play_to_the_end(dict(enumerate(people)), match, random.Random(round_))
        client.expect(people[0].post(f"{client.API}/matches/{match}/rematch"), 201, "offer")
        answers = accepted_at_once(match, people[1:])
        assert sorted(answer.status for answer in answers) == [200, 200]
        assert sorted(answer.body["status"] for answer in answers) == ["accepted", "open"]
        offer = RematchOffer.objects.get(match_id=match)
        assert Match.objects.filter(rematch_of=offer).count() == 1
        # The rematch is in play: finish it too, so no account reaches its limit of matches.
        rotated = {(seat + 1) % 4: someone for seat, someone in enumerate(people)}
        client.play_to_the_end(rotated, str(offer.new_match_id), random.Random(round_))
