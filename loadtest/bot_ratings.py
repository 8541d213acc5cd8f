"""The computer players' ratings, measured against each other on people's scale.

    python -m loadtest.bot_ratings [--matches 240] [--deals 4] [--seed 1] [--game auction]
        [--workers 1] [--orders 5] [--bootstrap 200] [--save FILE] [--results FILE ...]

Plays ``--matches`` matches of ``--deals`` deals with the engine (no database, as the arena
does), one computer player of each level at every table: the seatings go through all 24
orders of the four levels, so each level sits in every seat, and after every other level, as
often as the others. Each match's final ranking (the engine's, ties shared) rates its four
seats with `ratings.model.rate`, nobody fixed, every level starting at the default skill,
match after match: what a person's rating goes through. A level's rating is the mean over
``--orders`` orders of the matches (as played, then shuffled), anchored so that the levels'
mean is 1500 (docs/ratings.md says why).

How sure each is comes from a bootstrap: the matches drawn again with replacement and rated
again the same way; a level's spread is its rating's standard deviation over the draws, and
each pair of levels gets the share of draws in which the stronger one came out ahead. The
last line is the proposed `BOT_RATINGS`. ``--save`` keeps the matches' results, and
``--results`` rates saved ones (several runs together) without playing.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from bots import players
from games.engine import Game, Match, TableRules
from ratings.model import CENTRE, Player, Skill, rate

# games.models.BotLevel's values, weakest first (a test holds them together; importing the
# model would need Django set up).
LEVELS = ("easy", "medium", "hard", "expert")
# Every order of one player of each level around the table.
SEATINGS = tuple(itertools.permutations(LEVELS))


@dataclasses.dataclass(frozen=True)
class MatchResult:
    levels: tuple[str, ...]  # by seat
    places: tuple[int, ...]  # by seat, 1-based, shared on a tie


@dataclasses.dataclass(frozen=True)
class LevelFit:
    rating: int  # on the anchored scale
    deviation: int  # the model's own, 48 sigma
    matches: int
    wins: int  # first place, shared or not
    average_place: float


def schedule(matches: int) -> list[tuple[str, ...]]:
    """The levels by seat of each match: the 24 seatings over and over (whole rounds of 24 keep
    every seat and every neighbour equally shared)."""
    return [SEATINGS[index % len(SEATINGS)] for index in range(matches)]


def play_match(job: tuple[str, tuple[str, ...], int, int]) -> MatchResult:
    """One match of ``deals`` deals between the computer players ``levels`` (by seat)."""
    game, levels, deals, seed = job
    rules = TableRules.create(game)
    decisions = random.Random(seed)
    match = Match(rules, deals, first_dealer=seed % 4, rng=random.Random(seed + 1))
    while not match.is_over:
        deal = match.current
        seat = deal.to_act
        assert seat is not None
        match.apply(seat, players.choose_action(deal.observation(seat), levels[seat], decisions))
    return MatchResult(levels, match.ranking())


def fit(results: Sequence[MatchResult], *, partnership: bool) -> dict[str, Skill]:
    """Each level's skill after rating ``results`` in order, everyone from the default skill."""
    skills = {level: Skill() for level in LEVELS}
    for result in results:
        assert len(set(result.levels)) == 4, "one player of each level at a table"
        seats = [Player(skills[level], place) for level, place in zip(result.levels,
                                                                      result.places, strict=True)]
        for level, skill in zip(result.levels, rate(seats, partnership=partnership), strict=True):
            skills[level] = skill
    return skills


def anchored(skills: dict[str, Skill]) -> dict[str, float]:
    """The ratings shifted so that the levels' mean is the scale's centre, 1500."""
    shift = CENTRE - statistics.fmean(skill.rating for skill in skills.values())
    return {level: skill.rating + shift for level, skill in skills.items()}


def averaged(results: Sequence[MatchResult], orders: int, rng: random.Random, *,
             partnership: bool) -> dict[str, float]:
    """The anchored ratings averaged over ``orders`` orders of the matches: as given, then
    shuffled. A rating rated match by match leans on the last matches; averaging over orders
    takes that luck of the order out and keeps the matches' own."""
    shuffled = list(results)
    draws = []
    for order in range(orders):
        if order:
            rng.shuffle(shuffled)
        draws.append(anchored(fit(shuffled, partnership=partnership)))
    return {level: statistics.fmean(draw[level] for draw in draws) for level in LEVELS}


def summary(results: Sequence[MatchResult], orders: int, rng: random.Random, *,
            partnership: bool) -> dict[str, LevelFit]:
    skills = fit(results, partnership=partnership)
    ratings = averaged(results, orders, rng, partnership=partnership)
    fits = {}
    for level in LEVELS:
        places = [result.places[result.levels.index(level)] for result in results
                  if level in result.levels]
        fits[level] = LevelFit(
            rating=round(ratings[level]), deviation=skills[level].deviation,
            matches=len(places), wins=sum(place == 1 for place in places),
            average_place=statistics.fmean(places) if places else 0.0,
        )
    return fits


