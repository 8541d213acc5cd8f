"""Circles: who sits with whom. People of no circle meet at the tables of no circle. A partner
platform's players are of its circle, and so are its account and every table it or its players
open: only they sit there, find those tables in the lobby or are matched to them by quick
match, and they sit at no other table.

A circle is the id of the account it belongs to (a platform's). `games` never imports
`platforms`: that app names how to find a user's circle (`use`) as it starts."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User

Finder = Callable[[User], int | None]


def _no_circle(user: User) -> int | None:
    return None


_finder: Finder = _no_circle


def use(finder: Finder) -> None:
    global _finder
    _finder = finder


def circle_of(user: User) -> int | None:
    """The circle ``user`` is of; None for everyone's."""
    return _finder(user)
