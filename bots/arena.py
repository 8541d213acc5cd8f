"""Duplicate arena: how much better a player scores than a field on the very same cards.

Each deal-set is one shuffle played five times: once with the field in all four seats, then
four times with the tested player in one seat and the field in the other three. The tested
player's advantage in a seat is its score there minus the field's score in that seat; a
deal-set's advantage is the mean over the four seats. Luck of the cards cancels out, which is
what makes a few hundred deal-sets enough.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator

from games.engine import (
    Action,
    Deal,
    DealStart,
    Game,
    Observation,
    Phase,
    Play,
    TableRules,
)
from games.engine.cards import ALL_CARDS

from . import players

SEES_ALL = "medium-sees-all"


@dataclasses.dataclass(frozen=True)
class SetResult:
    advantage: float  # mean over the four seats
    as_declarer: list[float]  # per-seat differences where the tested player declared
    as_defender: list[float]
    decision_seconds: list[float]  # the tested player's decisions


def _decide(deal: Deal, seat: int, level: str, rng: random.Random) -> tuple[Action, float]:
    observation = deal.observation(seat)
    started = time.perf_counter()
    if level == SEES_ALL and deal.phase == Phase.PLAY:
        action = _sees_all_card(deal, observation)
    else:
        action = players.choose_action(observation, "medium" if level == SEES_ALL else level,
                                       rng)
    return action, time.perf_counter() - started


def _sees_all_card(deal: Deal, observation: Observation) -> Action:
    """Medium's bidding, but each card chosen by Hard's search run in the real layout instead of
    sampled ones: a cheating reference that knows every hand, never offered as a level."""
    state = deal.play
    assert state is not None
    partnership = deal.rules.game == Game.PARTNERSHIP
    controlled = players.controlled_seats(observation)
    side, values = players.scoring_side(observation)
    solver = players.endgame_solver()

    def outcome(card: int) -> int:
        after = state.copy()
        after.play(card)
        return solver.best_response(after, controlled, side, values, partnership)

    cards = [action.card.index for action in observation.legal_actions  # type: ignore[union-attr]
             if action.kind == "play"]
    return Play(ALL_CARDS[max(cards, key=outcome)])


def play_deal(start: DealStart, levels: list[str], seed: int,
              timed_seat: int | None = None) -> tuple[Deal, list[float]]:
    deal = Deal(start)
    rng = random.Random(seed)
    times: list[float] = []
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        action, seconds = _decide(deal, seat, levels[seat], rng)
        if seat == timed_seat:
            times.append(seconds)
        deal.apply(seat, action)
    return deal, times


def _play_set(args: tuple[TableRules, str, str, int]) -> SetResult:
    rules, tested, field, seed = args
    rng = random.Random(seed)
    while True:
        start = DealStart.shuffle(rules, dealer=seed % 4, rng=rng)
        baseline, _ = play_deal(start, [field] * 4, seed)
        if baseline.phase == Phase.FINISHED:
            break
    assert baseline.score is not None
    differences, declaring, defending, times = [], [], [], []
    for seat in range(4):
        levels = [field] * 4
        levels[seat] = tested
        deal, seconds = play_deal(start, levels, seed + 1 + seat, timed_seat=seat)
        times.extend(seconds)
        if deal.phase != Phase.FINISHED:
            differences.append(0.0)
            continue
        assert deal.score is not None
        difference = deal.score.points[seat] - baseline.score.points[seat]
        differences.append(difference)
        (declaring if deal.declarer == seat else defending).append(difference)
    return SetResult(statistics.fmean(differences), declaring, defending, times)


@dataclasses.dataclass(frozen=True)
class ArenaReport:
    game: str
    tested: str
    field: str
    deal_sets: int
    mean: float
    half_width: float  # 95% confidence interval: mean ± half_width
    declarer_mean: float | None
    declarer_count: int
    defender_mean: float | None
    defender_count: int
    decision_p50_ms: float
    decision_p95_ms: float
    seconds: float

    def line(self) -> str:
        def part(name: str, value: float | None, count: int) -> str:
            return f"{name} {value:+.1f} (n={count})" if value is not None else f"{name} —"

        return (
            f"{self.game:<11} {self.tested:>6} vs {self.field:<15} "
            f"{self.mean:+6.1f} ± {self.half_width:4.1f} pts/deal  "
            f"[{part('declarer', self.declarer_mean, self.declarer_count)}, "
            f"{part('defender', self.defender_mean, self.defender_count)}]  "
            f"decision p50 {self.decision_p50_ms:.2f} ms p95 {self.decision_p95_ms:.2f} ms  "
            f"({self.deal_sets} deal-sets, {self.seconds:.0f} s)"
        )


def run(
    game: str,
    tested: str,
    field: str,
    deal_sets: int,
    *,
    seed: int = 1,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ArenaReport:
    rules = TableRules.create(game)
    jobs = [(rules, tested, field, seed * 100_003 + index * 7) for index in range(deal_sets)]
    started = time.perf_counter()
    results: list[SetResult] = []
    for result in _map(jobs, workers):
        results.append(result)
        if progress:
            progress(len(results), deal_sets)
    advantages = [r.advantage for r in results]
    mean = statistics.fmean(advantages)
    spread = statistics.stdev(advantages) if len(advantages) > 1 else 0.0
    declaring = [d for r in results for d in r.as_declarer]
    defending = [d for r in results for d in r.as_defender]
    times = sorted(t for r in results for t in r.decision_seconds) or [0.0]
    return ArenaReport(
        game=game, tested=tested, field=field, deal_sets=deal_sets, mean=mean,
        half_width=1.96 * spread / math.sqrt(len(advantages)),
        declarer_mean=statistics.fmean(declaring) if declaring else None,
        declarer_count=len(declaring),
        defender_mean=statistics.fmean(defending) if defending else None,
        defender_count=len(defending),
        decision_p50_ms=times[len(times) // 2] * 1000,
        decision_p95_ms=times[min(len(times) - 1, int(len(times) * 0.95))] * 1000,
        seconds=time.perf_counter() - started,
    )


def _map(jobs: list[tuple[TableRules, str, str, int]], workers: int) -> Iterator[SetResult]:
    if workers <= 1:
        yield from map(_play_set, jobs)
        return
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap_unordered(_play_set, jobs, chunksize=4)


def progress_bar(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
