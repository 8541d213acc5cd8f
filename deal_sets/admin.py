"""Staff see deal sets and who played them; never a set's cards (a set is in play until it
closes, and its cards are shown to everyone then, through the API), and nobody edits them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from deal_sets.models import DealSet, DealSetEntry
from games.admin.read_only import ReadOnlyAdmin


@admin.register(DealSet)
class DealSetAdmin(ReadOnlyAdmin):
    list_display = ("kind", "game", "day", "bot_level", "tables", "closes_at", "created_by")
    list_filter = ("kind", "game")
    ordering = ("-created_at",)
    # Never `deck` nor `salt`.
    fields = ("id", "kind", "game", "day", "dealer", "seat", "bot_level", "commitment",
              "created_by", "created_at", "closes_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[DealSet]:
        return super().get_queryset(request).annotate(tables=Count("entries"))

    @admin.display(ordering="tables")
    def tables(self, deal_set: Any) -> int:
        return int(deal_set.tables)


@admin.register(DealSetEntry)
class DealSetEntryAdmin(ReadOnlyAdmin):
    list_display = ("deal_set", "user", "match", "points", "tricks", "finished_at")
    list_select_related = ("deal_set", "user")
    ordering = ("-created_at",)
