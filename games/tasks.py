"""Celery tasks of the matches' own upkeep (the computer players' and clocks' are bots/tasks.py)."""

from __future__ import annotations

from celery import shared_task

from games import retention


@shared_task
def purge_finished_matches() -> int:
    """Delete the matches past FINISHED_MATCH_RETENTION_DAYS (run by beat)."""
    return retention.purge_finished_matches()
