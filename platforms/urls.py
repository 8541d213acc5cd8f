"""The platform API's routes, under /api/v1/platform/."""

from django.urls import path, re_path

from platforms.api import views
from ratings.urls import GAME

urlpatterns = [
    path("players", views.PlayersView.as_view(), name="platform-players"),
    path("players/<str:external_id>", views.PlayerView.as_view(), name="platform-player"),
    path("players/<str:external_id>/token", views.PlayerTokenView.as_view(),
         name="platform-player-token"),
    path("players/<str:external_id>/tokens", views.PlayerTokensView.as_view(),
         name="platform-player-tokens"),
    path("players/<str:external_id>/profile", views.PlayerProfileView.as_view(),
         name="platform-player-profile"),
    path("players/<str:external_id>/matches", views.PlayerMatchesView.as_view(),
         name="platform-player-matches"),
    path("matches", views.PlatformMatchesView.as_view(), name="platform-matches"),
    path("matches/<uuid:match_id>", views.PlatformMatchView.as_view(), name="platform-match"),
    path("matches/<uuid:match_id>/cancel", views.CancelPlatformMatchView.as_view(),
         name="platform-match-cancel"),
    re_path(rf"^leaderboards/{GAME}$", views.PlatformLeaderboardView.as_view(),
            name="platform-leaderboard"),
    path("webhooks", views.WebhooksView.as_view(), name="platform-webhooks"),
    path("webhooks/<int:webhook_id>", views.WebhookView.as_view(), name="platform-webhook"),
    path("webhooks/<int:webhook_id>/deliveries", views.DeliveriesView.as_view(),
         name="platform-webhook-deliveries"),
    path("webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/redeliver",
         views.RedeliverView.as_view(), name="platform-webhook-redeliver"),
    path("webhooks/<int:webhook_id>/replay", views.ReplayView.as_view(),
         name="platform-webhook-replay"),
]
