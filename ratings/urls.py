"""The ratings' endpoints, under /api/v1/ beside the games' (batak_api/urls.py includes them
first: the games' URLs end with the API's catch-all 404)."""

from django.urls import URLPattern, path

from ratings.api import players

urlpatterns: list[URLPattern] = [
    path("me/privacy", players.PrivacyView.as_view(), name="privacy"),
    path("players/<str:username>", players.PlayerView.as_view(), name="player"),
    path("players/<str:username>/matches", players.PlayerMatchesView.as_view(),
         name="player-matches"),
    path("players/<str:username>/ratings/<str:game>", players.PlayerRatingsView.as_view(),
         name="player-ratings"),
]
