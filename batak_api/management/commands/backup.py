"""`manage.py backup FILE`: a consistent copy of the whole database, taken while the service
runs (`manage.py restore FILE` puts it back; docs/operations.md).

PostgreSQL: `pg_dump` in its custom format, from one snapshot (a match is in the copy as it was
at one moment: never half a move), without owners or privileges so it restores into any
database. SQLite (the embedded default): SQLite's online backup, page by page under its lock.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection


def postgres_environment() -> dict[str, str]:
    """libpq's variables for the service's database (its password never on a command line)."""
    database = connection.settings_dict
    env = {**os.environ, "PGDATABASE": database["NAME"]}
    for variable, key in (("PGHOST", "HOST"), ("PGPORT", "PORT"), ("PGUSER", "USER"),
                          ("PGPASSWORD", "PASSWORD")):
        if database.get(key):
            env[variable] = str(database[key])
    return env


def run(command: list[str], env: dict[str, str]) -> None:
    try:
        subprocess.run(command, env=env, check=True)
    except FileNotFoundError as missing:
        raise CommandError(f"{command[0]} is not installed (PostgreSQL's client)") from missing
    except subprocess.CalledProcessError as failed:
        raise CommandError(f"{command[0]} failed (exit {failed.returncode})") from failed


class Command(BaseCommand):
    help = "Copy the whole database to FILE while the service runs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        if connection.vendor == "postgresql":
            run(["pg_dump", "--format=custom", "--no-owner", "--no-privileges",
                 f"--file={file}"], postgres_environment())
        elif connection.vendor == "sqlite":
            with sqlite3.connect(connection.settings_dict["NAME"]) as source, \
                    sqlite3.connect(file) as copy:
                source.backup(copy)
        else:
            raise CommandError(f"no backup for {connection.vendor}")
        self.stdout.write(f"backed up to {file} ({file.stat().st_size} bytes)")
