"""The deal sets' endpoints, under /api/v1/ beside the games' (batak_api/urls.py includes them
before the games': the games' URLs end with the API's catch-all 404)."""

from django.urls import URLPattern, path, re_path

from deal_sets.api import views
from games.models import GameChoice

# An unknown game matches no route: the catch-all's 404 `not_found`.
GAME = "(?P<game>" + "|".join(GameChoice.values) + ")"

urlpatterns: list[URLPattern] = [
    re_path(rf"^deal-sets/daily/{GAME}$", views.DailyDealSetView.as_view(),
            name="deal-set-daily"),
    path("deal-sets", views.DealSetsView.as_view(), name="deal-sets"),
    path("deal-sets/<uuid:deal_set_id>", views.DealSetView.as_view(), name="deal-set"),
    path("deal-sets/<uuid:deal_set_id>/play", views.PlayDealSetView.as_view(),
         name="deal-set-play"),
    path("deal-sets/<uuid:deal_set_id>/results", views.DealSetResultsView.as_view(),
         name="deal-set-results"),
]
