"""The platform API's routes, under /api/v1/platform/."""

from django.urls import path, re_path

from platforms.api import matches, players, stream, subscriptions
from ratings.urls import GAME

urlpatterns = [
    path("players", players.PlayersView.as_view(), name="platform-players"),
    path("players/<str:external_id>", players.PlayerView.as_view(), name="platform-player"),
    path("players/<str:external_id>/token", players.PlayerTokenView.as_view(),
         name="platform-player-token"),
    path("players/<str:external_id>/tokens", players.PlayerTokensView.as_view(),
         name="platform-player-tokens"),
    path("players/<str:external_id>/profile", players.PlayerProfileView.as_view(),
         name="platform-player-profile"),
    path("players/<str:external_id>/matches", players.PlayerMatchesView.as_view(),
         name="platform-player-matches"),
    path("matches", matches.PlatformMatchesView.as_view(), name="platform-matches"),
    path("matches/<uuid:match_id>", matches.PlatformMatchView.as_view(), name="platform-match"),
    path("matches/<uuid:match_id>/cancel", matches.CancelPlatformMatchView.as_view(),
         name="platform-match-cancel"),
    re_path(rf"^leaderboards/{GAME}$", matches.PlatformLeaderboardView.as_view(),
            name="platform-leaderboard"),
    path("batches", matches.BatchesView.as_view(), name="platform-batches"),
    path("batches/<uuid:batch_id>", matches.BatchView.as_view(), name="platform-batch"),
    path("batches/<uuid:batch_id>/cancel", matches.CancelBatchView.as_view(),
         name="platform-batch-cancel"),
    path("stream", stream.PlatformStreamView.as_view(), name="platform-stream"),
    path("webhooks", subscriptions.WebhooksView.as_view(), name="platform-webhooks"),
    path("webhooks/<int:webhook_id>", subscriptions.WebhookView.as_view(), name="platform-webhook"),
    path("webhooks/<int:webhook_id>/deliveries", subscriptions.DeliveriesView.as_view(),
         name="platform-webhook-deliveries"),
    path("webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/redeliver",
         subscriptions.RedeliverView.as_view(), name="platform-webhook-redeliver"),
    path("webhooks/<int:webhook_id>/replay", subscriptions.ReplayView.as_view(),
         name="platform-webhook-replay"),
    path("webhooks/<int:webhook_id>/recover", subscriptions.RecoverView.as_view(),
         name="platform-webhook-recover"),
]
