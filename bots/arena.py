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
    RequestRedeal,
    TableRules,
)
from games.engine.cards import ALL_CARDS

from . import card_sense, players
from .knowledge import infer
from .sampling import WorldSampler

# Reference fields, never offered as levels. The seeing ones choose every card by the search
# run in the real layout: with Medium's calls, the best card (ties to the first legal one); with
# Hard's, Hard itself given the real layout as its only world (its card sense and tie-breaks).
SEES_ALL = "medium-sees-all"
HARD_SEES_ALL = "hard-sees-all"
PIMC = "pimc"

# Where a judged player's card-play decisions fall: lead or follow, early, middle or late.
STAGES = tuple(f"{role} {tricks}" for role in ("lead", "follow")
               for tricks in ("tricks 1-3", "tricks 4-8", "tricks 9-13"))


# The tested player's role in a deal: it declared, its partner did (partnership game), or the
# other side did.
ROLES = ("declarer", "partner", "defender")


@dataclasses.dataclass(frozen=True)
class SetResult:
    advantage: float  # mean over the four seats
    by_role: dict[str, list[float]]  # per-seat differences, by the tested player's role
    card_seconds: list[float]  # the tested player's card choices (more than one legal card)
    call_seconds: list[float]  # its calls (bids and passes, trumps, announcements) with a choice
    cards: int  # cards the tested player chose (more than one legal)
    waste: dict[str, int]  # of them, dominated ones by kind (`card_sense.WASTE_KINDS`)
    # Judged runs, summed over the tested player's four deals: points its cards gave up against
    # the best card of a search that sees every hand (`seeing_values`), and what seeing every
    # hand is worth at the same decisions to a player holding Hard's beliefs (`unseen_value`).
    loss_by_stage: dict[str, float] = dataclasses.field(default_factory=dict)
    unseen_value: float = 0.0


# The levels whose calls (bids, trumps, announcements) a reference field makes.
_CALLS_OF = {SEES_ALL: "medium", HARD_SEES_ALL: "hard", PIMC: "hard"}


def _decide(deal: Deal, observation: Observation, level: str,
            rng: random.Random) -> tuple[Action, float]:
    started = time.perf_counter()
    # A weak hand's redeal request, offered at the first lead, is a call.
    card_play = deal.phase == Phase.PLAY and RequestRedeal() not in observation.legal_actions
    if level == SEES_ALL and card_play:
        action = _sees_all_card(deal, observation)
    elif level == HARD_SEES_ALL and card_play:
        action = _hard_sees_all_card(deal, observation)
    elif level == PIMC and card_play:
        action = pimc_card(observation, rng)
    else:
        action = players.choose_action(observation, _CALLS_OF.get(level, level), rng)
    return action, time.perf_counter() - started


def pimc_card(observation: Observation, rng: random.Random) -> Action:
    """The textbook perfect-information Monte Carlo player, as a yardstick: Hard's number of
    worlds, sampled uniformly among the layouts the rules' inferences allow (no card reading,
    no weighing by the auction), every legal card scored in each by Hard's own play-out and
    search, the best mean taken, ties to the first legal card (no card sense). Its calls are
    Hard's, so only the card play differs."""
    moves = [a for a in observation.legal_actions if a.kind == "play"]
    if len(moves) == 1:
        return moves[0]
    sampler = WorldSampler(infer(observation))
    worlds = [(sampler.sample(rng), 1.0) for _ in range(players.HARD.worlds)]
    means = players.card_means(observation, moves, worlds)
    return max(moves, key=means.__getitem__)


def seeing_values(deal: Deal, observation: Observation) -> dict[int, int]:
    """The seat's final score after each card it may play, every later card of its own chosen
    by Hard's search in the real layout and the others' by the greedy player (Medium's play)."""
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

    return {action.card.index: outcome(action.card.index)  # type: ignore[union-attr]
            for action in observation.legal_actions if action.kind == "play"}


def _sees_all_card(deal: Deal, observation: Observation) -> Action:
    """Medium's calls, but each card chosen by Hard's search run in the real layout instead of
    sampled ones: a cheating reference that knows every hand, never offered as a level."""
    values = seeing_values(deal, observation)
    return Play(ALL_CARDS[max(values, key=values.__getitem__)])


def _hard_sees_all_card(deal: Deal, observation: Observation) -> Action:
    """Hard's card had it sampled the real layout alone: the cards card sense leaves, each
    judged by Hard's search in that layout, the best taken with Hard's preferences among
    equals. What perfect card reading would give Hard, and no more."""
    moves = players.worth_searching(observation)
    if len(moves) == 1:
        return moves[0]
    assert deal.play is not None
    real_layout = [(list(deal.play.hands), 1.0)]
    return players.preferred_card(observation, players.card_means(observation, moves, real_layout))


