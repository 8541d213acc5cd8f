"""A deal's analysis through the API: 202 while it waits, then the result; only of an ended deal
and only to those who may read its record; the stream's `analysis_ready` announcement once it
is recorded (the `deal.analysed` webhook: tests/platforms/test_analysis_webhooks.py)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from bots import analysis, interface, tasks
from games import notify, sweeper
from games.models import AnalysisStatus, Deal, DealAnalysis
from runtime import lanes, work

from .conftest import new_player, play_random_turn
from .test_contract import assert_problem
from .test_notation import four_people, play_to_the_end


@pytest.fixture
def analysing(settings):
    settings.ANALYSE_DEALS = True
    settings.ANALYSIS_SECONDS_PER_DEAL = 2.0


def ended_match(player) -> tuple[str, list]:
    match_id, players = four_people(player, game="spades")
    play_to_the_end(players, match_id, seed=5)
    return match_id, players


def test_202_while_queued_then_the_analysis(analysing, player) -> None:
    match_id, players = ended_match(player)
    path = f"/matches/{match_id}/deals/1/analysis"
    waiting = players[1].get(path)
    assert waiting.status_code == 202, waiting.content
    assert int(waiting["Retry-After"]) >= 1
    assert waiting.json() == {"match_id": match_id, "deal_sequence": 1, "status": "queued"}
    deal = Deal.objects.get(match_id=match_id, sequence=1)
    assert tasks.analyse_deal(deal.pk)
    assert not tasks.analyse_deal(deal.pk)  # a copy of the task finds it done
    response = players[2].get(path)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["deal_sequence"] == 1 and body["match_id"] == match_id
    assert body["thresholds"] == {"inaccuracy": 5, "mistake": 10, "blunder": 30}
    assert [p["seat"] for p in body["players"]] == [0, 1, 2, 3]
    assert len(body["moves"]) == len(deal.actions.all())
    judged = [m for m in body["moves"] if m["seen"] is not None]
    assert judged or body["partial"]
    for move in body["moves"]:
        if move["choices"] == 1:
            assert move["seen"] is None and move["known"] is None and move["mark"] is None
    assert DealAnalysis.objects.get(deal=deal).status == AnalysisStatus.DONE


def test_on_the_embedded_default_the_lane_searches_in_the_low_priority_process(
    analysing, player, monkeypatch, settings, django_capture_on_commit_callbacks,
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    match_id, players = ended_match(player)
    deal = Deal.objects.get(match_id=match_id, sequence=1)
    sent: list[tuple] = []
    monkeypatch.setattr(tasks.ANALYSES.lane, "send",
                        lambda function, *args, account: sent.append((function, *args, account)))
    with django_capture_on_commit_callbacks(execute=True):
        interface.send_analysis(deal.pk)
    # On the analysis lane, in the share of the match's account, its creator.
    assert sent == [(tasks.analyse_deal.run, deal.pk, players[0].user_id)]
    searched = []

    def in_background(start, log, seconds: float, processes: int) -> dict:
        searched.append((seconds, processes))
        return analysis.analyse(start, log, seconds).to_dict()

    monkeypatch.setattr(analysis, "analyse_in_background", in_background)
    monkeypatch.setattr(lanes, "on_a_lane", lambda: True)
    assert tasks.analyse_deal(sent[0][1])
    assert searched == [(settings.ANALYSIS_SECONDS_PER_DEAL, settings.ANALYSIS_PROCESSES)]
    assert DealAnalysis.objects.get(deal=deal).status == AnalysisStatus.DONE


def test_only_an_ended_deal_has_an_analysis(analysing, player) -> None:
    match_id, players = four_people(player)
    play_random_turn(players, match_id, random.Random(1))
    assert_problem(players[0].get(f"/matches/{match_id}/deals/1/analysis"), 404, "not_found")


def test_only_those_who_may_read_the_deal_read_its_analysis(analysing, player) -> None:
    match_id, players = ended_match(player)  # a public match: a spectator is no reader
    path = f"/matches/{match_id}/deals/1/analysis"
    assert players[3].get(path).status_code == 202
    assert_problem(new_player("Spectator").get(path), 403, "not_your_seat")


def test_no_analysis_when_the_service_does_not_analyse(player) -> None:
    match_id, players = ended_match(player)
    assert_problem(players[0].get(f"/matches/{match_id}/deals/1/analysis"), 404,
                   "no_analysis")


def test_the_streams_hear_that_it_is_ready(
    analysing, player, monkeypatch, django_capture_on_commit_callbacks,
) -> None:
    match_id, _ = ended_match(player)
    heard = []
    monkeypatch.setattr(notify, "announce_analysis",
                        lambda match, ready: heard.append((str(match), ready)))
    deal = Deal.objects.get(match_id=match_id, sequence=1)
    # The announcement is made once the analysis is committed.
    with django_capture_on_commit_callbacks(execute=True):
        tasks.analyse_deal(deal.pk)
    assert [(m, r["deal_sequence"]) for m, r in heard] == [(match_id, 1)]
    assert [p["seat"] for p in heard[0][1]["players"]] == [0, 1, 2, 3]


def test_an_analysis_whose_task_was_lost_is_sent_again_once_a_period(
    analysing, player, monkeypatch, settings,
) -> None:
    match_id, _ = ended_match(player)
    sent = []
    monkeypatch.setattr(interface, "send_analysis", sent.append)
    analysis = DealAnalysis.objects.get(deal__match_id=match_id)
    assert sweeper.resend_stuck_analyses() == 0  # sent just now
    DealAnalysis.objects.filter(pk=analysis.pk).update(
        sent_at=timezone.now() - timedelta(seconds=settings.ANALYSIS_STALE_AFTER_SECONDS + 1))
    assert sweeper.resend_stuck_analyses() == 1
    assert sent == [analysis.deal_id]
    assert sweeper.resend_stuck_analyses() == 0  # not again before another period
    assert "sweep-analyses" in {job.name for job in work.JOBS}


def test_the_stream_tells_an_analysis_ready_only_to_those_who_may_read_it(player) -> None:
    # Found by probing: a spectator's stream heard each deal's summary, judged from every hand,
    # which getDealAnalysis refuses them.
    from games.api import streams
    from games.models import Match

    match_id, players = ended_match(player)
    match = Match.objects.get(pk=match_id)
    Match.objects.filter(pk=match_id).update(visibility="public")
    match.refresh_from_db()
    watcher = new_player("Watcher")
    ready = {"match_id": match_id, "deal_sequence": 1, "partial": False, "players": []}

    class Announced:
        def analyses(self) -> list[dict]:
            return [ready]

    from django.contrib.auth.models import User

    seated = streams.Follower(match, 0, User.objects.get(pk=players[0].user_id), None)
    watching = streams.Follower(match, 0, User.objects.get(pk=watcher.user_id), None)
    assert b"analysis_ready" in streams._told(seated, Announced())  # type: ignore[arg-type]
    assert streams._told(watching, Announced()) == b""  # type: ignore[arg-type]
