"""Celery tasks of the matches' own upkeep (the computer players' and clocks' are bots/tasks.py)."""

from __future__ import annotations

import uuid
from datetime import datetime

from games import follow_ups, retention, seating
from runtime import work


@work.task(work.PERIODIC)
def purge_finished_matches() -> int:
    """Delete the matches past FINISHED_MATCH_RETENTION_DAYS (a periodic job)."""
    return retention.purge_finished_matches()


work.every("RETENTION_PURGE_INTERVAL_SECONDS", purge_finished_matches, "purge-finished-matches")


@work.task(work.PERIODIC)
def resume_follow_ups() -> int:
    """Run what follows matches' changes that a handler left behind (a periodic job)."""
    return follow_ups.resume()


work.every("FOLLOW_UP_SWEEP_INTERVAL_SECONDS", resume_follow_ups, "resume-follow-ups")


@work.task(work.PERIODIC, acks_late=True)
def start_scheduled(match_ids: list[str], at: str | None = None) -> int:
    """Start scheduled matches at their time ``at`` (sent a little before it when they are
    made: `seating.start_together`; the periodic clock sweep starts any it missed); returns
    how many started."""
    return seating.start_together([uuid.UUID(match_id) for match_id in match_ids],
                                  None if at is None else datetime.fromisoformat(at))
