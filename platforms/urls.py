"""The platform API's routes, under /api/v1/platform/."""

from django.urls import path

from platforms.api import views

urlpatterns = [
    path("players/<str:external_id>", views.PlayerView.as_view(), name="platform-player"),
    path("matches", views.PlatformMatchesView.as_view(), name="platform-matches"),
    path("matches/<uuid:match_id>", views.PlatformMatchView.as_view(), name="platform-match"),
]
