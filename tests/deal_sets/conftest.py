"""The deal sets' tests play through the API as the API's tests do."""

from tests.api.conftest import player

__all__ = ["player"]