def unseen_value(observation: Observation, rng: random.Random) -> float:
    """What seeing every hand would be worth, in points, to a player who holds Hard's beliefs
    and searches as Hard does: the mean over its worlds of each world's best card's score, less
    the best mean score of one card. Whatever card a player with these beliefs picks, it
    expects to give up at least this much to the seeing search at this decision."""
    moves = [a for a in observation.legal_actions if a.kind == "play"]
    rows = [(weight, players.card_means(observation, moves, [(world, weight)]))
            for world, weight in players.plausible_worlds(observation, rng)]
    weight = sum(w for w, _ in rows)
    best_each = sum(w * max(scores.values()) for w, scores in rows) / weight
    best_one = max(sum(w * scores[move] for w, scores in rows) for move in moves) / weight
    return best_each - best_one


def _stage(observation: Observation) -> str:
    trick = 14 - len(observation.hand)
    tricks = "tricks 1-3" if trick <= 3 else "tricks 4-8" if trick <= 8 else "tricks 9-13"
    assert observation.current_trick is not None
    return f"{'follow' if observation.current_trick.plays else 'lead'} {tricks}"


@dataclasses.dataclass
class _Record:
    """What a deal with a tested seat keeps about that seat's decisions."""

    card_seconds: list[float] = dataclasses.field(default_factory=list)
    call_seconds: list[float] = dataclasses.field(default_factory=list)
    loss_by_stage: dict[str, float] = dataclasses.field(default_factory=dict)
    unseen_value: float = 0.0
    cards: int = 0
    waste: dict[str, int] = dataclasses.field(default_factory=dict)

    def count_waste(self, observation: Observation, card: int) -> None:
        if len(observation.legal_actions) < 2:
            return
        self.cards += 1
        state, knowledge = players.known_position(observation)
        partnership = observation.rules.game == Game.PARTNERSHIP
        kind = card_sense.waste(state, knowledge, partnership, card)
        if kind:
            self.waste[kind] = self.waste.get(kind, 0) + 1


def play_deal(start: DealStart, levels: list[str], seed: int, tested_seat: int | None = None,
              judged: bool = False) -> tuple[Deal, _Record]:
    """Play ``start`` out; the tested seat's decisions are timed and, when ``judged``, each of
    its cards is scored against the seeing search's best one (the judging is not timed)."""
    deal = Deal(start)
    rng = random.Random(seed)
    judge_rng = random.Random(seed)  # the judge's own worlds leave the players' draws alone
    record = _Record()
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        observation = deal.observation(seat)
        action, seconds = _decide(deal, observation, levels[seat], rng)
        if seat == tested_seat:
            if len(observation.legal_actions) > 1:
                chosen = record.card_seconds if isinstance(action, Play) else record.call_seconds
                chosen.append(seconds)
            if isinstance(action, Play):
                record.count_waste(observation, action.card.index)
            if judged and isinstance(action, Play):
                values = seeing_values(deal, observation)
                stage = _stage(observation)
                loss = max(values.values()) - values[action.card.index]
                record.loss_by_stage[stage] = record.loss_by_stage.get(stage, 0) + loss
                if len(values) > 1:
                    record.unseen_value += unseen_value(observation, judge_rng)
        deal.apply(seat, action)
    return deal, record


def _play_set(args: tuple[TableRules, str, str, int, bool]) -> SetResult:
    rules, tested, field, seed, judged = args
    rng = random.Random(seed)
    while True:
        start = DealStart.shuffle(rules, dealer=seed % 4, rng=rng)
        baseline, _ = play_deal(start, [field] * 4, seed)
        if baseline.phase == Phase.FINISHED:
            break
    assert baseline.score is not None
    differences: list[float] = []
    by_role: dict[str, list[float]] = {role: [] for role in ROLES}
    times: list[float] = []
    call_times: list[float] = []
    losses: dict[str, float] = {}
    waste: dict[str, int] = {}
    unseen = 0.0
    cards = 0
    for seat in range(4):
        levels = [field] * 4
        levels[seat] = tested
        deal, record = play_deal(start, levels, seed + 1 + seat, seat, judged)
        times.extend(record.card_seconds)
        call_times.extend(record.call_seconds)
        for stage, loss in record.loss_by_stage.items():
            losses[stage] = losses.get(stage, 0) + loss
        for kind, count in record.waste.items():
            waste[kind] = waste.get(kind, 0) + count
        cards += record.cards
        unseen += record.unseen_value
        if deal.phase != Phase.FINISHED:
            differences.append(0.0)
            continue
        assert deal.score is not None
        difference = deal.score.points[seat] - baseline.score.points[seat]
        differences.append(difference)
        by_role[_role(deal, seat)].append(difference)
    return SetResult(statistics.fmean(differences), by_role, times, call_times, cards, waste,
                     losses, unseen)


def _role(deal: Deal, seat: int) -> str:
    if deal.declarer == seat:
        return "declarer"
    partnership = deal.rules.game == Game.PARTNERSHIP
    return "partner" if partnership and deal.declarer == (seat + 2) % 4 else "defender"


