"""Celery tasks of the matches' own upkeep (the computer players' and clocks' are bots/tasks.py)."""

from __future__ import annotations

from games import retention
from runtime import work


@work.task(work.PERIODIC)
def purge_finished_matches() -> int:
    """Delete the matches past FINISHED_MATCH_RETENTION_DAYS (a periodic job)."""
    return retention.purge_finished_matches()


work.every("RETENTION_PURGE_INTERVAL_SECONDS", purge_finished_matches, "purge-finished-matches")
