"""The one seam through which the service defers work: `later` (a task, after commit), `every`
(a periodic job) and `when_in_process` (what the process that runs the work prepares).

The settings decide the form, and only this module (with runtime/redis_clients.py for Redis
itself) reads them for it:
- **scaled out** (REDIS_URL set): a task goes to the Celery workers of its kind's queue; a kind
  with a fair queue (runtime/fair_queue.py) has its work wait there, in its account's list, and
  sends the workers a token for each; beat sends the periodic jobs.
- **embedded** (no Redis: tasks in-process): the same task runs on its kind's lane, threads of
  this process shared between accounts by the same rule (runtime/lanes.py); the periodic jobs
  and delayed work wait in the lanes' one scheduler. IN_PROCESS_JOBS off (tests, commands)
  stops the periodic jobs and the kinds that only run with them.

Tasks are passed as their Celery task objects (made by `task`), never by name. Everything deferred
is idempotent and has a sweep that sends it again if it is lost (a broker down when it was
sent, a worker killed): `later` logs a broker that does not answer and goes on, since the
change that deferred the work is committed.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, Protocol, TypeVar

import redis
from celery import Task, shared_task
from django.conf import settings
from django.db import close_old_connections, connection, transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

from runtime import fair_queue, lanes, traces

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def in_process() -> bool:
    """Whether deferred work runs in this process (the embedded default)."""
    return bool(settings.CELERY_TASK_ALWAYS_EAGER)


def _jobs_here() -> bool:
    """Whether this process runs the periodic jobs (the embedded default, unless switched
    off: tests and commands serve no requests and run none)."""
    return bool(settings.IN_PROCESS_JOBS)


def when_in_process(prepare: Callable[[], None]) -> None:
    """Call ``prepare`` now if this process runs the deferred work itself (the embedded
    default: the computer players' search is loaded before the first request; scaled out the
    workers load it)."""
    if in_process():
        prepare()


# --- kinds and tasks ------------------------------------------------------------------------


@dataclasses.dataclass(eq=False)
class Kind:
    """A kind of deferred work: a lane of its own on the embedded default, a Celery queue (with
    a fair queue in front of it, if ``fair``) scaled out, so that one kind's slow work never
    holds up another's. With ``only_with_jobs`` its work runs in-process only while the
    periodic jobs do (webhook deliveries and clock deadlines, which the jobs sweep)."""

    name: str
    # Scaled out, the setting naming its Celery queue (`route`).
    queue_setting: str = "CELERY_TASK_DEFAULT_QUEUE"
    threads_setting: str | None = None
    per_account_setting: str | None = None
    fair: fair_queue.FairQueue | None = None
    only_with_jobs: bool = False
    # Scaled out, the task a fair kind's tokens run (see `token`).
    token: Task | None = None

    def __post_init__(self) -> None:
        self.lane = lanes.Lane(self.name, self.threads_setting, self.per_account_setting)
        _KINDS.append(self)


# Every kind, in the order declared: their lanes are this process's deferred work.
_KINDS: list[Kind] = []


class _Sendable(Protocol):
    name: str

    def run(self, *args: Any) -> Any: ...

    def apply_async(self, args: Any = None, **options: Any) -> Any: ...


_KIND_OF: dict[str, Kind] = {}


def task(kind: Kind, **options: Any) -> Callable[[F], Any]:
    """A function as a task of ``kind``: a Celery task (``options`` are Celery's) that `later`
    sends to the kind's lane or queue."""

    def make(function: F) -> Any:
        made = shared_task(**options)(function)
        _KIND_OF[made.name] = kind
        return made

    return make


def token(kind: Kind, **options: Any) -> Callable[[F], Any]:
    """Scaled out, the task a fair ``kind``'s tokens run (bound: its first argument is the
    Celery task, whose id names the token). It calls `run_next`."""

    def make(function: F) -> Any:
        made = shared_task(bind=True, **options)(function)
        kind.token = made
        _KIND_OF[made.name] = kind
        return made

    return make


def route(name: str, args: Any, kwargs: Any, options: Any, task: Any = None,
          **_: Any) -> dict[str, str] | None:
    """Celery's router (CELERY_TASK_ROUTES): a task goes to its kind's queue."""
    kind = _KIND_OF.get(name)
    return None if kind is None else {"queue": getattr(settings, kind.queue_setting)}


@dataclasses.dataclass(frozen=True)
class Taken:
    """What a token took from its kind's fair queue: ``args`` of ``account``."""

    account: int
    args: list[Any]
    charged: float
    traceparent: str


def fair_item(args: Sequence[Any]) -> str:
    """A task's arguments as an item of its kind's fair queue, with the current trace."""
    return json.dumps([list(args), traces.traceparent()])


def fair_arguments(item: str) -> tuple[list[Any], str]:
    """The arguments and the trace of a fair queue's item (`fair_item`)."""
    args, traceparent = json.loads(item)
    return args, traceparent


def run_next(kind: Kind, token_id: str, run: Callable[[Taken], Any]) -> Any:
    """Scaled out, a token's work: ``run`` the next item of ``kind``'s fair queue, the item of
    the account that used the workers least, charged what it took; an item that needed
    nothing (a copy: ``run`` answers None) costs a read, and the token takes the next. What
    ``run`` answered, or None when nothing was due."""
    assert kind.fair is not None and kind.token is not None
    while (taken := kind.fair.take(token_id)) is not None:
        args, traceparent = fair_arguments(taken.item)
        started = time.monotonic()
        with traces.carried_on(traceparent):
            answer = run(Taken(taken.account, args, taken.charged, traceparent))
        if kind.fair.done(token_id, taken.account, taken.charged, time.monotonic() - started):
            kind.token.apply_async()  # for the account's next, passed over while this ran
        if answer is not None:
            return answer
    return None


def others_waiting(kind: Kind, excluding: Hashable = None) -> bool:
    """Whether an account (other than ``excluding``) has work of ``kind`` waiting for a
    worker: in this process's lane on the embedded default, in the fair queue scaled out."""
    if in_process():
        return kind.lane.waiting(() if excluding is None else (excluding,))
    assert kind.fair is not None
    return kind.fair.waiting(None if excluding is None else int(str(excluding)))


# --- later ----------------------------------------------------------------------------------


class _Intent:
    """A `later` waiting for its transaction's commit (Django's on-commit callback)."""

    def __init__(self, key: tuple[Any, ...], send: Callable[[], None]) -> None:
        self.key = key
        self._send = send

    def __call__(self) -> None:
        self._send()


def later(task: _Sendable, *args: Any, account: Hashable = None, delay: float = 0.0,
          wait_here: Callable[[], bool] | None = None) -> None:
    """Run ``task`` with ``args`` once the current transaction commits (now, outside one),
    ``delay`` seconds from then, in ``account``'s share of its kind's workers: once however
    often the same transaction asks for it. When it is due at once and ``wait_here`` says so,
    in this thread instead, on either form: in a request served through `AfterAnswer`, once
    its answer is sent (a person's move is answered, then the computer players' round after
    it is played; `AfterAnswerASGI` the same on an ASGI server); elsewhere at once."""
    key = (task.name, args, account, delay)
    if connection.in_atomic_block and any(
        isinstance(entry[1], _Intent) and entry[1].key == key
        for entry in connection.run_on_commit
    ):
        return
    transaction.on_commit(_Intent(key, lambda: _send(task, args, account, delay, wait_here)))


def _send(task: _Sendable, args: tuple[Any, ...], account: Hashable, delay: float,
          wait_here: Callable[[], bool] | None) -> None:
    kind = _KIND_OF[task.name]
    if in_process() and kind.only_with_jobs and not _jobs_here():
        return
    if delay <= 0 and wait_here is not None and wait_here():
        held = _held_for_the_answer.get()
        if held is not None:
            held.append((task, args, account))
        else:
            _run_here(task, args, account)
        return
    _queue(task, args, account, delay)


def _run_here(task: _Sendable, args: tuple[Any, ...], account: Hashable) -> None:
    try:
        task.run(*args)
    except Exception:  # the change is committed: its work goes to its workers instead
        logger.exception("work failed in this thread: queued", extra={"task": task.name})
        _queue(task, args, account, 0.0)


def _queue(task: _Sendable, args: tuple[Any, ...], account: Hashable, delay: float) -> None:
    kind = _KIND_OF[task.name]
    if in_process():
        if delay > 0:
            lanes.SCHEDULER.at(time.monotonic() + delay, kind.lane, task.run, args, account)
        else:
            kind.lane.send(task.run, *args, account=account)
        return
    try:
        if kind.fair is not None:
            # Declared with the task modules (`declare`): without its token, its work would
            # go to the workers past its fair queue.
            assert kind.token is not None, f"{kind.name} has no token task"
            assert isinstance(account, int)
            kind.fair.push(account, fair_item(args), delay=delay)
            kind.token.apply_async(countdown=delay)
        else:
            task.apply_async(args, countdown=delay)
    except (BrokerUnavailable, redis.RedisError):
        # The change is committed: failing its request now would report it as an error.
        # The kind's sweep sends it again once the broker is back.
        logger.warning("work not queued: broker unavailable",
                       extra={"task": task.name, "kind": kind.name})


# The work a request plays itself, held until the request's answer is sent: a context
# variable, which a WSGI server's thread has of its own and which an ASGI request's sync code
# shares with the request (asgiref runs it in a copy of the request's context).
_Held = tuple[_Sendable, tuple[Any, ...], Hashable]
_held_for_the_answer: contextvars.ContextVar[list[_Held] | None] = contextvars.ContextVar(
    "held_for_the_answer", default=None)


class AfterAnswer:
    """WSGI middleware: the work that a request's thread plays itself (`later`'s
    ``wait_here``) runs once the request's answer is sent, still in that thread, so that the
    answer does not wait for it: the WSGI server closes an answer's body once it has sent it
    all, and this body's close runs the work, then gives its database connection back. The
    work is held by the thread only while the application answers, then by its body: a body
    never closed leaves nothing behind for the thread's next caller."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        held: list[_Held] = []
        token = _held_for_the_answer.set(held)
        try:
            body = self.app(environ, start_response)
        except BaseException:
            _held_for_the_answer.reset(token)
            _run_held(held)
            raise
        _held_for_the_answer.reset(token)
        return _ThenRunHeld(body, held)


class AfterAnswerASGI:
    """The same for an ASGI server (the embedded default's uvicorn): Django's handler returns
    once the answer is sent, and the work the request held then runs in a thread of its own."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: list[_Held] = []
        token = _held_for_the_answer.set(held)
        try:
            await self.app(scope, receive, send)
        finally:
            _held_for_the_answer.reset(token)
            if held:
                await asyncio.to_thread(_run_held, held)


class _ThenRunHeld:
    def __init__(self, body: Any, held: list[_Held]) -> None:
        self.body = body
        self.held = held

    def __iter__(self) -> Any:
        return iter(self.body)

    def close(self) -> None:
        try:
            if hasattr(self.body, "close"):
                self.body.close()  # Django's request_finished: its connection given back
        finally:
            held, self.held = self.held, []
            _run_held(held)


def _run_held(held: list[_Held]) -> None:
    if held:
        try:
            for task, args, account in held:
                _run_here(task, args, account)
        finally:
            close_old_connections()


# --- every ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Job:
    name: str
    task: _Sendable
    # The setting that gives its interval in seconds.
    interval_setting: str


JOBS: list[Job] = []
# The periodic jobs' lane on the embedded default: one thread, one job after the other.
PERIODIC = Kind("periodic-jobs", only_with_jobs=True)


def every(interval_setting: str, task: _Sendable, name: str) -> None:
    """Run ``task`` every ``interval_setting`` seconds: scaled out, beat sends it to the
    workers (a run still queued when the next is due is dropped, so a backlog never grows); on
    the embedded default the lanes' scheduler runs it on the periodic jobs' lane, from the
    first request on. Every job is safe to run any number of times at once."""
    JOBS.append(Job(name, task, interval_setting))
    interval = float(getattr(settings, interval_setting))
    if not in_process():
        from celery import current_app

        current_app.conf.beat_schedule[name] = {
            "task": task.name, "schedule": interval, "options": {"expires": interval},
        }


# Each start of the periodic jobs is a generation: a run of an earlier one (switched off and
# on again, as tests do) stops instead of running beside the new.
_generation = 0
_started = False
_start_lock = threading.Lock()


def declare() -> None:
    """Import every app's task module (what Celery's autodiscovery finds), which declares its
    tasks, its fair kinds' tokens and its periodic jobs: every process has them all from its
    start, whatever it imports later (the project app's `ready`)."""
    from django.utils.module_loading import autodiscover_modules

    autodiscover_modules("tasks")


def start_in_process(**_: Any) -> None:
    """On the embedded default, start the periodic jobs in this process, once (a receiver of
    Django's `request_started`: commands and tests that serve no request never start them)."""
    global _started, _generation
    if _started or not in_process() or not _jobs_here():
        return
    with _start_lock:
        if _started:
            return
        _started = True
        _generation += 1
        for job in JOBS:
            _run_periodically(job, _generation)


def stop_in_process(timeout: float = 30.0) -> None:
    """Stop the periodic jobs and this process's deferred work: drop what waits on the kinds'
    lanes and in the scheduler, and wait for the work under way to end, until none is left
    (TimeoutError after ``timeout`` seconds). What each test does as it ends, before its
    database goes: its work must not run on against another's (IN_PROCESS_JOBS switched off
    stops the jobs only at their next look). A later request starts the jobs again."""
    global _started, _generation
    with _start_lock:
        _started = False
        _generation += 1
    deadline = time.monotonic() + timeout
    # Work under way may send more (a sweep its deliveries, a turn the next): until a round
    # finds nothing, every lane looked at in each.
    while True:
        dropped = lanes.SCHEDULER.discard()
        busy = [kind.lane.discard(deadline) for kind in _KINDS]
        if not dropped and not any(busy):
            return


def _run_periodically(job: Job, generation: int) -> None:
    def run() -> None:
        global _started
        if generation != _generation:
            return
        if not _jobs_here():  # switched off (tests do, between their servers)
            with _start_lock:
                _started = False
            return
        try:
            job.task.run()
        finally:
            # The next run is due an interval after this one ended.
            lanes.SCHEDULER.at(time.monotonic() + float(getattr(settings, job.interval_setting)),
                               PERIODIC.lane, run, (), None)

    PERIODIC.lane.send(run)
