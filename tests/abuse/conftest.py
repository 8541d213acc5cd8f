"""The API tests' players (guest accounts with their tokens) for the abuse tests."""

from tests.api.conftest import player

__all__ = ["player"]
