"""API v1 routes."""

from django.urls import URLPattern, URLResolver, include, path, re_path

from games.api import (
    account_stream,
    accounts,
    feed,
    lobby,
    matches,
    play,
    problems,
    rematch,
    tables,
)

app_name = "games"

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/guest", accounts.GuestView.as_view(), name="auth-guest"),
    path("auth/register", accounts.RegisterView.as_view(), name="auth-register"),
    path("auth/token", accounts.TokenView.as_view(), name="auth-token"),
    path("auth/logout", accounts.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all", accounts.LogoutAllView.as_view(), name="auth-logout-all"),
    path("me", accounts.MeView.as_view(), name="me"),
    path("me/stream", account_stream.MyStreamView.as_view(), name="my-stream"),
    path("me/close", accounts.CloseAccountView.as_view(), name="close-account"),
    path("me/export", accounts.ExportView.as_view(), name="export-my-data"),
    path("rules/presets", matches.RulePresetsView.as_view(), name="rule-presets"),
    path("matches", matches.MatchListCreateView.as_view(), name="matches"),
    path("matches/<uuid:match_id>", matches.MatchDetailView.as_view(), name="match"),
    path("matches/<uuid:match_id>/join", tables.JoinMatchView.as_view(), name="join"),
    path("matches/<uuid:match_id>/invitation", tables.InvitationView.as_view(),
         name="invitation"),
    path("matches/<uuid:match_id>/cancel", tables.CancelMatchView.as_view(), name="cancel"),
    path("matches/<uuid:match_id>/leave", tables.LeaveMatchView.as_view(), name="leave"),
    path("matches/<uuid:match_id>/return", tables.ReturnView.as_view(), name="return"),
    path("matches/<uuid:match_id>/ready", tables.ReadyView.as_view(), name="ready"),
    path("matches/<uuid:match_id>/spectate", tables.SpectateView.as_view(), name="spectate"),
    path("matches/<uuid:match_id>/rematch", rematch.RematchView.as_view(), name="rematch"),
    path("matches/<uuid:match_id>/rematch/accept", rematch.AcceptRematchView.as_view(),
         name="rematch-accept"),
    path("matches/<uuid:match_id>/rematch/decline", rematch.DeclineRematchView.as_view(),
         name="rematch-decline"),
    path("lobby", lobby.LobbyView.as_view(), name="lobby"),
    path("quick-match", lobby.QuickMatchView.as_view(), name="quick-match"),
    path("invitations/<str:code>/join", tables.InvitationJoinView.as_view(),
         name="invitation-join"),
    path("matches/<uuid:match_id>/view", play.SeatViewView.as_view(), name="seat-view"),
    path("matches/<uuid:match_id>/hint", play.HintView.as_view(), name="hint"),
    path("matches/<uuid:match_id>/bid-estimate", play.BidEstimateView.as_view(),
         name="bid-estimate"),
    path("matches/<uuid:match_id>/actions", play.ActionView.as_view(), name="actions"),
    path("matches/<uuid:match_id>/events", feed.EventsView.as_view(), name="events"),
    path("matches/<uuid:match_id>/stream", feed.StreamView.as_view(), name="stream"),
    path("matches/<uuid:match_id>/deals", feed.DealListView.as_view(), name="deals"),
    path(
        "matches/<uuid:match_id>/deals/<int:sequence>",
        feed.DealDetailView.as_view(),
        name="deal",
    ),
    path(
        "matches/<uuid:match_id>/deals/<int:sequence>/notation",
        feed.DealNotationView.as_view(),
        name="deal-notation",
    ),
    path(
        "matches/<uuid:match_id>/deals/<int:sequence>/analysis",
        feed.DealAnalysisView.as_view(),
        name="deal-analysis",
    ),
    path("matches/<uuid:match_id>/notation", feed.MatchNotationView.as_view(),
         name="match-notation"),
    path("tour/", include("tour.urls")),
    path("platform/", include("platforms.urls")),
    # Unknown API paths answer with a problem document even when DEBUG shows HTML pages.
    re_path(r"", problems.not_found),
]
