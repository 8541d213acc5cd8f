"""Celery tasks of the partner platforms: webhook deliveries, their sweep and their log's purge."""

from __future__ import annotations

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerUnavailable

from platforms import webhooks


@shared_task(bind=True, acks_late=True,
             autoretry_for=(OperationalError, InterfaceError, BrokerUnavailable), max_retries=3,
             retry_backoff=1)
def deliver_webhooks(self: Task) -> bool | None:
    """One attempt of the next webhook delivery of the fair queue (`webhooks.attempt_next`):
    a token, one sent for each delivery queued."""
    return webhooks.attempt_next(self.request.id)


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
