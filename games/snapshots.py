"""The current deal's engine state, kept in the process from one move of a match to the next.

Without it every move reads its match's latest deals and the current deal's log and replays
the log in the engine. A snapshot is what the last move committed in this process left: the
match row, the latest deal rows and the engine state after it, keyed by the match version it
made.

The log stays the source of truth; a snapshot only spares reading it again:
- it is used at the version it was made for, and every write to a match moves its version
  on; one left at an earlier version (another process moved the match since) is brought up to
  date with the actions after it, one short read, when they are all of its deal;
- a move takes it out of the store for as long as it uses it, so no other thread sees the
  state half-applied, and a move that is refused or rolled back leaves nothing behind;
- it goes back only once its move is committed (`transaction.on_commit`);
- a person's move, or a computer players' round, may be made on it with no lock at all
  (`match_unit.changing_kept`): its write then changes the match only if the row is still as
  the snapshot has it.
A miss (a new deal since, or the store was full) costs one replay. The
property test in tests/api/test_move_state.py checks snapshot == replay after every action.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import uuid
from collections import OrderedDict

from django.db import transaction

from games import engine
from games.models import Deal, Match

# Matches whose snapshots a process keeps, least recently moved dropped first: a few tens of
# KiB each.
STORE_SIZE = 2048


@dataclasses.dataclass(frozen=True)
class Snapshot:
    # The match version the state is of, fixed when the snapshot is made.
    version: int
    # `selectors.latest_deals` at that version: the current deal row first.
    deals: list[Deal]
    # The current deal's engine state.
    state: engine.Deal
    # The match row as that move wrote it, its seats loaded: what a computer player's turn
    # needs to decide, and a change with no lock to be made (`match_unit.changing_kept`).
    match: Match

    @classmethod
    def of(cls, match: Match, deals: list[Deal], state: engine.Deal) -> Snapshot:
        """The state ``match`` is in now. The snapshot keeps a copy of the row: the caller's
        instance goes on living (the answer refreshes it, a later move changes it), and a
        version read off it later could name a state this one is not."""
        return cls(match.version, deals, state, detached(match))


def detached(match: Match) -> Match:
    """A copy of ``match`` that later changes of the caller's instance do not reach."""
    copied = copy.copy(match)
    prefetched = getattr(match, "_prefetched_objects_cache", None)
    if prefetched is not None:
        # Django's private prefetch cache; django-stubs does not declare it on Model.
        copied._prefetched_objects_cache = dict(prefetched)  # type: ignore[attr-defined]
    return copied


_store: OrderedDict[uuid.UUID, Snapshot] = OrderedDict()
_lock = threading.Lock()


def take(match_id: uuid.UUID, version: int) -> Snapshot | None:
    """The snapshot of ``match_id`` made at ``version`` or before it, removed from the store;
    None if there is none (a newer one stays: the caller is the one behind)."""
    with _lock:
        snapshot = _store.get(match_id)
        if snapshot is None or snapshot.version > version:
            return None
        del _store[match_id]
    return snapshot


def take_latest(match_id: uuid.UUID) -> Snapshot | None:
    """The snapshot of ``match_id`` whatever its version, removed from the store; None if
    there is none."""
    with _lock:
        return _store.pop(match_id, None)


def give_back(snapshot: Snapshot) -> None:
    """Return the unchanged state that `take` or `take_latest` gave out (a turn that did not
    move, a change that changed nothing)."""
    _put(snapshot)


def keep_on_commit(match: Match, deals: list[Deal], state: engine.Deal) -> None:
    """Once the transaction commits, keep the state it leaves ``match`` in (its seats
    loaded)."""
    snapshot = Snapshot.of(match, deals, state)
    transaction.on_commit(lambda: _put(snapshot))


def _put(snapshot: Snapshot) -> None:
    match_id = snapshot.match.id
    with _lock:
        kept = _store.get(match_id)
        # Callbacks of two commits can run in either order: the later version wins.
        if kept is not None and kept.version > snapshot.version:
            return
        _store[match_id] = snapshot
        _store.move_to_end(match_id)
        while len(_store) > STORE_SIZE:
            _store.popitem(last=False)
