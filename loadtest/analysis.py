"""The post-deal analysis's cost per deal, and what a flood of it does to computer players' moves.

    python -m loadtest.analysis [--deals 20] [--seconds 10] [--seed 1] [--flood 100]

For each game (auction; partnership, without and with a face-up dummy; Koz Maça) it deals
``--deals`` random deals, plays them out with Medium players at every seat and analyses each
as the service does (`bots.analysis.analyse`, ``--seconds`` of CPU a deal, the default of
ANALYSIS_SECONDS_PER_DEAL), then prints the CPU seconds a deal took (p50, p95, max) and the
share of deals left partial (``--deals 0``: none).

With ``--flood N`` it then times ``N`` Hard computer players' moves, one every 0.1 s (as a
person's table sends them), alone and again while this process's analysis lane works through a
flood of ended deals as on the embedded default (in the analysis process, at the lowest CPU
priority: `bots.analysis.analyse_in_background`), and prints the moves' p50 and p95 wall times.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")
    import django

    django.setup()


def _played(rules, rng: random.Random):  # type: ignore[no-untyped-def]
    from bots.players import choose_action
    from games.engine import Deal, Phase

    while True:
        deal = Deal.new(rules, rng.randrange(4), rng=rng)
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, choose_action(deal.observation(seat), "medium", rng))
        if deal.phase == Phase.FINISHED:
            return deal


def games():  # type: ignore[no-untyped-def]
    from games.engine import PRESETS, Game, TableRules

    partnership = PRESETS[Game.PARTNERSHIP].to_dict()
    return {
        "auction": PRESETS[Game.AUCTION],
        "partnership": PRESETS[Game.PARTNERSHIP],
        "partnership, dummy": TableRules.from_dict({**partnership, "partnership_dummy": True}),
        "spades (Koz Maça)": PRESETS[Game.SPADES],
    }


def cost(deals: int, seconds: float, seed: int) -> None:
    from bots import analysis
    from bots.players import warm_up

    warm_up()
    print(f"{'game':<20} {'deals':>5} {'p50 CPU s':>10} {'p95 CPU s':>10} {'max':>7} "
          f"{'partial':>8}")
    for name, rules in games().items():
        rng = random.Random(seed)
        spent, partial = [], 0
        for _ in range(deals):
            deal = _played(rules, rng)
            review = analysis.analyse(deal.start, deal.log, seconds)
            spent.append(review.cpu_seconds)
            partial += review.partial
        p95 = statistics.quantiles(spent, n=20)[-1] if len(spent) > 1 else spent[0]
        print(f"{name:<20} {deals:>5} {statistics.median(spent):>10.2f} {p95:>10.2f} "
              f"{max(spent):>7.2f} {partial / deals:>8.0%}")


def flood(moves: int, seconds: float, seed: int) -> None:
    from bots.players import choose_action
    from games.engine import PRESETS, Deal, Game, Observation, Phase

    rng = random.Random(seed)
    positions: list[Observation] = []
    while len(positions) < moves:
        deal = Deal.new(PRESETS[Game.AUCTION], 0, rng=rng)
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None
            if (deal.phase == Phase.PLAY and len(positions) < moves
                    and len(deal.legal_cards()) > 1):
                positions.append(deal.observation(seat))
            deal.apply(seat, choose_action(deal.observation(seat), "medium", rng))

    def timed() -> list[float]:
        took = []
        for observation in positions:
            started = time.perf_counter()
            choose_action(observation, "hard", random.Random(0))
            took.append(time.perf_counter() - started)
            time.sleep(0.1)
        return took

    def summary(took: list[float]) -> str:
        p95 = statistics.quantiles(took, n=20)[-1]
        return f"p50 {statistics.median(took) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"

    alone = timed()
    stop = threading.Event()
    analysed = [0]

    def analyse_on() -> None:
        from bots import analysis

        flood_rng = random.Random(seed + 1)
        rules = games()["partnership, dummy"]
        while not stop.is_set():
            deal = _played(rules, flood_rng)
            analysis.analyse_in_background(deal.start, deal.log, seconds)
            analysed[0] += 1

    worker = threading.Thread(target=analyse_on, daemon=True)
    worker.start()
    while not analysed[0]:  # the analysis process started and warm
        time.sleep(0.1)
    flooded = timed()
    stop.set()
    print(f"Hard moves alone:             {summary(alone)}")
    print(f"Hard moves beside a flood:    {summary(flooded)} ({analysed[0]} deals analysed "
          "meanwhile)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--flood", type=int, default=0)
    args = parser.parse_args()
    _setup()
    if args.deals:
        cost(args.deals, args.seconds, args.seed)
    if args.flood:
        flood(args.flood, args.seconds, args.seed)


if __name__ == "__main__":
    main()
