import random

from games.engine import TableRules
from games.engine.bench import random_deals


def test_benchmark_loop_plays_whole_deals() -> None:
    deals, elapsed = random_deals(TableRules.create(), 0.01, random.Random(1))
    assert deals >= 100 and elapsed > 0
