"""Celery tasks: computer players take their turns through the service layer."""

from __future__ import annotations

import contextlib
import random
import time
import uuid

from celery import Task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerUnavailable
from prometheus_client import Histogram

from bots import analysis, turn_queue
from bots.advice import seeded_rng
from bots.players import choose_action
from bots.turn_queue import TURNS
from games import computer_moves, engine, selectors, server_time, services, sweeper
from games.computer_players import computer_players
from games.metrics import closed
from games.models import BotLevel, Seat
from runtime import fair_queue, lanes, traces, work
from runtime.log_context import log_context
from tour.content import style_for

# One task plays consecutive bot moves for this long, then hands on to a fresh task, so a
# table of computer players never holds a worker (or, in-process, its lane) for long.
TASK_BUDGET_SECONDS = 5.0
_rng = random.SystemRandom()
DECISION_TIME = closed(Histogram(
    "batak_computer_decision_seconds", "How long a computer player thought over a move, by "
    "level (a person's stand-in plays at its own level).", ["level"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
), level=BotLevel.values)


def choose(observation: engine.Observation, seat: Seat) -> engine.Action:
    """The computer player's move at ``seat``: its own level at a computer seat, the stand-in
    level at a person's seat (a timeout, autopilot, a person who left). A story-mode character
    plays its own style; other computer seats their level's default."""
    level = seat.bot_level or computer_moves.STAND_IN_LEVEL
    seed = seat.match.bot_seed
    rng = seeded_rng(observation, seed) if seed else _rng
    with DECISION_TIME.labels(level=level).time():
        return choose_action(observation, level, rng, style_for(seat.character))


# Redelivered when its worker dies mid-move (acks_late + reject_on_worker_lost): safe, since
# every move is checked against the version the task was sent for. A database that drops out
# for a moment (restart, failover) is retried a few times; after that the sweeper sends the
# turn again. The time limits are well above TASK_BUDGET_SECONDS plus one slow move: a stuck
# task is stopped, its open transaction rolls back and the sweeper sends the turn again.
_TURN_TASK = dict(
    acks_late=True, max_retries=3, retry_backoff=1, retry_backoff_max=8, soft_time_limit=20,
    time_limit=30,
)


@work.task(TURNS, autoretry_for=(OperationalError, InterfaceError), **_TURN_TASK)
def play_bot_turns(match_id: str, version: int) -> int:
    """Play the computer players' moves from ``version`` on; returns how many were played
    (in the thread of the request that made the move, or on a worker or the computer
    players' lane).

    A task for an older version, or one whose move someone else already made, does nothing:
    every move is made for the version the task holds, so a duplicate or late task can never
    move twice.
    """
    with log_context(match_id=match_id), _metered(match_id):
        played, left_at = _play(match_id, version, time.monotonic() + TASK_BUDGET_SECONDS)
    if left_at is not None:
        computer_players().send_turns(match_id, left_at)
    return played


@work.token(TURNS, autoretry_for=(OperationalError, InterfaceError, BrokerUnavailable),
            **_TURN_TASK)
def play_next_turn(self: Task) -> int:
    """Scaled out: play the next turn of the fair queue (bots/turn_queue.py); returns how many
    moves were played. A turn with nothing left to play (a copy, or played already) costs a
    read, and the token takes the next one. The turn's moves are played on until the token
    has used its slice (turn_queue.slice_for) while another turn waits, or for
    TASK_BUDGET_SECONDS; then the rest queues again behind what waits: a long run of one
    account's moves never holds a worker while others wait."""
    token = self.request.id
    while (turn := turn_queue.take(token)) is not None:
        started = time.monotonic()
        # In the trace of the move that made the turn, which the rest handed on stays in.
        with (log_context(match_id=turn.match_id), traces.carried_on(turn.traceparent),
              _metered(turn.match_id)):
            played, left_at = _play(turn.match_id, turn.version, started + TASK_BUDGET_SECONDS,
                                    share_after=started + turn_queue.slice_for(turn))
        turn_queue.done(token, turn, time.monotonic() - started)
        if left_at is not None:
            work.later(play_bot_turns, turn.match_id, left_at, account=turn.account,
                       delay=server_time.deferral(server_time.match_payers(turn.match_id)))
        if played:
            return played
    return 0


def _metered(match_id: str) -> contextlib.AbstractContextManager[None]:
    """Charge the CPU of what runs inside to whoever pays for ``match_id``'s turns (in a
    request's view, the request's own meter counts it)."""
    return server_time.metered(lambda: server_time.match_payers(match_id))


def _play(
    match_id: str, version: int, deadline: float, *, share_after: float | None = None
) -> tuple[int, int | None]:
    """Play consecutive computer players' moves from ``version`` on, until none is to act, the
    deadline passes, or (``share_after`` passed) another turn waits in the fair queue; returns
    how many were played and the version to hand on at (None when no computer player is to
    act). Each run of moves up to a person's turn or a deal's end is one transaction
    (`computer_moves.play_bot_turns`). Traced as `bots.play_turns` (each move a `match.apply`
    in it)."""
    with traces.span("bots.play_turns",
                     {traces.MATCH_ID: match_id, traces.VERSION: version}) as span:
        played, left_at = _play_on(match_id, version, deadline, share_after)
        span.set_attribute("batak.played", played)
        return played, left_at


def _play_on(
    match_id: str, version: int, deadline: float, share_after: float | None
) -> tuple[int, int | None]:
    def enough() -> bool:
        now = time.monotonic()
        return now > deadline or (
            share_after is not None and now > share_after and turn_queue.waiting()
        )

    played = 0
    while True:
        # A run of moves (up to a person's turn or the deal's end) in one transaction.
        run = computer_moves.play_bot_turns(
            match_id=uuid.UUID(match_id), version=version, choose=choose, enough=enough
        )
        if run is None:
            return played, None
        played += run.version - version
        version = run.version
        if not run.computer_to_act:  # a person's turn, or the match's end: no read to know it
            return played, None
        if enough():
            return played, version


@work.task(work.PERIODIC)
def sweep_bot_turns() -> int:
    """Send stuck computer-player turns to a worker again (run by beat); returns how many."""
    return sweeper.resend_stuck_bot_turns()


@work.task(work.PERIODIC)
def sweep_analyses() -> int:
    """Send post-deal analyses whose task was lost again (run by beat); returns how many."""
    return sweeper.resend_stuck_analyses()


# A clock's deadline: in-process, on the periodic jobs' lane, which runs the clocks.
@work.task(work.PERIODIC, acks_late=True, autoretry_for=(OperationalError, InterfaceError),
           max_retries=3, retry_backoff=1)
def time_out_turn(match_id: str, version: int) -> bool:
    """The stand-in's move for a turn whose clock has just run out (sent for its deadline by
    `run_clocks`); a no-op once the turn was played or timed out."""
    return sweeper.time_out(match_id, version, choose)


@work.task(work.PERIODIC)
def run_clocks() -> int:
    """Make the moves of people whose turn clock ran out and fill quick-match tables whose wait
    is over (run by beat every CLOCK_SWEEP_INTERVAL_SECONDS); returns how many."""
    return sweeper.run_clocks()


# The post-deal analyses: a few deals at a time on their lane in-process (their searches in
# processes of their own at the lowest priority: bots/analysis.py), shared between accounts
# (one account's flood holds all but one of them); scaled out, the analysis workers' queue,
# with its fair queue in front (the account of their match's turns).
ANALYSES = work.Kind("analysis", queue_setting="ANALYSIS_QUEUE",
                     threads_setting="ANALYSIS_PROCESSES",
                     fair=fair_queue.FairQueue("analyses", "ANALYSIS_QUEUE"))


@work.task(ANALYSES)
def analyse_deal(deal_id: int) -> bool:
    """Analyse the ended deal ``deal_id`` (bots/analysis.py) and record it: on the analysis
    worker, or on the embedded default in a process of its own at the lowest CPU priority
    (its searches would hold up the serving process's moves). False when there is nothing to
    do (analysed already: a copy)."""
    found = selectors.deal_to_analyse(deal_id)
    if found is None:
        return False
    start, log = found
    seconds = settings.ANALYSIS_SECONDS_PER_DEAL
    if lanes.on_a_lane():
        result = analysis.analyse_in_background(start, log, seconds,
                                                processes=settings.ANALYSIS_PROCESSES)
    else:
        result = analysis.analyse(start, log, seconds).to_dict()
    services.record_deal_analysis(deal_id=deal_id, result=result)
    return True


@work.token(ANALYSES, acks_late=True,
            autoretry_for=(OperationalError, InterfaceError, BrokerUnavailable), max_retries=3,
            retry_backoff=1, soft_time_limit=3 * settings.ANALYSIS_SECONDS_PER_DEAL + 30,
            time_limit=3 * settings.ANALYSIS_SECONDS_PER_DEAL + 60)
def analyse_next_deal(self: Task) -> bool:
    """Scaled out: analyse the next deal of the fair queue, the next of the account whose
    analyses used the workers least. A deal analysed already (a copy) costs a read, and the
    token takes the next one. False when there was none to analyse."""
    return bool(work.run_next(ANALYSES, self.request.id,
                              lambda taken: analyse_deal(*taken.args) or None))


work.every("CLOCK_SWEEP_INTERVAL_SECONDS", run_clocks, "run-clocks")
work.every("BOT_SWEEP_INTERVAL_SECONDS", sweep_bot_turns, "sweep-bot-turns")
work.every("ANALYSIS_SWEEP_INTERVAL_SECONDS", sweep_analyses, "sweep-analyses")
