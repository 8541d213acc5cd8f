"""Refusals of the platform API, as `ServiceError`s (problem documents, six languages)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.errors import ServiceError


class MissingScope(ServiceError):
    status = 403
    code = "missing_scope"
    default_detail = _("This platform key does not have the scope this request needs.")


class PlatformKeyNotAccepted(ServiceError):
    status = 403
    code = "platform_key_not_accepted"
    default_detail = _(
        "A platform key reads its own matches here; everything else it does is under /platform/."
    )


class InvalidExternalId(ServiceError):
    status = 400
    code = "invalid_input"
    default_detail = _(
        "An external id is 1 to 128 of the characters A-Z a-z 0-9 _ . : @ + -, not dots only."
    )


class UnknownPlayer(ServiceError):
    status = 400
    code = "unknown_player"
    default_detail = _("No player of your platform has this external id; create it first.")


class PlayerNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("Your platform has no such player.")


class PlatformMatchNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("Your platform has no such match.")


class MatchOver(ServiceError):
    """Sent with `match_status`: how the match ended."""

    status = 409
    code = "match_over"
    default_detail = _("This match is already over: there is nothing left to cancel.")


class WebhookNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("Your platform has no such webhook.")


class DeliveryNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("This webhook of your platform has no such delivery.")


class BatchNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("Your platform has no such batch.")
