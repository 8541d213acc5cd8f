"""Celery tasks of the partner platforms: webhook deliveries and their sweep."""

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
