"""Retention: matches that ended more than FINISHED_MATCH_RETENTION_DAYS ago are deleted, with
everything kept of them (seats, deals, moves, rematch offers, rating history rows, players'
history rows, deal sets' and the tour's results), and always the idempotency records past
IDEMPOTENCY_KEY_HOURS, the expired tokens (a request reads its own token only:
games/api/authentication.py) and the people's own streams' events past
ACCOUNT_STREAM_RETENTION_HOURS. Matches are kept for ever (0) by default: a match's record is the
players' history, and ratings are recounted from it. What is counted of a purged match
(ratings, seasons, statistics) stays as counted. The webhook log has its own retention
(WEBHOOK_LOG_RETENTION_DAYS, platforms/webhooks.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from knox.models import AuthToken

from games import account_stream
from games.models import OVER, IdempotencyRecord, Match

# Matches deleted a statement: each takes its rows in every table with it.
CHUNK = 100


def idempotency_cutoff() -> datetime:
    """Records of Idempotency-Keys first used before this are past IDEMPOTENCY_KEY_HOURS."""
    return timezone.now() - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)


def purge_finished_matches() -> int:
    """Delete what is past FINISHED_MATCH_RETENTION_DAYS (no match when it is 0), the
    idempotency records past IDEMPOTENCY_KEY_HOURS and the expired tokens; returns how many
    matches were deleted. A match ended when it finished, was abandoned or cancelled
    (`finished_at`, set by each)."""
    IdempotencyRecord.objects.filter(created_at__lt=idempotency_cutoff()).delete()
    AuthToken.objects.filter(expiry__lt=timezone.now()).delete()
    account_stream.LOG.purge()
    days = settings.FINISHED_MATCH_RETENTION_DAYS
    if days <= 0:
        return 0
    cutoff = timezone.now() - timedelta(days=days)
    old = Match.objects.filter(status__in=OVER, finished_at__lt=cutoff)
    removed = 0
    while ids := list(old.values_list("pk", flat=True)[:CHUNK]):
        Match.objects.filter(pk__in=ids).delete()
        removed += len(ids)
    return removed
