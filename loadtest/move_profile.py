"""Where one move's milliseconds go: the move endpoint timed part by part, in one process.

`python -m loadtest.move_profile` (`--moves 400`) makes a scratch PostgreSQL database and a
Redis of its own (the scaled-out settings, `loadtest.scratch`), then, in this process, plays
random legal moves of matches between four people through the whole Django stack (middleware,
token, throttle, view, service, rendering) and the trivial one-write endpoint for comparison.
Each part's time is measured by wrapping it (inclusive of the parts it calls), the database's
by a query wrapper; every figure is a mean per request. Nothing runs beside it, so this is the
cost of a move, not its queueing.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import json
import os
import pstats
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from loadtest.people import play_random_moves
from loadtest.scratch import scaled_out

# (label, module, attribute path): each is timed inclusively, nested parts indented.
PARTS: list[tuple[str, str, str]] = [
    ("request, all of it", "django.core.handlers.base", "BaseHandler.get_response"),
    ("  before the handler: token, throttle, the view's own reads", "games.api.play",
     "ActionView.initial"),
    ("    token (knox)", "knox.auth", "TokenAuthentication.authenticate"),
    ("    throttle", "rest_framework.views", "APIView.check_throttles"),
    ("  presence, after the action", "games.services", "seen"),
    ("  the body checked", "games.api.play", "valid_input"),
    ("  services.submit_action", "games.services", "submit_action"),
    ("    lock the match, read its seats", "games.match_unit", "lock"),
    ("    the kept state taken (no lock)", "games.match_unit", "changing_kept"),
    ("    the caller's seat", "games.access", "acting_seat"),
    ("    a due time-out", "games.computer_moves", "time_out_due"),
    ("    the kept state", "games.snapshots", "take"),
    ("    the outcome copied", "games.match_unit", "MatchUnit.outcome"),
    ("    the unit closed", "games.match_unit", "MatchUnit.close"),
    ("      the writes", "games.writes", "Write.execute"),
    ("        on the kept state: the seats read back checked", "games.match_unit",
     "MatchUnit._write_kept"),
    ("      told: a person's own stream, kept follow-ups", "games.follow_ups", "tell"),
    ("    the answer built", "games.services", "_answer"),
    # Leaving the transaction runs its on-commit work (announce, what follows) too.
    ("    into and out of the transaction", "django.db.backends.base.base",
     "BaseDatabaseWrapper.set_autocommit"),
    ("    latest deals (a miss)", "games.selectors", "latest_deals"),
    ("    replay the deal (a miss)", "games.selectors", "replay_deal"),
    ("    apply and record", "games.match_unit", "MatchUnit.apply"),
    ("      the engine", "games.engine", "Deal.apply"),
    ("      the deal row's progress", "games.match_unit", "_record_progress"),
    ("      a deal ended: record it, deal the next", "games.match_unit", "MatchUnit._end_deal"),
    ("      its event, for what follows", "games.match_unit", "MatchUnit._progressed"),
    ("    commit", "django.db.backends.base.base", "BaseDatabaseWrapper.commit"),
    ("    after the commit: announce", "games.notify", "announce"),
    ("    after the commit: what follows", "games.follow_ups", "_run"),
    ("  render JSON", "rest_framework.renderers", "JSONRenderer.render"),
    # A computer player's move, in a worker (bots.tasks.play_bot_turns).
    ("computer player's move, all of it", "games.computer_moves", "play_bot_turns"),
    ("  its decision", "bots.tasks", "choose"),
]


class Timers:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.depth: dict[str, int] = defaultdict(int)
        self.queries = 0
        self.query_seconds = 0.0
        # Only the requests being profiled count: the reads that set them up do not.
        self.active = False
        self.last_request_sql: list[str] = []

    def wrap(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not self.active:
                return function(*args, **kwargs)
            # Recursive calls (get_response → get_response) count once.
            self.depth[label] += 1
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.depth[label] -= 1
                if not self.depth[label]:
                    self.seconds[label] += time.perf_counter() - start

        return timed

    def query(self, execute: Callable[..., Any], sql: str, params: Any, many: bool,
              context: Any) -> Any:
        if not self.active:
            return execute(sql, params, many, context)
        self.last_request_sql.append(sql)
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.queries += 1
            self.query_seconds += time.perf_counter() - start

    def reset(self) -> None:
        self.seconds.clear()
        self.queries = 0
        self.query_seconds = 0.0


@contextmanager
def timed_parts(timers: Timers) -> Iterator[None]:
    patched: list[tuple[Any, str, Any]] = []
    for label, module_name, path in PARTS:
        owner: Any = importlib.import_module(module_name)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        original = getattr(owner, name, None)
        if original is None:  # a part another version of the code does not have
            continue
        patched.append((owner, name, original))
        setattr(owner, name, timers.wrap(label, original))
    try:
        yield
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--admin-url", default=os.environ.get(
        "BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--cprofile", type=int, metavar="N", default=0,
                        help="also print the N functions the moves spent most time in")
    args = parser.parse_args(argv)
    with scaled_out(args.admin_url, "moveprofile",
                    DJANGO_SETTINGS_MODULE="loadtest.settings",
                    THROTTLE_USER_RATE="1000000/minute") as stack:
        os.environ.update(stack.env)
        import django

        django.setup()
        report = profile(args.moves, args.cprofile)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


def profile(moves: int, cprofile_lines: int = 0) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from knox.models import AuthToken

    users = [get_user_model().objects.create_user(f"player{i}", password=None)
             for i in range(4)]
    clients = []
    for user in users:
        _, token = AuthToken.objects.create(user)
        clients.append(Client(HTTP_AUTHORIZATION=f"Token {token}"))
    rng = random.Random(2026)
    timers = Timers()
    report: dict[str, Any] = {}
    with connection.execute_wrapper(timers.query), timed_parts(timers):
        for phase, count in (("warm-up", 40), ("move", moves)):
            timers.reset()
            played = 0
            profiler = cProfile.Profile() if cprofile_lines and phase == "move" else None
            while played < count:
                played += _play_match(clients, rng, count - played, timers, profiler)
            if profiler is not None:
                pstats.Stats(profiler).sort_stats("tottime").print_stats(cprofile_lines)
            report[phase] = _figures(timers, count)
            report[phase]["sql_of_the_last"] = [" ".join(q.split())[:160]
                                                for q in timers.last_request_sql]
        timers.reset()
        bot_moves = 0
        with _computer_players_in_workers():
            while bot_moves < moves:
                bot_moves += _play_against_bots(clients[0], rng, moves - bot_moves, timers)
        report["computer player's move"] = _figures(timers, bot_moves)
        timers.reset()
        for _ in range(moves):
            timers.active = True
            answer = clients[0].post("/loadtest/touch", content_type="application/json")
            timers.active = False
            assert answer.status_code == 200, answer.content
        report["touch"] = _figures(timers, moves)
    del report["warm-up"]
    return report


def _play_match(clients: list[Any], rng: random.Random, budget: int, timers: Timers,
                profiler: cProfile.Profile | None = None) -> int:
    """Random legal moves of one new match of four people, at most ``budget``; how many.
    Only the moves are timed (and profiled)."""

    @contextmanager
    def measured() -> Iterator[None]:
        timers.active = True
        timers.last_request_sql = []
        if profiler is not None:
            profiler.enable()
        yield
        if profiler is not None:
            profiler.disable()
        timers.active = False

    game = rng.choice(["auction", "partnership", "spades"])
    return play_random_moves(clients, rng, budget, game=game, around_move=measured)


@contextmanager
def _computer_players_in_workers() -> Iterator[None]:
    """Quick computer players' rounds go to the workers (there are none here), as Hard ones'
    do, instead of being played in the person's request: this process plays them itself."""
    from bots import interface

    plays_here = interface._plays_here
    interface._plays_here = lambda match_id, seat_levels: False
    try:
        yield
    finally:
        interface._plays_here = plays_here


