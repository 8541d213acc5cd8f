"""Rebuild players' statistics and match histories from the finished matches:
`manage.py recount_statistics [USER_ID ...]` (everyone's without ids). Run it once after
deploying them, for the matches that finished before, and whenever the records are in doubt;
matches finishing meanwhile wait, then count on top."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings import statistics


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("user_ids", nargs="*", type=int, help="only these accounts")

    def handle(self, *args: Any, **options: Any) -> None:
        written = statistics.recount(options["user_ids"] or None)
        self.stdout.write(f"{written} records written")
