"""How the settings read environment variables: django-environ, with this service's rules where
environ's own reading of a value differs, so that no deployment's configuration changes meaning.
"""

import re
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured


class Env(environ.Env):
    # Only these are true (in any case, spaces around); anything else is false. environ would
    # also take "y", "ok" and any non-zero number: DJANGO_DEBUG=2 would leave production.
    BOOLEAN_TRUE_STRINGS = ("1", "true", "yes", "on")

    @classmethod
    def parse_value(cls, value: str, cast: Any) -> Any:
        if cast is bool:
            return value.strip().lower() in cls.BOOLEAN_TRUE_STRINGS
        if cast is float:
            # Python's float, so a typo is refused: environ keeps only the digits, "," and "."
            # of a value, reading "1e3" as 13 and "5s" as 5.
            return float(value)
        if cast is list:
            # "a, b," is ["a", "b"]: environ keeps the spaces and would give ["a", " b"].
            return [item.strip() for item in value.split(",") if item.strip()]
        return super().parse_value(value, cast)

    def get_value(
        self, var: str, cast: Any = None, default: Any = environ.Env.NOTSET,
        parse_default: bool = False,
    ) -> Any:
        value = self.ENVIRON.get(var)
        try:
            if value is not None and value.startswith("$"):
                # Read as it is: environ would take the rest for the name of another variable to
                # read instead, and Django's generated secret keys may start with "$".
                return self.parse_value(value, cast)
            return super().get_value(var, cast, default, parse_default)
        except ValueError as error:
            # int() and float() say what they could not read, not which variable it came from.
            kind = "an integer" if cast is int else "a number"
            raise ImproperlyConfigured(f"{var} must be {kind}, not {value!r}.") from error

    def rate(self, var: str, default: str | None) -> str | None:
        """A rate, `count/period` (20/minute; second, minute, hour or day), as DRF's throttles
        and runtime/windows.py read it. An empty value leaves it at its default; a malformed one
        stops the service at start rather than failing every request it limits."""
        rate = self.get_value(var, default=None) or default
        if rate is not None and not re.fullmatch(r"[1-9][0-9]*/[smhd][a-z]*", rate):
            raise ImproperlyConfigured(
                f"{var} is a count and a period (20/minute), not {rate!r}.")
        return rate

    def float(self, var: str, default: float) -> float:
        """A float setting: an empty value leaves it at its default, as an unset one does
        (integer settings refuse an empty value)."""
        value = self.get_value(var, cast=float, default=None)
        return float(default) if value is None else value
