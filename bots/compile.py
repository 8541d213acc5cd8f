"""Compile the Hard player's search into numba's on-disk cache: `python -m bots.compile`.

An install step (`scripts/serve` after installing, the image's build): the compiled code is
kept beside the source (or in NUMBA_CACHE_DIR) and every later process loads it in about a
second instead of compiling it again. A process that plays computer players also warms up at
start (the Celery worker, the embedded default's server), so no move waits for a compile; a
changed source or another CPU only makes the next warm-up compile again.
"""

from __future__ import annotations

import time
from typing import Any

from bots import card_reading, joint_search, solver
from bots.players import warm_up


def compiled_functions() -> list[Any]:
    """Every numba-compiled function of the computer players."""
    return [
        value for module in (solver, card_reading, joint_search) for value in vars(module).values()
        if hasattr(value, "stats") and hasattr(value, "signatures")
    ]


def main() -> None:
    start = time.perf_counter()
    warm_up()
    functions = compiled_functions()
    loaded = sum(sum(f.stats.cache_hits.values()) for f in functions)
    compiled = sum(sum(f.stats.cache_misses.values()) for f in functions)
    print(f"computer players' search ready in {time.perf_counter() - start:.1f} s: "
          f"{loaded} loaded from the cache, {compiled} compiled")


if __name__ == "__main__":
    main()
