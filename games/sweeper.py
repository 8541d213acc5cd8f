"""Sends computer players' turns that got stuck to a worker again.

A bot's turn is sent to the broker once, when the move that hands it over commits. That message
can be lost: Redis was unreachable at that moment (the move is still accepted), Redis restarted
empty, or the worker running the task died (its message returns only after the broker's
visibility timeout, an hour), or the process stopped in the middle of its turns. The periodic
job `sweep_bot_turns` (beat scaled out, the lanes' scheduler on the embedded default) runs
every BOT_SWEEP_INTERVAL_SECONDS; it sends a task again for every active match whose computer
player has been to act for longer than BOT_STALE_AFTER_SECONDS (`Match.computer_turn_since`,
kept by each change: games/match_unit.py).
Tasks are idempotent, so a sweep racing a slow task costs a no-op.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from games import computer_moves, seating, selectors
from games.computer_players import computer_players
from games.models import AnalysisStatus, DealAnalysis, Match, MatchStatus

logger = logging.getLogger(__name__)

CHUNK = 500


def stuck_bot_turns() -> list[tuple[str, int]]:
    """(match id, version) of the active matches whose computer player has been to act for
    longer than BOT_STALE_AFTER_SECONDS: those whose `computer_turn_since` is older (an index of
    only those rows, so the sweep costs nothing for tables waiting for their people). Each is
    read again to be sure; one that a person is to act at after all (a row marked before its
    turn was known) is cleared."""
    cutoff = timezone.now() - timedelta(seconds=settings.BOT_STALE_AFTER_SECONDS)
    candidates = Match.objects.filter(computer_turn_since__lt=cutoff).order_by(
        "computer_turn_since")
    stuck = []
    rows = list(candidates.values_list("id", "version", "computer_turn_since")[:CHUNK])
    for match_id, version, since in rows:
        match = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
        if match is None or match.version != version:  # moved on since the list was taken
            continue
        if match.status == MatchStatus.ACTIVE and selectors.bot_to_act(match) is not None:
            stuck.append((str(match_id), version))
        else:  # unless a change marked it again meanwhile
            Match.objects.filter(pk=match_id, version=version, computer_turn_since=since).update(
                computer_turn_since=None)
    return stuck


def resend_stuck_bot_turns() -> int:
    """Send each stuck turn to a worker again; returns how many were sent."""
    sent = 0
    for match_id, version in stuck_bot_turns():
        # Once per turn and BOT_STALE_AFTER_SECONDS, so that sweeps during a backlog of the
        # queue do not pile copies of the same turn into it.
        if not cache.add(f"sweeper:sent:{match_id}:{version}", 1, settings.BOT_STALE_AFTER_SECONDS):
            continue
        logger.warning(
            "bot turn stuck, sending it again", extra={"match_id": match_id, "version": version}
        )
        computer_players().send_turns(match_id, version)
        sent += 1
    return sent


# --- turn clocks ---------------------------------------------------------------------------------


def run_clocks() -> int:
    """Move for every person whose turn clock has run out (`computer_moves.time_out_turn`), give
    the open seats of quick-match tables whose wait is over to computer players, and start the
    matches whose wait for their people to be ready is over (a periodic job,
    runtime/work.py `every`); any number of them at once is safe, since each move is made under the
    match lock for the version it was due at.
    A clock that runs out before the next run is also sent for its very deadline
    (`runtime.work.later`), so that a timeout is not up to a whole interval late. Returns how many
    moves, fills and starts it made."""
    now = timezone.now()
    done = 0
    due = Match.objects.filter(status=MatchStatus.ACTIVE, turn_deadline__lte=now)
    choose = computer_players().choose
    for match_id, version in list(due.values_list("id", "version")[:CHUNK]):
        try:
            done += time_out(str(match_id), version, choose)
        except Exception:  # one match's failure must not stop every other clock
            logger.exception("a timeout failed", extra={"match_id": str(match_id)})
    _send_clocks_running_out(now)
    waiting = Match.objects.filter(status=MatchStatus.WAITING, fill_bots_at__lte=now)
    for match_id in list(waiting.values_list("id", flat=True)[:CHUNK]):
        try:
            done += seating.fill_with_bots(match_id=match_id)
        except Exception:
            logger.exception("filling a table failed", extra={"match_id": str(match_id)})
    unready = Match.objects.filter(status=MatchStatus.WAITING, ready_by__lte=now, open_seats=0)
    for match_id in list(unready.values_list("id", flat=True)[:CHUNK]):
        try:
            done += seating.start_after_wait(match_id=match_id)
        except Exception:
            logger.exception("starting a match failed", extra={"match_id": str(match_id)})
    return done



def time_out(match_id: str, version: int, choose: Any = None) -> bool:
    """The stand-in's move for the turn at ``version``, if its clock has run out."""
    moved = computer_moves.time_out_turn(
        match_id=uuid.UUID(match_id), version=version,
        choose=choose or computer_players().choose,
    )
    return moved is not None


def _send_clocks_running_out(now: datetime) -> None:
    interval = timedelta(seconds=settings.CLOCK_SWEEP_INTERVAL_SECONDS)
    soon = Match.objects.filter(
        status=MatchStatus.ACTIVE, turn_deadline__gt=now, turn_deadline__lte=now + interval
    )
    for match_id, version, deadline in list(
        soon.values_list("id", "version", "turn_deadline")[:CHUNK]
    ):
        # Once per turn; if that task is lost with its worker, the turn is overdue at a later
        # run and made there.
        if cache.add(f"clock:sent:{match_id}:{version}", 1, 2 * interval.total_seconds() + 1):
            assert deadline is not None  # the filter reads turns with a deadline
            computer_players().send_timeout(str(match_id), version, deadline)


def resend_stuck_analyses() -> int:
    """Send again the post-deal analyses still queued ANALYSIS_STALE_AFTER_SECONDS after they
    were last sent (their task was lost); returns how many. Each is sent again once per such
    period at most, so a backlog that is only slow is not sent over and over."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.ANALYSIS_STALE_AFTER_SECONDS)
    stuck = list(DealAnalysis.objects.filter(
        status=AnalysisStatus.QUEUED, sent_at__lt=cutoff).values_list("pk", "deal_id")[:CHUNK])
    DealAnalysis.objects.filter(pk__in=[pk for pk, _ in stuck]).update(sent_at=now)
    for _, deal_id in stuck:
        computer_players().send_analysis(deal_id)
    if stuck:
        logger.warning("post-deal analyses sent again", extra={"count": len(stuck)})
    return len(stuck)
