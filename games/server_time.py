"""Who pays for server time, and how much each may use (runtime/server_time.py keeps the
buckets; docs/security.md says why and with what numbers).

A request is paid for by the account that sent it, a match's computer players' turns by the
match's creator. A platform's player also charges its platform, and is held to both budgets: a
platform creates players at will, so its players share its budget (each still has a person's
own); a platform's own account (its key) has the platform's budget. A budget of None is no
budget: the account is never charged nor held (debug runs, unless set).
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.contrib.auth.models import User

from games.models import Match
from runtime import server_time
from runtime.server_time import Payer


def payers(account: int) -> tuple[Payer, ...]:
    """Who pays for what ``account`` does: itself and, for a platform's player, its platform."""
    person = settings.SERVER_TIME_PER_ACCOUNT
    platform = settings.SERVER_TIME_PER_PLATFORM
    if person is None:
        return ()
    own_platform, platform_account = _platform_of(account)
    if own_platform:
        return () if platform is None else (Payer(account, platform),)
    if platform_account is None or platform is None:
        return (Payer(account, person),)
    return (Payer(account, person), Payer(platform_account, platform))


def match_payers(match_id: str) -> tuple[Payer, ...]:
    """Who pays for the computer players' turns of ``match_id``: its creator's `payers`."""
    if settings.SERVER_TIME_PER_ACCOUNT is None:
        return ()
    creator = _creator_of(match_id)
    return () if creator is None else payers(creator)


def share_account(match_id: str) -> int | None:
    """The account whose share of the workers ``match_id``'s turns and analyses use (the
    fair queue's, runtime/fair_queue.py): its creator's, or, when its creator is a platform's
    player, the platform's own account. A platform creates players at will, so each of them
    having a share of its own would let one platform take as many shares as it likes; its
    matches and its players' matches share one. None: no such match."""
    creator = _creator_of(match_id)
    if creator is None:
        return None
    return _platform_of(creator)[1] or creator


def charge(payers: tuple[Payer, ...], seconds: float) -> None:
    server_time.charge(payers, seconds)


@contextlib.contextmanager
def metered(payers_of: Callable[[], tuple[Payer, ...]]) -> Iterator[None]:
    """Charge the CPU this thread spends inside to ``payers_of()`` (asked at the end: a
    request's account is known once it is authenticated), once: inside another meter (a
    request's view that plays computer players' turns itself), the outer one counts it."""
    if getattr(_meter, "running", False):
        yield
        return
    _meter.running = True
    started = time.thread_time()
    try:
        yield
    finally:
        _meter.running = False
        charge(payers_of(), time.thread_time() - started)


_meter = threading.local()


def deferral(payers: tuple[Payer, ...]) -> float:
    """Seconds the turns ``payers`` pay for wait, to be within their budgets again."""
    return server_time.deferral(payers)


def refusal(payers: tuple[Payer, ...]) -> float:
    """Seconds the requests ``payers`` pay for are refused for (0: not refused)."""
    return server_time.refusal(payers)


def forget() -> None:
    """Forget every bucket and what this process looked up (tests, whose accounts' ids come
    again in the next test's database)."""
    server_time.forget()
    _platform_of.cache_clear()
    _creators.clear()


# Neither fact ever changes for an account or a match (a match's creator is protected from
# deletion), so each process looks each up once.
@functools.lru_cache(maxsize=65536)
def _platform_of(account: int) -> tuple[bool, int | None]:
    """Whether ``account`` is a platform's own, and the account of the platform whose player
    it is (None: none)."""
    row = User.objects.filter(pk=account).values_list(
        "platform__id", "platform_player__platform__user_id"
    ).first()
    if row is None:
        return False, None
    own_platform, platform_account = row
    return own_platform is not None, platform_account


def _creator_of(match_id: str) -> int | None:
    creator = _creators.get(match_id)
    if creator is None:
        creator = Match.objects.filter(pk=match_id).values_list("created_by_id",
                                                                flat=True).first()
        if creator is not None:  # a match not found (yet) is looked for again
            if len(_creators) >= 65536:
                _creators.clear()
            _creators[match_id] = creator
    return creator


_creators: dict[str, int] = {}
