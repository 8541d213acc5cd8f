"""Refusals of the ratings' endpoints, as `ServiceError`s (problem documents, six languages)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.errors import ServiceError


class PlayerNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("No such player.")


class HistoryHidden(ServiceError):
    status = 403
    code = "history_hidden"
    default_detail = _("This player keeps their match history private.")


class InvalidCursor(ServiceError):
    status = 400
    code = "invalid_cursor"
    default_detail = _("This cursor is not one this list gave; start again without it.")
