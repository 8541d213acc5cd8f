"""Settings of the benchmark's web processes: the service's own, with the baseline endpoint."""

from batak_api.settings import *  # noqa: F403

ROOT_URLCONF = "loadtest.urls"

# The baseline is an API request like a move, through the same middleware.
API_PATH_PREFIXES = [*API_PATH_PREFIXES, "/loadtest/"]  # noqa: F405