@dataclasses.dataclass(frozen=True)
class ArenaReport:
    game: str
    tested: str
    field: str
    deal_sets: int
    mean: float
    half_width: float  # 95% confidence interval: mean ± half_width
    role_means: dict[str, tuple[float, int]]  # role -> (mean difference, seat-deals)
    # The tested player's card choices (more than one legal card), in milliseconds.
    card_p50_ms: float
    card_p95_ms: float
    card_max_ms: float
    seconds: float
    # Its calls (none in Koz Maça without announcements), in milliseconds.
    call_p50_ms: float = 0.0
    call_p95_ms: float = 0.0
    # Judged runs, per deal: points the tested player's cards gave up against the seeing
    # search's, by stage (see `STAGES`; empty otherwise), and the part of it no player holding
    # Hard's beliefs avoids (`unseen_value`).
    loss_by_stage: dict[str, float] = dataclasses.field(default_factory=dict)
    unseen_value: float = 0.0
    cards: int = 0  # the tested player's card choices (more than one legal card)
    waste: dict[str, int] = dataclasses.field(default_factory=dict)

    def line(self) -> str:
        roles = ", ".join(f"{role} {mean:+.1f} (n={count})"
                          for role, (mean, count) in self.role_means.items())
        wasted = ", ".join(f"{kind} {self.waste.get(kind, 0)}"
                           for kind in card_sense.WASTE_KINDS)
        return (
            f"{self.game:<11} {self.tested:>6} vs {self.field:<15} "
            f"{self.mean:+6.1f} ± {self.half_width:4.1f} pts/deal  [{roles}]  "
            f"card p50 {self.card_p50_ms:.1f} ms p95 {self.card_p95_ms:.1f} ms "
            f"max {self.card_max_ms:.0f} ms, {self._calls()}  "
            f"({self.deal_sets} deal-sets, {self.seconds:.0f} s)"
            f"\n  dominated cards of {self.cards} chosen: {wasted}"
        ) + self._losses()

    def _calls(self) -> str:
        if not self.call_p95_ms:
            return "no calls"
        return f"call p50 {self.call_p50_ms:.1f} ms p95 {self.call_p95_ms:.1f} ms"

    def _losses(self) -> str:
        if not self.loss_by_stage:
            return ""
        parts = ", ".join(f"{stage} {self.loss_by_stage[stage]:.2f}" for stage in STAGES)
        total = sum(self.loss_by_stage.values())
        return (f"\n  given up against the seeing search: {total:.2f} pts/deal ({parts});"
                f"\n  seeing every hand at the same decisions, to Hard's beliefs: "
                f"{self.unseen_value:.2f} pts/deal")


def run(
    game: str,
    tested: str,
    field: str,
    deal_sets: int,
    *,
    seed: int = 1,
    workers: int = 1,
    judged: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ArenaReport:
    """Play ``deal_sets`` deal-sets; ``judged`` also scores each card of the tested player
    against the best card of a search that sees every hand (slow: a full search per legal card)."""
    rules = TableRules.create(game)
    players.warm_up()  # before the workers fork: no timed decision waits for a compile
    jobs = [(rules, tested, field, seed * 100_003 + index * 7, judged)
            for index in range(deal_sets)]
    started = time.perf_counter()
    results: list[SetResult] = []
    for result in _map(jobs, workers):
        results.append(result)
        if progress:
            progress(len(results), deal_sets)
    advantages = [r.advantage for r in results]
    mean = statistics.fmean(advantages)
    spread = statistics.stdev(advantages) if len(advantages) > 1 else 0.0
    role_means = {}
    for role in ROLES:
        differences = [d for r in results for d in r.by_role[role]]
        if differences:
            role_means[role] = (statistics.fmean(differences), len(differences))
    waste: dict[str, int] = {}
    for result in results:
        for kind, count in result.waste.items():
            waste[kind] = waste.get(kind, 0) + count
    times = sorted(t for r in results for t in r.card_seconds) or [0.0]
    call_times = sorted(t for r in results for t in r.call_seconds) or [0.0]
    return ArenaReport(
        game=game, tested=tested, field=field, deal_sets=deal_sets, mean=mean,
        half_width=1.96 * spread / math.sqrt(len(advantages)),
        role_means=role_means,
        card_p50_ms=times[len(times) // 2] * 1000,
        card_p95_ms=_percentile(times, 0.95) * 1000,
        card_max_ms=times[-1] * 1000,
        call_p50_ms=call_times[len(call_times) // 2] * 1000,
        call_p95_ms=_percentile(call_times, 0.95) * 1000,
        seconds=time.perf_counter() - started,
        loss_by_stage={
            stage: sum(r.loss_by_stage.get(stage, 0) for r in results) / (4 * len(results))
            for stage in STAGES
        } if judged else {},
        unseen_value=sum(r.unseen_value for r in results) / (4 * len(results)),
        cards=sum(r.cards for r in results),
        waste=waste,
    )


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def _map(jobs: list[tuple[TableRules, str, str, int, bool]], workers: int) -> Iterator[SetResult]:
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
