"""Refusals of the deal sets' endpoints, as `ServiceError`s (problem documents, six languages)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.errors import ServiceError


class DealSetNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("No such deal set.")


class DealSetClosed(ServiceError):
    status = 409
    code = "deal_set_closed"
    default_detail = _("This deal set has closed: its results and cards are final.")


class DealSetPlayed(ServiceError):
    status = 409
    code = "deal_set_played"
    default_detail = _("You have played this deal set already: each person plays it once.")


class OwnDealSet(ServiceError):
    status = 409
    code = "own_deal_set"
    default_detail = _("You imported this deal and know its cards, so you cannot play it.")


class DealSetThrowsIn(ServiceError):
    status = 400
    code = "deal_set_throw_in"
    default_detail = _(
        "A deal set is one deal for everyone: its rules may not throw a deal in "
        "(`weak_hand_redeal`, `all_pass: redeal`), or a table would play other cards."
    )


class TooManyDealSets(ServiceError):
    status = 409
    code = "too_many_deal_sets"
    default_detail = _(
        "You have as many open deal sets as an account may have; wait for one to close."
    )


class PlayFirst(ServiceError):
    status = 403
    code = "deal_set_play_first"
    default_detail = _(
        "The results show until the set closes only to those who have played it: play it "
        "first."
    )
