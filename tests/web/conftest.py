"""The reference web client (/play/, web/) in Debian's headless Chromium, driven by Playwright
against the service as `scripts/serve` runs it (uvicorn in a thread, tests/conftest.py's
asgi_server): the launch setup is the admin's (tests/admin/test_browser.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache

from tests.browser import unavailable

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
AXE = Path(settings.BASE_DIR) / "web" / "node_modules" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}



@pytest.fixture
def open_page(browser, asgi_server) -> Iterator[Callable[..., Any]]:
    """Opens /play/ in a new browser context (its own storage: another person), signed in as
    a guest called `name`; every context is closed after the test."""
    from playwright.sync_api import expect

    # The guest and request rates are counted per address, and every test comes from 127.0.0.1.
    cache.clear()
    contexts: list[Any] = []

    def open_(name: str, *, locale: str = "en-GB", viewport: dict[str, int] = DESKTOP) -> Any:
        context = browser.new_context(viewport=viewport, locale=locale)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{asgi_server}/play/")
        page.locator("form[aria-labelledby=guest-title] input[name=display_name]").fill(name)
        page.locator("form[aria-labelledby=guest-title] button[type=submit]").click()
        expect(page.locator("#new-table")).to_be_visible()
        return page

    yield open_
    for context in contexts:
        context.close()


def check_accessibility(page: Any) -> None:
    """axe-core on the page as it is: no serious or critical violation."""
    if not AXE.exists():
        unavailable("axe-core is not installed (bash scripts/web check runs npm ci in web/)")
    # Evaluated by the browser's debugging protocol, which the page's Content-Security-Policy
    # does not cover: a <script> tag of it would be refused, as any script but the page's own.
    page.evaluate(AXE.read_text())
    violations = page.evaluate("async () => (await axe.run(document)).violations")
    grave = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
             for v in violations if v["impact"] in ("serious", "critical")]
    assert grave == []
