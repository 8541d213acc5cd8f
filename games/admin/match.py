"""The match admin: the list (changelist.py), the match page (match_page.py), each ended deal's
replay (replay.py) and the actions (actions.py), wired to the admin's URLs and permissions."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from games.access import cards_visible
from games.admin.actions import abandon, export_json
from games.admin.changelist import MatchListAdmin
from games.admin.match_page import match_page
from games.admin.replay import deal_page, replay
from games.models import Match


@admin.register(Match)
class MatchAdmin(MatchListAdmin):
    actions = (export_json, abandon)
    fields = (
        ("id", "status"),
        ("game", "deal_count"),
        ("created_by", "first_dealer", "version"),
        ("created_at", "updated_at", "finished_at"),
    )

    # A match is a record of play: it changes only through the services (as the players move),
    # never through a form.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        return False

    def has_abandon_permission(self, request: HttpRequest) -> bool:
        # Only staff trusted to change matches may stop one.
        return request.user.has_perm("games.change_match")

    # --- the match page ----------------------------------------------------------------------

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Match | None = None,
    ) -> HttpResponse:
        if obj is not None:
            context.update(match_page(obj))
        return super().render_change_form(request, context, add, change, form_url, obj)

    # --- the deal page and export --------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:object_id>/deals/<int:sequence>/",
                self.admin_site.admin_view(self.deal_view),
                name="games_match_deal",
            ),
            path(
                "<path:object_id>/export/",
                self.admin_site.admin_view(self.export_view),
                name="games_match_export",
            ),
        ]
        return own + super().get_urls()

    def _viewable(self, request: HttpRequest, object_id: str) -> Match:
        match = self.get_object(request, object_id)
        if match is None:
            raise Http404("No such match.")
        if not self.has_view_permission(request, match):
            raise PermissionDenied
        return match

    def deal_view(self, request: HttpRequest, object_id: str, sequence: int) -> HttpResponse:
        match = self._viewable(request, object_id)
        deal_row = match.deals.filter(sequence=sequence).first()
        if deal_row is None or not cards_visible(match, deal_row):
            raise Http404("No such deal, or its cards are not shown yet (still in play, or a "
                          "deal set's still open).")
        checked = replay(match, deal_row)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Deal {deal_row.number} of {match.deal_count} — {match}",
            "match": match,
            "deal": deal_row,
            "replay": checked,
            "match_url": reverse("admin:games_match_change", args=(match.pk,)),
            "deal_count": match.deals.count(),
            "previous_url": self._deal_url(match, sequence - 1),
            "next_url": self._deal_url(match, sequence + 1),
            **deal_page(match, deal_row, checked),
        }
        return TemplateResponse(request, "admin/games/match/deal_replay.html", context)

    def _deal_url(self, match: Match, sequence: int) -> str | None:
        deal_row = match.deals.filter(sequence=sequence).first()
        if deal_row is None or not cards_visible(match, deal_row):
            return None
        return reverse("admin:games_match_deal", args=(match.pk, sequence))

    def export_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        match = self._viewable(request, object_id)
        exported = export_json(self, request, Match.objects.filter(pk=match.pk))
        # When the export fails the match page shows why (the action left a message).
        return exported or HttpResponseRedirect(
            reverse("admin:games_match_change", args=(match.pk,))
        )
