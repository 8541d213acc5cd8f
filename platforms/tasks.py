"""Celery tasks of the partner platforms: webhook deliveries, their sweep and their log's purge."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from platforms import webhooks


@shared_task(acks_late=True, autoretry_for=(OperationalError, InterfaceError), max_retries=3,
             retry_backoff=1)
def deliver_webhook(delivery_id: int) -> bool | None:
    """One attempt of a webhook delivery (a no-op when it is not due)."""
    return webhooks.attempt(delivery_id)


@shared_task
def sweep_webhooks() -> int:
    """Send the deliveries that are due but were never attempted again (run by beat)."""
    due = webhooks.due_deliveries()
    webhooks.send(due)
    return len(due)


@shared_task
def purge_webhook_log() -> int:
    """Remove the delivery log past WEBHOOK_LOG_RETENTION_DAYS (run by beat)."""
    return webhooks.purge_log()
