"""The API's guests and the partner platforms' fixtures, for the people's data tests."""

from tests.api.conftest import player  # noqa: F401 - a fixture for these tests too
from tests.platforms.conftest import platform  # noqa: F401 - a fixture for these tests too
