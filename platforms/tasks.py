"""Celery tasks of the partner platforms: webhook deliveries, their sweep and their log's purge."""

from __future__ import annotations

from celery import Task
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerUnavailable

from platforms import stream, webhooks
from runtime import work


@work.token(webhooks.DELIVERIES, acks_late=True,
            autoretry_for=(OperationalError, InterfaceError, BrokerUnavailable), max_retries=3,
            retry_backoff=1)
def deliver_webhooks(self: Task) -> bool | None:
    """One attempt of the next webhook delivery of the fair queue (`webhooks.attempt`), the
    next of the platform that used the webhook workers least: a token, one sent for each
    delivery queued."""
    return work.run_next(webhooks.DELIVERIES, self.request.id,
                         lambda taken: webhooks.attempt.run(*taken.args))


# The deliveries' periodic jobs go to the webhook workers scaled out (their kind's queue); a
# job runs on the periodic jobs' lane in-process, whatever its kind.
@work.task(webhooks.DELIVERIES)
def sweep_webhooks() -> int:
    """Send the deliveries that are due but were never attempted again, and probe the
    receivers that fail (a periodic job)."""
    due = webhooks.due_deliveries()
    webhooks.send(due)
    return len(due) + webhooks.probe_failing_receivers()


@work.task(webhooks.DELIVERIES)
def purge_webhook_log() -> int:
    """Remove the delivery log past WEBHOOK_LOG_RETENTION_DAYS, and the platforms' streams'
    events past PLATFORM_STREAM_RETENTION_HOURS (a periodic job)."""
    return webhooks.purge_log() + stream.LOG.purge()


work.every("WEBHOOK_SWEEP_INTERVAL_SECONDS", sweep_webhooks, "sweep-webhooks")
work.every("WEBHOOK_PURGE_INTERVAL_SECONDS", purge_webhook_log, "purge-webhook-log")
