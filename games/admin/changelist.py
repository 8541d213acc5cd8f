"""The match list: its filters, columns and the query behind them."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, Exists, IntegerField, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest

from games.admin.faces import seat_names
from games.models import BotLevel, Deal, DealStatus, Match, MatchStatus, Seat


def _bot_seats() -> QuerySet[Seat]:
    return Seat.objects.filter(match=OuterRef("pk")).exclude(bot_level="")


class HasBotsFilter(admin.SimpleListFilter):
    title = "computer players"
    parameter_name = "bots"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin
    ) -> list[tuple[str, str]]:
        return [("yes", "With computer players"), ("no", "People only")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        if self.value() == "yes":
            return queryset.filter(Exists(_bot_seats()))
        if self.value() == "no":
            return queryset.filter(~Exists(_bot_seats()))
        return queryset


class BotLevelFilter(admin.SimpleListFilter):
    title = "computer level"
    parameter_name = "bot_level"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin
    ) -> list[tuple[str, str]]:
        return [(str(value), str(label)) for value, label in BotLevel.choices]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        if self.value() in BotLevel.values:
            return queryset.filter(Exists(_bot_seats().filter(bot_level=self.value())))
        return queryset


class MatchListAdmin(admin.ModelAdmin):
    """The list of matches; `MatchAdmin` adds the match and deal pages and the actions."""

    list_display = (
        "short_id", "game", "status", "deals_column", "people", "bots", "winner", "created_at",
    )
    list_display_links = ("short_id",)
    list_filter = (
        "game", "status", HasBotsFilter, BotLevelFilter, ("created_at", admin.DateFieldListFilter),
    )
    # "id" matches any part of a match id, with or without its hyphens.
    search_fields = ("id", "seats__display_name", "seats__user__username")
    search_help_text = "A player's name or account, or (part of) a match id."
    ordering = ("-created_at",)
    list_per_page = 50
    # Counting every match on each page load costs a full scan for a number nobody needs.
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        # A subquery rather than Count("deals"): a search through seats joins more rows, which
        # would multiply a joined count.
        finished = (
            Deal.objects.filter(match=OuterRef("pk"), status=DealStatus.FINISHED)
            .values("match")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return (
            super()
            .get_queryset(request)
            .annotate(deals_played=Coalesce(Subquery(finished, output_field=IntegerField()), 0))
            .prefetch_related(
                Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
            )
        )

    @admin.display(description="match", ordering="id")
    def short_id(self, match: Match) -> str:
        return str(match.id)[:8]

    @admin.display(description="deals played", ordering="deals_played")
    def deals_column(self, match: Match) -> str:
        return f"{match.deals_played} / {match.deal_count}"  # type: ignore[attr-defined]

    @admin.display(description="people")
    def people(self, match: Match) -> str:
        names = [
            (seat.display_name or seat.user.get_username()) if seat.user else "open seat"
            for seat in match.seats.all()
            if not seat.is_bot
        ]
        return ", ".join(names) or "—"

    @admin.display(description="computer players")
    def bots(self, match: Match) -> str:
        named = [f"{seat.display_name} ({seat.get_bot_level_display()})"
                 for seat in match.seats.all() if seat.is_bot]
        return ", ".join(named) or "—"

    @admin.display(description="winner")
    def winner(self, match: Match) -> str:
        if match.status != MatchStatus.FINISHED or not match.ranking:
            return "—"
        names = seat_names(match)
        return " & ".join(names[seat] for seat, place in enumerate(match.ranking) if place == 1)
