"""`manage.py restore FILE`: the database becomes the copy `manage.py backup` made, then every
match is checked against its own log (`check_matches`). Stop the service first: what it wrote
since the copy is lost, and a process still running keeps state (kept deal states, the cache)
of the database it had. Redis needs no restore: the sweeps send again the computer players'
turns and webhook deliveries the database says are due."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from batak_api.management.commands.backup import postgres_environment, run


class Command(BaseCommand):
    help = "Replace the whole database with the copy in FILE, then check every match."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        if not file.is_file():
            raise CommandError(f"{file}: no such file")
        if connection.vendor == "postgresql":
            connection.close()
            # One transaction: a copy that does not restore whole leaves the database as it was.
            env = postgres_environment()
            run(["pg_restore", "--clean", "--if-exists", "--no-owner", "--no-privileges",
                 "--single-transaction", "--exit-on-error", f"--dbname={env['PGDATABASE']}",
                 str(file)], env)
        elif connection.vendor == "sqlite":
            connection.close()
            with sqlite3.connect(file) as copy, \
                    sqlite3.connect(connection.settings_dict["NAME"]) as database:
                copy.backup(database)
        else:
            raise CommandError(f"no restore for {connection.vendor}")
        self.stdout.write(f"restored from {file}")
        # A copy from an older version of the service gets this version's migrations.
        call_command("migrate", interactive=False, verbosity=0)
        call_command("check_matches", stdout=self.stdout, stderr=self.stderr)
