"""Post-deal analysis: what each call and card of an ended deal cost its player, two ways.

- With every hand known: the exact search of `bots.solver` on the real layout, the deciding
  player's own later choices searched and every other seat playing the greedy card (the same
  model of the field Hard judges its cards by). Cards and trump choices; a call's worth with
  every hand known depends on the others' calls still to come, so the auction and the
  announcements are judged the second way only.
- From the player's own knowledge at that moment: `bots.advice`, Hard's values of every legal
  choice from the seat's observation alone (its cards over SEEN's layouts). A card that was
  right on what the player could know costs nothing here, even when the layout punished it.

A choice is marked by what it cost from the player's own knowledge, in points (the deal's score
of the player, of its team in the partnership game): an inaccuracy from INACCURACY_POINTS, a
mistake from MISTAKE_POINTS, a blunder from BLUNDER_POINTS. Moves with one legal choice are not
judged.

The work is bounded: the analysis stops judging once ``seconds`` of its thread's CPU time are
spent (what is not judged by then is left unjudged and the analysis marked partial), and the
searches of the layout for one move visit at most NODES_PER_MOVE positions together (a move
that needs more is left without its judgement with every hand known, and the analysis is
marked partial too). Each position is searched once:
a player's searches share the solver's table for the whole deal.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import concurrent.futures.process
import dataclasses
import functools
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from games.engine import (
    Action,
    ActionKind,
    ChooseTrump,
    Deal,
    DealStart,
    Game,
    Observation,
    Phase,
    Play,
)
from games.engine.play import PlayState

from .advice import SEEN, choice_values
from .players import controlled_seats, scoring_side
from .solver import Solver

INACCURACY_POINTS = 5
MISTAKE_POINTS = 10
BLUNDER_POINTS = 30
# About 0.2 s of search on a 2-core machine of 2026 (the deals with a dummy need the most:
# early in their play, sometimes more than this).
NODES_PER_MOVE = 4_000_000
# The player's own view is judged as a hint judges it (`advice.SEEN`): with Hard's own settings
# a deal with a dummy took p95 16 s of CPU; with these, at most 3 s.
TRICKS = list(range(14))


@dataclasses.dataclass(frozen=True, slots=True)
class Judgement:
    """The best choice (by points) and what the one made cost: the points (the player's score
    for the deal) it gave up against the best, and the tricks (its side's) against the choice
    that takes the most, where they are known."""

    best: Action
    points_cost: float
    tricks_cost: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"best": self.best.to_dict(), "points_cost": round(self.points_cost, 2),
                "tricks_cost": None if self.tricks_cost is None else round(self.tricks_cost, 2)}


@dataclasses.dataclass(slots=True)
class MoveReview:
    """One action of the deal's log (``index`` from 1) by the ``seat`` that chose it (the
    declarer for a dummy's card), with its judgements once made."""

    index: int
    seat: int
    action: Action
    observation: Observation
    position: PlayState | None
    choices: int
    known: Judgement | None = None
    seen: Judgement | None = None

    @property
    def mark(self) -> str | None:
        if self.seen is None:
            return None
        cost = self.seen.points_cost
        if cost >= BLUNDER_POINTS:
            return "blunder"
        if cost >= MISTAKE_POINTS:
            return "mistake"
        if cost >= INACCURACY_POINTS:
            return "inaccuracy"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index, "seat": self.seat, "action": self.action.to_dict(),
            "choices": self.choices,
            "known": None if self.known is None else self.known.to_dict(),
            "seen": None if self.seen is None else self.seen.to_dict(),
            "mark": self.mark,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class DealReview:
    moves: list[MoveReview]
    partial: bool
    cpu_seconds: float

    def players(self) -> list[dict[str, Any]]:
        """Per seat: the points its choices gave up, both ways, and its marks."""
        summary = []
        for seat in range(4):
            mine = [move for move in self.moves if move.seat == seat and move.choices > 1]
            marks = [move.mark for move in mine]
            summary.append({
                "seat": seat,
                "points_given_up": round(sum(m.seen.points_cost for m in mine if m.seen), 2),
                "points_given_up_known": round(
                    sum(m.known.points_cost for m in mine if m.known), 2),
                "judged": sum(1 for m in mine if m.seen is not None),
                "inaccuracies": marks.count("inaccuracy"),
                "mistakes": marks.count("mistake"),
                "blunders": marks.count("blunder"),
            })
        return summary

    def to_dict(self) -> dict[str, Any]:
        return {
            "partial": self.partial, "cpu_seconds": round(self.cpu_seconds, 3),
            "thresholds": {"inaccuracy": INACCURACY_POINTS, "mistake": MISTAKE_POINTS,
                           "blunder": BLUNDER_POINTS},
            "moves": [move.to_dict() for move in self.moves],
            "players": self.players(),
        }


@functools.cache
def _solvers() -> tuple[Solver, Solver]:
    # One table for points, one for tricks (their values differ); made on first use, 12 MB each.
    return Solver(), Solver()


# The solvers' tables are not shared between searches running at once.
_searching = threading.Lock()


def analyse(start: DealStart, log: Sequence[tuple[int, Action]], seconds: float) -> DealReview:
    """The review of the ended deal ``start`` played as ``log``, judged for ``seconds`` of this
    thread's CPU time at most (one step past it at most)."""
    with _searching:
        started = time.thread_time()
        moves = _moves(start, log)
        partial = False
        generations: dict[int, tuple[int, int]] = {}
        points_solver, tricks_solver = _solvers()
        judged = [move for move in moves if move.choices > 1]
        # The searches of the layout first (a few hundredths of a second a move), then the
        # player's own view (Hard's search of its plausible layouts: up to seconds a move).
        for move in judged:
            if time.thread_time() - started >= seconds:
                return DealReview(moves, True, time.thread_time() - started)
            if move.seat not in generations:
                generations[move.seat] = (points_solver.forget(), tricks_solver.forget())
            move.known = _known(start, log, move, generations[move.seat])
            partial = partial or (move.known is None and _judged_known(move))
        for move in judged:
            if time.thread_time() - started >= seconds:
                return DealReview(moves, True, time.thread_time() - started)
            move.seen = _seen(move)
        return DealReview(moves, partial, time.thread_time() - started)


# The embedded default's analyses: processes of their own, at the lowest CPU priority. The
# searches hold the interpreter's lock for up to seconds at a time: in a thread of the serving
# process they would hold up its requests and its computer players' moves; in a process the
# system schedules them only when the serving process leaves a core free. Spawned, not forked:
# the serving process has threads. Made on first use.
_background: concurrent.futures.ProcessPoolExecutor | None = None
_background_lock = threading.Lock()


def analyse_in_background(start: DealStart, log: Sequence[tuple[int, Action]],
                          seconds: float, processes: int = 1) -> dict[str, Any]:
    """`analyse`, as a `DealReview.to_dict`, in one of the low-priority analysis processes
    (``processes`` of them, the number the first call asks for)."""
    global _background
    with _background_lock:
        if _background is None:
            _background = concurrent.futures.ProcessPoolExecutor(
                max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=_low_priority_child, initargs=(os.getpid(),))
            # Every process started now, not when the deals first come at once (a process
            # takes about a second to start): a pool starts one for each call it is given while
            # none of its processes is free.
            for _ in range(processes):
                _background.submit(os.getpid)
            # At exit, work under way is dropped (the deal stays queued), not waited for.
            atexit.register(_background.shutdown, wait=False, cancel_futures=True)
        pool = _background
    try:
        return pool.submit(_analysed, start, tuple(log), seconds).result()
    except concurrent.futures.process.BrokenProcessPool:
        # The process died (killed, out of memory): the next analysis starts another.
        with _background_lock:
            if _background is pool:
                _background = None
        raise


def _low_priority_child(parent: int) -> None:
    """The analysis process: at the lowest CPU priority, and gone once the serving process is
    (a process pool's worker otherwise outlives a parent stopped without its shutdown)."""
    os.nice(19)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _analysed(start: DealStart, log: Sequence[tuple[int, Action]],
              seconds: float) -> dict[str, Any]:
    return analyse(start, log, seconds).to_dict()


def _moves(start: DealStart, log: Sequence[tuple[int, Action]]) -> list[MoveReview]:
    deal = Deal(start)
    moves = []
    for index, (seat, action) in enumerate(log, start=1):
        if action.kind != ActionKind.REDEAL:
            observation = deal.observation(seat)
            legal = [a for a in observation.legal_actions if a.kind != ActionKind.REDEAL]
            position = deal.play.copy() if deal.play is not None else None
            moves.append(MoveReview(index, seat, action, observation, position, len(legal)))
        deal.apply(seat, action)
    return moves


def _judged_known(move: MoveReview) -> bool:
    return move.observation.phase in (Phase.PLAY, Phase.TRUMP)


def _known(start: DealStart, log: Sequence[tuple[int, Action]], move: MoveReview,
           generation: tuple[int, int]) -> Judgement | None:
    """The judgement with every hand known: of a card, each legal card's outcome from the
    position after it; of a trump, each trump's from the first lead. None when a search ran
    out of nodes, or for a call."""
    observation = move.observation
    legal = [a for a in observation.legal_actions if a.kind != ActionKind.REDEAL]
    outcomes: dict[Action, tuple[int, int]] = {}
    nodes = [NODES_PER_MOVE]
    if observation.phase == Phase.PLAY:
        assert move.position is not None
        for action in legal:
            assert isinstance(action, Play)
            after = move.position.copy()
            after.play(action.card.index)
            found = _outcome(after, observation, generation, nodes)
            if found is None:
                return None
            outcomes[action] = found
    elif observation.phase == Phase.TRUMP:
        prefix = list(log[:move.index - 1])
        for action in legal:
            assert isinstance(action, ChooseTrump)
            deal = Deal.replay(start, [*prefix, (move.seat, action)])
            if deal.play is None:
                return None
            points_solver, tricks_solver = _solvers()
            # Each trump is another deal for the search: a table generation of its own.
            found = _outcome(deal.play.copy(), deal.observation(move.seat),
                             (points_solver.forget(), tricks_solver.forget()), nodes)
            if found is None:
                return None
            outcomes[action] = found
    else:
        return None
    best = max(legal, key=lambda action: outcomes[action])
    chosen = outcomes[move.action]
    most_tricks = max(tricks for _, tricks in outcomes.values())
    return Judgement(best, outcomes[best][0] - chosen[0], most_tricks - chosen[1])


def _outcome(state: PlayState, observation: Observation,
             generation: tuple[int, int], nodes: list[int]) -> tuple[int, int] | None:
    """The deciding player's best score and its side's most tricks from ``state`` (each
    searched on its own: the best score need not come with the most tricks), visiting at most
    ``nodes[0]`` positions (what they leave is put back there); None when that is not enough."""
    side, values = scoring_side(observation)
    if state.finished:
        taken = sum(state.tricks_won[seat] for seat in side)
        return values[taken], taken
    controlled = controlled_seats(observation)
    partnership = observation.rules.game == Game.PARTNERSHIP
    points_solver, tricks_solver = _solvers()
    points, nodes[0] = points_solver.bounded_response(state, controlled, side, values,
                                                      partnership, nodes[0], generation[0])
    if points is None:
        return None
    tricks, nodes[0] = tricks_solver.bounded_response(state, controlled, side, TRICKS,
                                                      partnership, nodes[0], generation[1])
    return None if tricks is None else (points, tricks)


def _seen(move: MoveReview) -> Judgement | None:
    """The judgement from the player's own knowledge (`bots.advice`)."""
    values = choice_values(move.observation, settings=SEEN)
    chosen = next((value for value in values if value.action == move.action), None)
    if not values or chosen is None:
        return None
    best = values[0]
    tricks = (None if best.tricks is None or chosen.tricks is None
              else best.tricks - chosen.tricks)
    return Judgement(best.action, best.points - chosen.points, tricks)
