"""Computer players' turns shared fairly between accounts, in front of the Celery workers.

Scaled out, a turn to play (a match at a version) waits in the fair queue of the workers
(runtime/fair_queue.py) in its account's list, sent there by `runtime.work.later`: a match's
account is its creator, so a platform's matches all count as the platform's one account, and
a flood of one account's turns is played in the workers' spare time. The broker carries only
tokens (`bots.tasks.play_next_turn`, one per turn queued). No turn is lost and none is played
twice: a token redelivered or retried plays the turn it took again, a turn whose token is lost
for good (Redis restarted empty) is found by the sweeper (games/sweeper.py), which sends it
again, and every move is made only at the version it was decided for
(games/computer_moves.py), so a copy of a turn changes nothing. A turn is queued with the
trace of what made it (its `traceparent`, runtime/traces.py), and played in that trace by
whichever worker takes it. The embedded default has no Redis: its computer players play in the
request or on their lane (runtime/lanes.py), in the order sent.
"""

from __future__ import annotations

import dataclasses

from runtime import fair_queue, work

# A token plays on (the next computer player of its match, and the next) for this long before
# it lets a waiting turn go first: the most another turn waits behind a running one, past one
# move. The three moves of a Medium turn fit in it even on a busy machine, one or two Hard
# searches fill it. At 0.1 s busy machines split people's Medium turns too, and each part
# queued again behind everyone: their turnaround p95 tripled with no flood at all.
SLICE_SECONDS = 0.25
# An account whose previous turn cost its worker this much or more (a whole slice of Hard
# searches, a table of computer players alone) gets no slice: while another turn waits, its
# token hands on after each move. A turn waiting for a worker then waits for one move at most,
# not for a slice: beside 4 accounts playing Hard players flat out, other people's turns
# waited p95 0.41 s for a worker with the slice, 0.19 s without. People's Medium turns cost
# 0.03-0.14 s on a busy 2-core machine and keep their slice.
HEAVY_TURN_SECONDS = 0.1

# The computer players' turns: their lane on the embedded default, the workers' default queue
# with its fair queue scaled out (the tokens: `bots.tasks.play_next_turn`).
_QUEUE = fair_queue.FairQueue("turns", "CELERY_TASK_DEFAULT_QUEUE")
TURNS = work.Kind("computer-players", fair=_QUEUE)


@dataclasses.dataclass(frozen=True)
class Turn:
    """A turn a token took: the computer players of ``match_id`` from ``version`` on."""

    account: int
    match_id: str
    version: int
    # Worker time charged to the account when it was taken (corrected by `done`).
    charged: float
    # The trace of the move that made the turn ("" when none was recorded).
    traceparent: str = ""


def slice_for(turn: Turn) -> float:
    """How long ``turn``'s token plays on while other turns wait: a slice, or none for an
    account whose previous turn was heavy (HEAVY_TURN_SECONDS)."""
    return SLICE_SECONDS if turn.charged < HEAVY_TURN_SECONDS else 0.0


def push(account: int, match_id: str, version: int) -> None:
    """Queue the turn in its account's list, in the current trace, as `runtime.work.later`
    does (without its token)."""
    _QUEUE.push(account, work.fair_item([match_id, version]))


def take(token: str) -> Turn | None:
    """The turn that token ``token`` plays: the one it took before (a redelivered or retried
    token), else the next turn of the account that used the workers least; None when no turn
    waits."""
    taken = _QUEUE.take(token)
    if taken is None:
        return None
    (match_id, version), traceparent = work.fair_arguments(taken.item)
    return Turn(taken.account, match_id, int(version), taken.charged, traceparent)


def done(token: str, turn: Turn, cost: float) -> None:
    """Token ``token`` has played ``turn``, which took ``cost`` seconds of its worker: the
    claim goes, and the account is charged what the turn really cost."""
    _QUEUE.done(token, turn.account, turn.charged, cost)


def waiting() -> bool:
    """Whether any account has a turn waiting for a worker (its own other matches count)."""
    return work.others_waiting(TURNS)
