"""The ratings' endpoints, under /api/v1/ beside the games' (batak_api/urls.py includes them
first: the games' URLs end with the API's catch-all 404)."""

from django.urls import URLPattern, re_path

from games.models import GameChoice
from ratings import api

# An unknown game matches no route: the catch-all's 404 `not_found`, as an unknown match is.
GAME = "(?P<game>" + "|".join(GameChoice.values) + ")"

urlpatterns: list[URLPattern] = [
    re_path(rf"^leaderboards/{GAME}$", api.LeaderboardView.as_view(), name="leaderboard"),
    re_path(rf"^leaderboards/{GAME}/around-me$", api.AroundMeView.as_view(),
            name="leaderboard-around-me"),
    re_path(rf"^leaderboards/{GAME}/players/(?P<username>[^/]+)$",
            api.PlayerEntryView.as_view(), name="leaderboard-player"),
]
