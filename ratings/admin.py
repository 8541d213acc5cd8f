"""Staff see ratings, their changes and the seasons' boards; nobody edits them here: they come
from play, and `manage.py recount_ratings` recounts them from the stored results."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from games.admin.read_only import ReadOnlyAdmin
from ratings.model import PROVISIONAL_MATCHES
from ratings.models import Rating, RatingChange, SeasonStanding


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("user", "game", "rating", "deviation", "matches", "wins", "provisional",
                    "circle", "updated_at")
    list_filter = ("game",)
    search_fields = ("user__username", "user__first_name")
    ordering = ("game", "-rating", "user_id")
    list_select_related = ("user", "circle")

    @admin.display(boolean=True, description="provisional")
    def provisional(self, rating: Rating) -> bool:
        return rating.matches < PROVISIONAL_MATCHES


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "game", "match_link", "seat", "place",
                    "rating_before", "rating_after", "delta")
    list_filter = ("game",)
    search_fields = ("user__username", "=match__id")
    date_hierarchy = "created_at"
    list_select_related = ("user",)

    @admin.display(description="match")
    def match_link(self, change: RatingChange) -> str:
        url = reverse("admin:games_match_change", args=[change.match_id])
        return format_html('<a href="{}">{}</a>', url, change.match_id)

    @admin.display(description="change")
    def delta(self, change: RatingChange) -> str:
        return f"{change.delta:+d}"


@admin.register(SeasonStanding)
class SeasonStandingAdmin(ReadOnlyAdmin):
    list_display = ("user", "game", "period", "starts", "points", "matches", "wins", "circle")
    list_filter = ("game", "period", "starts")
    search_fields = ("user__username", "user__first_name")
    ordering = ("game", "period", "-starts", "-points", "user_id")
    list_select_related = ("user", "circle")
