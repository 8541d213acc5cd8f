"""`GET /metrics`: the metrics (batak_api/metrics.py) for the deployment's own scraper only.

Off unless METRICS_TOKEN is set; then a scrape sends it as a bearer token (`Authorization:
Bearer …`), and nginx in front answers 404 for it from outside (deploy/nginx.conf), so it is
read inside the deployment's network only.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Min
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_GET
from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

from batak_api.metrics import processes_registry
from games.api.problems import problem, problem_response
from games.models import Match, MatchStatus, Seat, Spectator
from platforms.models import DeliveryStatus, WebhookDelivery


class ServiceCollector(Collector):
    """What is live now, read from the database at each scrape (a few indexed counts)."""

    def collect(self) -> Iterator[Metric]:
        by_status = GaugeMetricFamily(
            "batak_matches", "Matches waiting for players or in play, by status and game.",
            labels=["status", "game"],
        )
        rows = Match.objects.filter(
            status__in=(MatchStatus.WAITING, MatchStatus.ACTIVE)
        ).values_list("status", "game").annotate(count=Count("pk")).order_by()
        for status, game, count in rows:
            by_status.add_metric([status, game], count)
        yield by_status
        yield GaugeMetricFamily(
            "batak_seated_people", "People seated at matches in play.",
            value=Seat.objects.filter(match__status=MatchStatus.ACTIVE, bot_level="",
                                      user__isnull=False).count(),
        )
        seen = timezone.now() - timedelta(seconds=settings.PRESENCE_SECONDS)
        yield GaugeMetricFamily(
            "batak_spectators", "People watching a match, seen in the last PRESENCE_SECONDS.",
            value=Spectator.objects.filter(last_seen__gte=seen).count(),
        )
        pending = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).aggregate(
            count=Count("pk"), oldest=Min("created_at")
        )
        yield GaugeMetricFamily(
            "batak_webhook_pending_deliveries", "Webhook deliveries not yet delivered nor "
            "given up (the outbox).", value=pending["count"],
        )
        oldest = pending["oldest"]
        yield GaugeMetricFamily(
            "batak_webhook_oldest_pending_delivery_age_seconds", "Age of the oldest pending "
            "webhook delivery (0 when none is pending).",
            value=0 if oldest is None else (timezone.now() - oldest).total_seconds(),
        )


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    if not token:
        return problem_response(problem(404, "not_found", gettext("Not found.")))
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return problem_response(
            problem(401, "not_authenticated", gettext("Send the metrics token as a bearer token.")),
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    registry = CollectorRegistry()
    registry.register(_Joined((processes_registry(), ServiceCollector())))
    encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
    return HttpResponse(encoder(registry), content_type=content_type)


class _Joined(Collector):
    """Several sources as one scrape: the processes' metrics and what is live now."""

    def __init__(self, sources: tuple[Collector | CollectorRegistry, ...]) -> None:
        self._sources = sources

    def collect(self) -> Iterator[Metric]:
        for source in self._sources:
            yield from source.collect()
