"""The tour's refusals, as the service's one error type (`games.errors.ServiceError`)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.errors import ServiceError


class TableNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("No such table in the Tour of Tables.")


class TableLocked(ServiceError):
    # 409 rather than 403: the same request succeeds once the table before it has been won.
    status = 409
    code = "table_locked"
    default_detail = _("This table opens once you finish first at the table before it.")
