"""The leaderboards at scale: ``python -m loadtest.leaderboard``.

Fills a scratch database with ``--players`` rated players of the auction game (nine in ten
established, the rest provisional; ratings spread as people's are, so many tie) and the
current week's and month's standings of each, then asks the API, in-process through
Django's test client (the whole request stack, signed in with a token), ``--repeat`` times
each: the all-time board's first page, a deep page by cursor (90 % down), around-me for
players spread over the board, a player's place, and the week's first page and around-me;
and, for the request stack's own cost, ``GET /me``.
Prints each request's p50, p95 and p99 in milliseconds and its count of SQL statements.

The database is SQLite (a scratch file) unless DATABASE_URL names a PostgreSQL server: then a
scratch database on it, dropped at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg

GAME = "auction"
READERS = 50  # players spread over the board, signed in: around-me and the places cycle them


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.leaderboard", description=__doc__)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()
    server = os.environ.get("DATABASE_URL", "")
    # As loadtest.lobby: development settings (no throttle), no broker, one connection; and
    # no periodic jobs in this process beside the requests measured.
    os.environ.update(REDIS_URL="", LOG_LEVEL="WARNING", DJANGO_DEBUG="true",
                      DATABASE_CONN_MAX_AGE="600", IN_PROCESS_JOBS="false")
    if server.startswith("postgres"):
        name = f"batak_leaderboard_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        parts = urllib.parse.urlsplit(server)
        os.environ["DATABASE_URL"] = urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))
        try:
            run(args.players, args.repeat, "PostgreSQL")
        finally:
            from django.db import connections

            connections.close_all()
            with psycopg.connect(server, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    else:
        with tempfile.TemporaryDirectory() as scratch:
            os.environ["DATABASE_URL"] = f"sqlite:///{Path(scratch) / 'leaderboard.sqlite3'}"
            run(args.players, args.repeat, "SQLite")


def run(players: int, repeat: int, database: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from ratings.api.leaderboards import encode_cursor
    from ratings.leaderboards import Key

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    readers, deep = seed(players)
    if database == "PostgreSQL":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    else:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(f"{database}, {players:,} players seeded in {time.perf_counter() - started:.0f} s; "
          f"{repeat} requests each; {platform.node()}, {os.cpu_count()} cores")
    client = Client()
    base = f"/api/v1/leaderboards/{GAME}"
    deep_cursor = encode_cursor(Key(*deep))
    requests: dict[str, Callable[[int], tuple[str, str]]] = {
        # The request stack's own cost on this machine: an authenticated read of one row.
        "baseline: GET /me": lambda i: ("/api/v1/me", readers[i % READERS][1]),
        "first page (50)": lambda i: (base, readers[i % READERS][1]),
        "deep page by cursor (50)": lambda i: (f"{base}?cursor={deep_cursor}",
                                               readers[i % READERS][1]),
        "around-me (10 + 1 + 10)": lambda i: (f"{base}/around-me", readers[i % READERS][1]),
        "a player's place": lambda i: (f"{base}/players/{readers[(i * 7) % READERS][0]}",
                                       readers[i % READERS][1]),
        "week: first page (50)": lambda i: (f"{base}?season=week", readers[i % READERS][1]),
        "week: around-me": lambda i: (f"{base}/around-me?season=week", readers[i % READERS][1]),
    }
    print(f"{'request':<28}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}{'queries':>9}")
    for label, make in requests.items():
        path, token = make(0)
        connection.queries_log.clear()  # a full log (DEBUG keeps 9000) would count nothing
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path, HTTP_AUTHORIZATION=f"Token {token}")
        assert response.status_code == 200, response.content
        seconds = []
        for index in range(repeat):
            path, token = make(index)
            begun = time.perf_counter()
            response = client.get(path, HTTP_AUTHORIZATION=f"Token {token}")
            seconds.append(time.perf_counter() - begun)
            assert response.status_code == 200, response.content
        cuts = statistics.quantiles(seconds, n=100, method="inclusive")
        print(f"{label:<28}{statistics.median(seconds) * 1000:>8.1f}{cuts[94] * 1000:>8.1f}"
              f"{cuts[98] * 1000:>8.1f}{len(queries.captured_queries):>9}")


def seed(players: int) -> tuple[list[tuple[str, str]], tuple[int, int]]:
    """``players`` rated players and their seasons; the readers (username, token), spread
    over the board, and the (rating, user id) 90 % down the all-time board."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from knox.models import AuthToken

    from ratings import board_counts, seasons
    from ratings.model import PROVISIONAL_MATCHES
    from ratings.models import Period, Rating, SeasonStanding

    rng = random.Random(7)
    User = get_user_model()
    users = User.objects.bulk_create(
        (User(username=f"player-{index}", first_name=f"Player {index}")
         for index in range(players)), batch_size=5000,
    )
    ratings = []
    for user in users:
        matches = rng.randint(1, PROVISIONAL_MATCHES - 1) if rng.random() < 0.1 else \
            rng.randint(PROVISIONAL_MATCHES, 400)
        ratings.append(Rating(
            user=user, game=GAME, rating=round(rng.gauss(1500, 180)),
            deviation=rng.randint(50, 200), matches=matches, wins=matches // 4,
        ))
    Rating.objects.bulk_create(ratings, batch_size=5000)
    now = timezone.now()
    standings = [
        SeasonStanding(user=user, game=GAME, period=period,
                       starts=seasons.season_start(period, now),
                       points=round(rng.gauss(0, 40)), matches=rng.randint(1, 30), wins=1)
        for period in Period for user in users
    ]
    SeasonStanding.objects.bulk_create(standings, batch_size=5000)
    # The boards' counts of players per score, as play keeps them (ratings/board_counts.py).
    board_counts.rebuild()
    board = list(
        Rating.objects.filter(game=GAME, matches__gte=PROVISIONAL_MATCHES)
        .order_by("-rating", "user_id").values_list("rating", "user_id", "user__username")
    )
    readers = []
    for index in range(READERS):
        _, user_id, username = board[index * (len(board) - 1) // (READERS - 1)]
        readers.append((username, AuthToken.objects.create(User(pk=user_id))[1]))
    rating, user_id, _ = board[len(board) * 9 // 10]
    return readers, (rating, user_id)


if __name__ == "__main__":
    main()
