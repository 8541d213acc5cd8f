"""The ratings' endpoints, under /api/v1/ beside the games' (batak_api/urls.py includes them
first: the games' URLs end with the API's catch-all 404)."""

from django.urls import URLPattern, path, re_path

from games.models import GameChoice
from ratings.api import leaderboards, players

# An unknown game matches no route: the catch-all's 404 `not_found`, as an unknown match is.
GAME = "(?P<game>" + "|".join(GameChoice.values) + ")"

urlpatterns: list[URLPattern] = [
    re_path(rf"^leaderboards/{GAME}$", leaderboards.LeaderboardView.as_view(),
            name="leaderboard"),
    re_path(rf"^leaderboards/{GAME}/around-me$", leaderboards.AroundMeView.as_view(),
            name="leaderboard-around-me"),
    re_path(rf"^leaderboards/{GAME}/players/(?P<username>[^/]+)$",
            leaderboards.PlayerEntryView.as_view(), name="leaderboard-player"),
    path("me/privacy", players.PrivacyView.as_view(), name="privacy"),
    path("players/<str:username>", players.PlayerView.as_view(), name="player"),
    path("players/<str:username>/matches", players.PlayerMatchesView.as_view(),
         name="player-matches"),
    path("players/<str:username>/ratings/<str:game>", players.PlayerRatingsView.as_view(),
         name="player-ratings"),
]
