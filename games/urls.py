"""API v1 routes."""

from django.urls import URLPattern, URLResolver, include, path, re_path

from games.api import accounts, problems, views

app_name = "games"

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/guest", accounts.GuestView.as_view(), name="auth-guest"),
    path("auth/register", accounts.RegisterView.as_view(), name="auth-register"),
    path("auth/token", accounts.TokenView.as_view(), name="auth-token"),
    path("auth/logout", accounts.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all", accounts.LogoutAllView.as_view(), name="auth-logout-all"),
    path("me", accounts.MeView.as_view(), name="me"),
    path("rules/presets", views.RulePresetsView.as_view(), name="rule-presets"),
    path("matches", views.MatchListCreateView.as_view(), name="matches"),
    path("matches/<uuid:match_id>", views.MatchDetailView.as_view(), name="match"),
    path("matches/<uuid:match_id>/join", views.JoinMatchView.as_view(), name="join"),
    path("matches/<uuid:match_id>/invitation", views.InvitationView.as_view(),
         name="invitation"),
    path("matches/<uuid:match_id>/cancel", views.CancelMatchView.as_view(), name="cancel"),
    path("matches/<uuid:match_id>/leave", views.LeaveMatchView.as_view(), name="leave"),
    path("matches/<uuid:match_id>/return", views.ReturnView.as_view(), name="return"),
    path("matches/<uuid:match_id>/spectate", views.SpectateView.as_view(), name="spectate"),
    path("lobby", views.LobbyView.as_view(), name="lobby"),
    path("quick-match", views.QuickMatchView.as_view(), name="quick-match"),
    path("invitations/<str:code>/join", views.InvitationJoinView.as_view(),
         name="invitation-join"),
    path("matches/<uuid:match_id>/view", views.SeatViewView.as_view(), name="seat-view"),
    path("matches/<uuid:match_id>/bid-estimate", views.BidEstimateView.as_view(),
         name="bid-estimate"),
    *[
        path(f"matches/<uuid:match_id>/{kind}", view.as_view(), name=kind)
        for kind, view in views.ACTION_VIEWS.items()
    ],
    path("matches/<uuid:match_id>/events", views.EventsView.as_view(), name="events"),
    path("matches/<uuid:match_id>/stream", views.StreamView.as_view(), name="stream"),
    path("matches/<uuid:match_id>/deals", views.DealListView.as_view(), name="deals"),
    path(
        "matches/<uuid:match_id>/deals/<int:sequence>",
        views.DealDetailView.as_view(),
        name="deal",
    ),
    path("tour/", include("tour.urls")),
    path("platform/", include("platforms.urls")),
    # Unknown API paths answer with a problem document even when DEBUG shows HTML pages.
    re_path(r"", problems.not_found),
]
