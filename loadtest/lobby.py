"""The lobby with thousands of open tables: ``python -m loadtest.lobby``.

Makes a scratch PostgreSQL database (DATABASE_URL's server, default this machine's), fills it
with ``--tables`` public tables waiting for people (a mix of games, deal counts and rules, one
to three seats taken) plus as many private and started matches, and asks for lobby pages
through the API in-process (no network): the first page, the middle page of the list, and pages
filtered by game, rules and preset. Prints each query's count of SQL statements and its
latency (median and p95 of ``--repeat`` requests). Drops the database at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
import urllib.parse
import uuid

import psycopg

QUERIES = {
    "first page": "/api/v1/lobby",
    "game=spades": "/api/v1/lobby?game=spades",
    "game=auction&min_bid=5": "/api/v1/lobby?game=auction&min_bid=5",
    "preset=true&deals=4": "/api/v1/lobby?preset=true&deals=4",
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.lobby", description=__doc__)
    parser.add_argument("--tables", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
    name = f"batak_lobby_{uuid.uuid4().hex[:8]}"
    admin_url = server
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    parts = urllib.parse.urlsplit(server)
    os.environ["DATABASE_URL"] = urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))
    os.environ.setdefault("DJANGO_DEBUG", "true")
    os.environ["REDIS_URL"] = ""
    os.environ["LOG_LEVEL"] = "WARNING"
    # One connection for every request, so that each request's queries can be counted on it.
    os.environ["DATABASE_CONN_MAX_AGE"] = "600"
    try:
        print(json.dumps(measure(args.tables, args.repeat), indent=2))
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def measure(tables: int, repeat: int) -> dict[str, object]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    call_command("migrate", verbosity=0)
    seed(tables)
    client = Client(HTTP_AUTHORIZATION=f"Token {_token()}")
    results: dict[str, object] = {"open_tables": tables}
    middle = {"middle page": f"/api/v1/lobby?page={max(1, tables // 40)}"}
    for label, path in {**QUERIES, **middle}.items():
        connection.queries_log.clear()  # a full log (DEBUG keeps 9000) would count nothing
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path)
        assert response.status_code == 200, response.content
        seconds = []
        for _ in range(repeat):
            started = time.perf_counter()
            client.get(path)
            seconds.append(time.perf_counter() - started)
        seconds.sort()
        results[label] = {
            "queries": len(queries.captured_queries),
            "rows": len(response.json()["results"]),
            "count": response.json()["count"],
            "median_ms": round(statistics.median(seconds) * 1000, 1),
            "p95_ms": round(seconds[int(len(seconds) * 0.95) - 1] * 1000, 1),
        }
    return results


def _token() -> str:
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    user = get_user_model().objects.create_user("lobby-reader")
    return AuthToken.objects.create(user)[1]


def seed(tables: int) -> None:
    """``tables`` open public tables, and as many private or started matches beside them."""
    from django.contrib.auth import get_user_model

    from games import engine, selectors
    from games.models import Match, Seat

    rng = random.Random(5)
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"seed-{index}") for index in range(200)
    )
    matches, seats = [], []
    for index in range(tables * 2):
        game = rng.choice(list(engine.Game))
        overrides = {"min_bid": 5} if game != engine.Game.PARTNERSHIP and rng.random() < 0.3 else {}
        rules = engine.TableRules.create(game.value, **overrides)
        deals = rng.choice([1, 4, 8])
        taken = rng.randint(1, 3)
        is_open = index < tables
        clock = {"bid": 20, "card": 30}
        match = Match(
            game=game.value, rules=rules.to_dict(), deal_count=deals, first_dealer=0,
            totals=[0, 0, 0, 0], created_by=users[index % len(users)],
            visibility="public" if is_open or index % 2 else "private",
            status="waiting" if is_open else "active",
            open_seats=4 - taken if is_open else 0,
            table_key=selectors.table_key(rules, deals, clock, None), clock=clock,
        )
        matches.append(match)
        for seat in range(4):
            person = seat < taken or not is_open
            seats.append(Seat(
                match=match, index=seat,
                user=users[(index + seat) % len(users)] if person else None,
                display_name=f"seed {seat}" if person else "",
            ))
    Match.objects.bulk_create(matches, batch_size=2000)
    Seat.objects.bulk_create(seats, batch_size=4000)


if __name__ == "__main__":
    main()