def _play_against_bots(person: Any, rng: random.Random, budget: int, timers: Timers) -> int:
    """A match of one person against three Medium computer players: the person's moves over
    HTTP, untimed; the computer players' turns that follow each, as a worker's task plays them
    (here in this process), timed. How many computer players' moves."""
    from bots.tasks import play_bot_turns

    created = person.post("/api/v1/matches", {
        "game": rng.choice(["auction", "partnership", "spades"]), "deals": 4,
        "seats": [{"kind": "me"}] + [{"kind": "bot", "bot_level": "medium"}] * 3,
    }, content_type="application/json")
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    played = 0
    while played < budget:
        view = person.get(f"/api/v1/matches/{match_id}/view").json()
        if view["status"] != "active":
            break
        deal = view["deal"]
        if deal["to_act"] != view["seat"]:
            timers.active = True
            moved = play_bot_turns.run(match_id, view["version"])
            timers.active = False
            played += moved
            continue
        action = rng.choice([a for a in deal["legal_actions"] if a["kind"] != "redeal"])
        answer = person.post(f"/api/v1/matches/{match_id}/actions",
                             {**action, "expected_version": view["version"]},
                             content_type="application/json")
        assert answer.status_code == 200, answer.content
    return played


def _figures(timers: Timers, requests: int) -> dict[str, Any]:
    return {
        "requests": requests,
        "ms": {label: round(timers.seconds.get(label, 0.0) * 1000 / requests, 2)
               for label, _, _ in PARTS if label in timers.seconds},
        "queries": round(timers.queries / requests, 2),
        "query_ms": round(timers.query_seconds * 1000 / requests, 2),
    }


def print_report(report: dict[str, Any]) -> None:
    for phase in ("move", "computer player's move", "touch"):
        figures = report[phase]
        print(f"{phase}: {figures['requests']} requests, mean per request")
        for label, ms in figures["ms"].items():
            print(f"  {label:<52} {ms:7.2f} ms")
        print(f"  {'database round trips':<52} {figures['queries']:7.2f}"
              f"  ({figures['query_ms']:.2f} ms waiting)")
        for sql in figures.get("sql_of_the_last", []):
            print(f"    {sql}")
    ratio = report["touch"]["ms"]["request, all of it"] / report["move"]["ms"][
        "request, all of it"]
    print(f"move cost as a share of the trivial write's: {ratio:.2f}")


if __name__ == "__main__":
    sys.exit(main())