def bootstrap(results: Sequence[MatchResult], rounds: int, orders: int, rng: random.Random, *,
              partnership: bool) -> list[dict[str, float]]:
    """The ratings (as `averaged`) of ``rounds`` draws of the matches with replacement."""
    return [averaged(rng.choices(results, k=len(results)), orders, rng, partnership=partnership)
            for _ in range(rounds)]


def spreads(draws: Sequence[dict[str, float]]) -> dict[str, float]:
    return {level: _stdev([draw[level] for draw in draws]) for level in LEVELS}


def _stdev(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def ahead_shares(draws: Sequence[dict[str, float]]) -> dict[tuple[str, str], float]:
    """For each pair of levels (weaker, stronger), the share of draws rating the stronger one
    above the weaker."""
    return {(weaker, stronger): statistics.fmean(draw[stronger] > draw[weaker] for draw in draws)
            for weaker, stronger in itertools.combinations(LEVELS, 2)}


def published(fits: dict[str, LevelFit], spread: dict[str, float]) -> dict[str, tuple[int, int]]:
    """The proposed `BOT_RATINGS`: ratings to the nearest 10 points, deviations (the bootstrap
    spread) to the next 5."""
    return {level: (10 * round(fits[level].rating / 10), 5 * max(1, -(-round(spread[level]) // 5)))
            for level in LEVELS}


def _play(jobs: list[tuple[str, tuple[str, ...], int, int]], workers: int
          ) -> Iterator[MatchResult]:
    if workers <= 1:
        yield from map(play_match, jobs)
        return
    # In order: the matches are rated in the order they were scheduled, whoever finished first.
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(play_match, jobs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=240)
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=[game.value for game in Game], default=Game.AUCTION)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--orders", type=int, default=5)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--save", help="write each match's result to this file (JSON lines)")
    parser.add_argument("--results", action="append", default=[],
                        help="rate the results saved in this file (repeatable) instead of playing")
    args = parser.parse_args(argv)
    partnership = args.game == Game.PARTNERSHIP
    started = time.perf_counter()
    results = [MatchResult(tuple(row["levels"]), tuple(row["places"])) for path in args.results
               for row in map(json.loads, Path(path).read_text().splitlines())]
    if not args.results:
        players.warm_up()  # before the workers fork: each would compile the search otherwise
        jobs = [(args.game, levels, args.deals, args.seed * 100_003 + index * 7)
                for index, levels in enumerate(schedule(args.matches))]
        # One line a match, written as it ends: a run stopped early still counts what it played.
        if args.save:
            Path(args.save).write_text("")
        for result in _play(jobs, args.workers):
            results.append(result)
            if args.save:
                with Path(args.save).open("a") as saved:
                    saved.write(json.dumps(dataclasses.asdict(result)) + "\n")
            sys.stderr.write(f"\r{len(results)}/{len(jobs)} matches, "
                             f"{time.perf_counter() - started:.0f} s")
        sys.stderr.write("\n")
    seconds = time.perf_counter() - started
    rng = random.Random(args.seed)
    fits = summary(results, args.orders, rng, partnership=partnership)
    draws = bootstrap(results, args.bootstrap, args.orders, rng, partnership=partnership)
    spread = spreads(draws)
    print(f"{args.game}: {len(results)} matches of {args.deals} deals, seed {args.seed}, "
          f"{seconds:.0f} s; scale anchored on the levels' mean = {CENTRE}")
    print(f"{'level':<7} {'rating':>6} {'± spread':>8} {'model dev':>9} {'matches':>7} "
          f"{'wins':>9} {'avg place':>9}")
    for level, level_fit in fits.items():
        wins = f"{level_fit.wins} ({100 * level_fit.wins / max(1, level_fit.matches):.0f}%)"
        print(f"{level:<7} {level_fit.rating:>6} {spread[level]:>8.0f} {level_fit.deviation:>9} "
              f"{level_fit.matches:>7} {wins:>9} {level_fit.average_place:>9.2f}")
    print(f"ratings averaged over {args.orders} orders of the matches; bootstrap "
          f"({args.bootstrap} draws): share of draws with the stronger level ahead")
    for (weaker, stronger), share in ahead_shares(draws).items():
        difference = fits[stronger].rating - fits[weaker].rating
        spread_of_difference = _stdev([draw[stronger] - draw[weaker] for draw in draws])
        print(f"  {stronger} over {weaker}: {difference:+} ± {spread_of_difference:.0f} points, "
              f"ahead in {100 * share:.0f}%")
    print("BOT_RATINGS =", {level: value for level, value in published(fits, spread).items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
