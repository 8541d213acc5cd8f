"""Fixtures shared by all test packages; pytest-django already supplies client, db and settings."""

import os

from hypothesis import settings

# CI runs the same examples every time (a red run must be reproducible); a developer's run
# explores new ones, and failures are kept in .hypothesis/ for the next run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")
