"""Root URL configuration."""

import logging

from django.contrib import admin
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.utils.translation import gettext
from django.views.decorators.http import require_safe
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from batak_api.front import favicon, front_page
from batak_api.play import play
from batak_api.scrape import metrics
from games.api.problems import not_found, problem, problem_response
from runtime import redis_clients

logger = logging.getLogger(__name__)

# Probes are plain Django views: they carry no credentials, and they stay out of the API schema.


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up and answering (liveness)."""
    return JsonResponse({"status": "ok"})


@require_safe
def readyz(request: HttpRequest) -> HttpResponse:
    """The database answers with every migration applied, and the broker answers, so requests
    can be served and bots scheduled (readiness); 503 with the failing checks otherwise."""
    database = _database_check()
    checks = {"database": database, "broker": _broker_check(),
              "migrations": _migrations_check() if database == "ok" else "unknown"}
    if all(result in ("ok", "in-process") for result in checks.values()):
        return JsonResponse({"status": "ok", "checks": checks})
    logger.warning("not ready", extra={"checks": checks})
    return problem_response(
        problem(503, "not_ready", gettext("A service this one needs is unreachable."),
                checks=checks)
    )


def _database_check() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return "unreachable"
    return "ok"


def _migrations_check() -> str:
    """"ok" once the database has every migration this code has ("pending" before): checked
    until it is, then remembered, since a process's code does not change."""
    global _migrated
    if not _migrated:
        executor = MigrationExecutor(connection)
        _migrated = not executor.migration_plan(executor.loader.graph.leaf_nodes())
    return "ok" if _migrated else "pending"


_migrated = False


def _broker_check() -> str:
    return redis_clients.health()


urlpatterns: list[URLPattern | URLResolver] = [
    path("", front_page, name="front-page"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("ratings.urls")),
    path("api/v1/", include("deal_sets.urls")),
    path("api/v1/", include("games.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("play/", play, name="play"),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    # Any other path under /api/ is the API's 404 (a problem document) with DEBUG on too, where
    # Django would answer its HTML page listing every URL pattern (handler404 is for DEBUG
    # off). The docs' pages without their slash are left to CommonMiddleware's redirect.
    re_path(r"^api/(?!(docs|redoc|schema)$)", not_found),
]

handler400 = "games.api.problems.bad_request"
handler404 = "games.api.problems.not_found"
handler500 = "games.api.problems.server_error"
