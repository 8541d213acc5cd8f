"""Scaled out, an ended deal is analysed by the analysis worker on its own queue: the analysis
answers 202 until it is ready, then 200, while the computer players' worker never takes the
work; a table's computer players answer its person promptly however many deals wait for it."""

from __future__ import annotations

import random
import time

import pytest

from games.models import Deal, DealAnalysis
from tests.integration.conftest import Table
from tests.integration.harness import client

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

READY_WITHIN_SECONDS = 90


def test_an_ended_deal_is_analysed_by_its_own_worker(web: str) -> None:
    person = client.guest(web)
    table = Table(person, client.match_against_bots(person, levels=["easy"] * 3, game="spades"),
                  random.Random(4))
    table.wait_for_turn()
    while table.active:
        table.move()
        table.wait_for_turn()
    path = f"{client.API}/matches/{table.match_id}/deals/1/analysis"
    first = person.get(path)
    assert first.status in (200, 202), first.body
    deadline = time.monotonic() + READY_WITHIN_SECONDS
    answer = first
    while answer.status == 202 and time.monotonic() < deadline:
        assert int(answer.headers["Retry-After"]) >= 1
        time.sleep(1)
        answer = person.get(path)
    assert answer.status == 200, answer.body
    assert [player["seat"] for player in answer.body["players"]] == [0, 1, 2, 3]
    deal = Deal.objects.get(match_id=table.match_id, sequence=1)
    assert DealAnalysis.objects.get(deal=deal).result == {
        key: answer.body[key] for key in ("partial", "cpu_seconds", "thresholds", "moves",
                                          "players")}
