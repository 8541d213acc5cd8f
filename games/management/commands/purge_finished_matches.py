"""`manage.py purge_finished_matches`: the retention purge once, now (games/retention.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import retention


class Command(BaseCommand):
    help = (
        "Delete the matches that ended more than FINISHED_MATCH_RETENTION_DAYS ago, with "
        "everything kept of them (nothing when the setting is 0)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        removed = retention.purge_finished_matches()
        self.stdout.write(f"{removed} match(es) deleted.")
