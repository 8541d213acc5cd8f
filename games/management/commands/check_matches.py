"""`manage.py check_matches [MATCH_ID ...]`: whether every stored match (or those named) is what
its own log says (games/integrity.py): after a restore, or whenever the data is in doubt. Prints
each finding; exits 1 if there is any."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.integrity import match_problems
from games.models import Match


class Command(BaseCommand):
    help = "Check that every stored match replays from its log to its stored state."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("match_ids", nargs="*", help="Only these matches.")

    def handle(self, *args: Any, match_ids: list[str], **options: Any) -> None:
        matches = Match.objects.order_by("created_at")
        if match_ids:
            matches = matches.filter(pk__in=match_ids)
        checked = found = 0
        for match in matches.iterator(chunk_size=200):
            checked += 1
            for problem in match_problems(match):
                found += 1
                self.stderr.write(f"{match.pk}: {problem}")
        self.stdout.write(f"matches checked: {checked}, problems: {found}")
        if found:
            raise CommandError(f"{found} problems")
