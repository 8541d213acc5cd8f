"""The platform API's routes, under /api/v1/platform/."""

from django.urls import path

from platforms.api import views

urlpatterns = [
    path("players/<str:external_id>", views.PlayerView.as_view(), name="platform-player"),
    path("matches", views.PlatformMatchesView.as_view(), name="platform-matches"),
    path("matches/<uuid:match_id>", views.PlatformMatchView.as_view(), name="platform-match"),
    path("webhooks", views.WebhooksView.as_view(), name="platform-webhooks"),
    path("webhooks/<int:webhook_id>", views.WebhookView.as_view(), name="platform-webhook"),
    path("webhooks/<int:webhook_id>/deliveries", views.DeliveriesView.as_view(),
         name="platform-webhook-deliveries"),
    path("webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/redeliver",
         views.RedeliverView.as_view(), name="platform-webhook-redeliver"),
    path("webhooks/<int:webhook_id>/replay", views.ReplayView.as_view(),
         name="platform-webhook-replay"),
]
