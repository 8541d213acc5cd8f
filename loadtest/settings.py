"""Settings of the benchmark's web processes: the service's own, with the baseline endpoint."""

from batak_api.settings import *  # noqa: F403

ROOT_URLCONF = "loadtest.urls"
