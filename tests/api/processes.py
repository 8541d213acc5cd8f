"""Several service processes in one test: each keeps its own states of matches between moves
(games/snapshots.py), as web workers, Celery workers and the stream server each do.

`Process.running()` makes the process's store the one the service uses. `WORKER` is the
process that plays computer players' turns; the COMPUTER_PLAYERS module below hands them to it
the moment a move commits, which is the worst case of a real worker: it moves before the web
process has even finished its answer.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from bots.interface import bid_estimate, choose
from games import computer_moves, snapshots


class Process:
    def __init__(self, name: str) -> None:
        self.name = name
        self.store: OrderedDict[uuid.UUID, snapshots.Snapshot] = OrderedDict()

    @contextmanager
    def running(self) -> Iterator[None]:
        saved = snapshots._store
        snapshots._store = self.store
        try:
            yield
        finally:
            snapshots._store = saved


WORKER = Process("worker")


def send_turns(match_id: str, version: int, seat_levels: Sequence[str] | None = None) -> None:
    """The worker plays the computer players' turns from ``version`` on, at once."""
    with WORKER.running():
        run = computer_moves.play_bot_turns(match_id=uuid.UUID(match_id), version=version,
                                            choose=choose)
        while run is not None and run.computer_to_act:
            run = computer_moves.play_bot_turns(match_id=uuid.UUID(match_id),
                                                version=run.version, choose=choose)


def send_timeout(match_id: str, version: int, at: datetime) -> None:
    """Tests run clocks themselves."""


__all__ = ["bid_estimate", "choose", "send_timeout", "send_turns"]
