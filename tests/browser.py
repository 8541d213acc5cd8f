"""Debian's headless Chromium driven by Playwright: the one launch setup of the admin's
browser tests (tests/admin/test_browser.py) and the web client's (tests/web/)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def unavailable(reason: str) -> None:
    # On a developer's machine without Chromium the browser tests step aside; CI must run them.
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (scripts/test installs Debian's chromium)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        unavailable(f"Playwright is not installed: {error}")
    with pytest.MonkeyPatch.context() as patch:
        # Playwright's sync API marks its event loop as running on this thread, and Django then
        # refuses ORM calls here. The tests' ORM calls never run while the loop works, which is
        # the case Django's switch allows.
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        playwright = sync_playwright().start()
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except Exception as error:  # any launch failure means the same: no browser to test with
            playwright.stop()
            unavailable(f"Chromium could not start: {error}")
        yield chromium
        chromium.close()
        playwright.stop()
