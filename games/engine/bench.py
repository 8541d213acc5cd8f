"""Engine benchmark: ``python -m games.engine.bench [--seconds 5]``.

Prints random full deals per second (secure shuffle and deal, auction skipped, 52 plays each
chosen uniformly among the legal cards) on one core, and the cost of the calls the API and the
bots make: `PlayState.legal_mask`, `Deal.legal_actions`, `Deal.apply` and `Deal.observation`.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable

from .cards import indices_of
from .deal import Deal, DealStart
from .play import PlayState, next_seat_table
from .rules import TableRules
from .shuffle import hands_from_deck, shuffled_deck


def random_deals(rules: TableRules, seconds: float, rng: random.Random) -> tuple[int, float]:
    """Full random deals on the lean core until ``seconds`` have passed: (deals, elapsed)."""
    next_seat = next_seat_table(rules.direction == "clockwise")
    choice = rng.choice
    deals = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            dealer = deals & 3
            hands = hands_from_deck(shuffled_deck(), dealer, next_seat)
            state = PlayState(hands, rng.randrange(4), next_seat[dealer], rules)
            for _ in range(52):
                state.play(choice(indices_of(state.legal_mask())))
            deals += 1
    return deals, time.perf_counter() - started


def _to_act(deal: Deal) -> int:
    """The seat to act in a deal that is not over (one always is)."""
    seat = deal.to_act
    assert seat is not None, "a deal in progress has a seat to act"
    return seat


def positions(rules: TableRules, count: int, rng: random.Random) -> list[Deal]:
    """Deals stopped at random points of their play phase."""
    found: list[Deal] = []
    while len(found) < count:
        deal = Deal(DealStart.shuffle(rules, dealer=0, rng=rng))
        while deal.phase != "play":
            seat = _to_act(deal)
            deal.apply(seat, rng.choice(deal.legal_actions(seat)))
            if deal.is_over:
                break
        if deal.is_over:
            continue
        for _ in range(rng.randrange(52)):
            deal.apply(_to_act(deal), rng.choice(deal.legal_actions(_to_act(deal))))
        found.append(deal)
    return found


def per_call(function: Callable[[Deal], object], deals: list[Deal], repeat: int) -> float:
    """Mean microseconds per call over ``repeat`` passes of ``deals``."""
    started = time.perf_counter()
    for _ in range(repeat):
        for deal in deals:
            function(deal)
    return (time.perf_counter() - started) / (repeat * len(deals)) * 1e6


def machine() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time for the deals figure")
    arguments = parser.parse_args()
    rules = TableRules.create()
    rng = random.Random(2026)

    deals, elapsed = random_deals(rules, arguments.seconds, rng)
    sample = positions(rules, 500, rng)
    # The sampled deals are all mid-play (`play` set, a seat to act); the timed calls read them as
    # they are, with no narrowing inside the measurement, hence the ignores.
    mask_us = per_call(lambda d: d.play.legal_mask(), sample, 40)  # type: ignore[union-attr]
    legal_us = per_call(lambda d: d.legal_actions(d.to_act), sample, 20)  # type: ignore[arg-type]
    observe_us = per_call(lambda d: d.observation(d.to_act), sample, 5)  # type: ignore[arg-type]
    # Koz Maça deals start in the play phase: `apply` of a first card, validation included.
    fresh = [Deal(DealStart.shuffle(TableRules.create("spades"), 0, rng=rng)) for _ in range(5000)]
    first_cards = [deal.legal_actions(_to_act(deal))[0] for deal in fresh]
    started = time.perf_counter()
    for deal, action in zip(fresh, first_cards, strict=True):
        deal.apply(deal.to_act, action)  # type: ignore[arg-type]  # timed: as above
    apply_us = (time.perf_counter() - started) / len(fresh) * 1e6

    print(f"machine: {machine()}, Python {platform.python_version()}, one core")
    print(f"random full deals:        {deals / elapsed:10,.0f} deals/s "
          f"({deals:,} deals in {elapsed:.1f} s, {52 * deals / elapsed:,.0f} plays/s)")
    print(f"PlayState.legal_mask:     {mask_us:10.2f} µs/call")
    print(f"Deal.legal_actions(seat): {legal_us:10.2f} µs/call")
    print(f"Deal.apply(play):         {apply_us:10.2f} µs/call")
    print(f"Deal.observation(seat):   {observe_us:10.2f} µs/call")


if __name__ == "__main__":
    main()
