"""The match list's actions: export as JSON, abandon stuck matches."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from games import services
from games.admin.replay import describe
from games.api import export
from games.errors import MatchNotActive
from games.models import Match


def json_attachment(body: Any, filename: str) -> HttpResponse:
    response = HttpResponse(
        json.dumps(body, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@admin.action(description="Export selected matches as JSON (the API's format)")
def export_json(
    model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Match]
) -> HttpResponse | None:
    exports = []
    for match in queryset.order_by("created_at"):
        try:
            exports.append(export.match_export(match))
        except Exception as error:  # a deal whose log fails to replay cannot be recorded
            model_admin.message_user(
                request,
                f"Match {match.pk} was not exported: one of its deals does not replay "
                f"({describe(error)}).",
                messages.ERROR,
            )
            return None
    if len(exports) == 1:
        return json_attachment(exports[0], f"match-{exports[0]['id']}.json")
    return json_attachment(exports, "matches.json")


@admin.action(description="Abandon selected matches (stuck ones)", permissions=["abandon"])
def abandon(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Match]) -> None:
    abandoned = skipped = 0
    for match_id in queryset.values_list("pk", flat=True):
        try:
            services.abandon_match(match_id=match_id)
        except MatchNotActive:
            skipped += 1
        else:
            abandoned += 1
    if abandoned:
        model_admin.message_user(request, f"Abandoned {abandoned} match(es).", messages.SUCCESS)
    if skipped:
        model_admin.message_user(
            request,
            f"Left {skipped} match(es) alone: they had already finished or been abandoned.",
            messages.WARNING,
        )
