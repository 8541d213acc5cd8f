"""Accounts and their tokens: a one-call guest account, or a named account with a password.
The API's account endpoints (games/api/accounts.py) call these; so do platforms and tests."""

from __future__ import annotations

import secrets
from datetime import datetime

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _
from knox.models import AuthToken

from games.errors import ServiceError

GUEST_PREFIX = "guest-"
# An erased account's name (games/privacy.py): nobody may choose one, or erasure would take
# their account for one erased already.
ERASED_PREFIX = "erased-"
RESERVED_PREFIXES = (GUEST_PREFIX, ERASED_PREFIX)


class UsernameTaken(ServiceError):
    status = 409
    code = "username_taken"
    default_detail = _("That username is taken.")


def create_guest(*, display_name: str) -> User:
    return get_user_model().objects.create_user(
        username=f"{GUEST_PREFIX}{secrets.token_hex(6)}", first_name=display_name
    )


def register(*, username: str, password: str, display_name: str) -> User:
    """A named account. Raises `UsernameTaken`, or Django's ValidationError with the reasons
    a password fails the service's password checks."""
    model = get_user_model()
    if username.lower().startswith(RESERVED_PREFIXES):
        raise UsernameTaken()
    password_validation.validate_password(
        password, model(username=username, first_name=display_name)
    )
    try:
        with transaction.atomic():
            # The database refuses a name taken in any case (migration 0003), so two sign-ups
            # racing for one name get one account and one 409.
            return model.objects.create_user(
                username=username, password=password, first_name=display_name
            )
    except IntegrityError:
        raise UsernameTaken() from None


def is_guest(user: User) -> bool:
    return user.get_username().startswith(GUEST_PREFIX)


def issue_token(user: User) -> tuple[str, datetime | None]:
    """A new token of ``user``'s and when it lapses: every sign-up and log-in issues its own
    (the earlier ones stay valid until they lapse or are revoked)."""
    instance, token = AuthToken.objects.create(user)
    return token, instance.expiry


def revoke_token(token: AuthToken) -> None:
    token.delete()


def revoke_every_token(user: User) -> None:
    AuthToken.objects.filter(user=user).delete()
