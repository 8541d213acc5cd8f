"""Refusals of the ratings' endpoints, as `ServiceError`s (problem documents, six languages)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.errors import ServiceError


class StartsWithoutSeason(ServiceError):
    status = 400
    code = "invalid_season_start"
    default_detail = _("`starts` names a season: ask for it with `season` week or month.")


class InvalidSeasonStart(ServiceError):
    status = 400
    code = "invalid_season_start"
    default_detail = _(
        "`starts` must be a season's first day (a Monday for a week, the 1st for a month), "
        "not after the current season's."
    )


class PlayerNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("No such player.")


class HistoryHidden(ServiceError):
    status = 403
    code = "history_hidden"
    default_detail = _("This player keeps their match history private.")


class NotOnLeaderboard(ServiceError):
    status = 404
    code = "not_on_leaderboard"
    # The season boards' refusal; the all-time board's says how many matches are to go.
    default_detail = _("You have played no rated match of this game in this season.")
    provisional_detail = _(
        "Your rating is on this leaderboard once you have played %(total)d rated matches of "
        "this game; %(needed)d to go."
    )
    player_detail = _("This player is not on this leaderboard.")
