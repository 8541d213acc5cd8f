"""Bot tests play through the API with the same guest players as the API tests."""

from tests.api.conftest import player

__all__ = ["player"]
