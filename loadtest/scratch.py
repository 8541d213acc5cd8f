"""The scaled-out form for one benchmark run: a scratch database and a Redis of its own."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.integration.harness.stack import ROOT, Stack, production_env


@contextlib.contextmanager
def scaled_out(admin_url: str, name: str, **env: str) -> Iterator[Stack]:
    """A Stack on a new database of ``admin_url``'s server, migrated, with its own Redis and
    the production settings plus ``env``; every process stopped, and the database and logs
    dropped, afterwards."""
    scratch = f"batak_{name}_{os.getpid()}_{secrets.token_hex(3)}"
    url = urlunsplit(urlsplit(admin_url)._replace(path=f"/{scratch}"))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{scratch}"')
    logs = Path(tempfile.mkdtemp(prefix=f"batak-{name}-"))
    # Each of these benchmarks drives one part flat out from a few accounts, far past a
    # person's server time: unless it says otherwise, no budget holds it.
    stack = Stack(production_env(url, "", **{"SERVER_TIME_PER_ACCOUNT": "0", **env}), logs)
    try:
        stack.env["REDIS_URL"] = stack.start_redis()
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
                       cwd=ROOT, env=stack.env, check=True)
        yield stack
    finally:
        stack.stop_all()
        from django.conf import settings

        if settings.configured:  # the benchmark read the database itself
            from django.db import connections

            connections.close_all()
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
        shutil.rmtree(logs, ignore_errors=True)


def use_django(env: dict[str, str], *more: str) -> None:
    """Set Django up in the benchmark's own process on ``env``'s database, Redis and queues
    (a Stack's), with the settings named in ``more`` too."""
    for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG",
                 "DJANGO_SECRET_KEY", "CELERY_QUEUE", *more):
        os.environ[name] = env[name]
    import django

    django.setup()
