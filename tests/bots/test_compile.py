"""The computer players' compiled search is cached on disk: compiled once per install, loaded
by every later process (the Celery worker, the embedded default's server) at start."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from numba.core import config as numba_config
from numba.core.caching import NullCache

from bots import solver
from bots.compile import compiled_functions
from bots.players import warm_up

ROOT = Path(__file__).resolve().parents[2]


def test_every_compiled_function_is_cached_on_disk() -> None:
    functions = compiled_functions()
    assert len(functions) >= 15
    uncached = [f.__name__ for f in functions if isinstance(f._cache, NullCache)]
    assert not uncached


def test_the_cache_has_a_folder_per_version_of_the_compiled_sources() -> None:
    # numba notices a change to a function's own file only, and the card reading's compiled
    # code includes the search's functions.
    sources = b"".join((ROOT / "bots" / name).read_bytes()
                       for name in ("solver.py", "card_reading.py", "joint_search.py"))
    digest = hashlib.sha256(sources).hexdigest()[:16]
    assert Path(numba_config.CACHE_DIR).name == digest


def test_the_recursive_search_is_one_compiled_function() -> None:
    # Calling itself with literal arguments made numba compile a second version of the search,
    # and loading that pair from the cache crashed the process (numba issue 6061).
    warm_up()
    assert len(solver._respond.signatures) == 1


def test_a_second_process_loads_the_search_instead_of_compiling_it(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def compile_once() -> str:
        done = subprocess.run([sys.executable, "-m", "bots.compile"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert " 0 compiled" not in compile_once()
    assert " 0 compiled" in compile_once()
