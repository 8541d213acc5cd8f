"""The reference web client (/play/, web/) in Debian's headless Chromium, driven by Playwright
against the service as `scripts/serve` runs it (uvicorn in a thread, tests/conftest.py's
asgi_server): the launch setup is the admin's (tests/admin/test_browser.py)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache

from tests.browser import unavailable

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
AXE = Path(settings.BASE_DIR) / "web" / "node_modules" / "axe-core" / "axe.min.js"
# The pictures in docs/play.md, saved there too when SAVE_DOCS_IMAGES=1 (else only to
# test-artifacts/: a test run leaves the committed pictures alone).
DOCS = Path(settings.BASE_DIR) / "docs"
DESKTOP = {"width": 1280, "height": 800}
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


def check_accessibility(page: Any, *, strict: bool = False) -> None:
    """axe-core on the page as it is: no serious or critical violation (``strict``: none at
    all, of any impact)."""
    if not AXE.exists():
        unavailable("axe-core is not installed (bash scripts/web check runs npm ci in web/)")
    # Evaluated by the browser's debugging protocol, which the page's Content-Security-Policy
    # does not cover: a <script> tag of it would be refused, as any script but the page's own.
    page.evaluate(AXE.read_text())
    violations = page.evaluate("async () => (await axe.run(document)).violations")
    grave = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
             for v in violations if strict or v["impact"] in ("serious", "critical")]
    assert grave == []


def save_picture(target: Any, name: str, **options: Any) -> None:
    """A screenshot of a page or an element into test-artifacts/, and into docs/ (the
    pictures of docs/play.md) when SAVE_DOCS_IMAGES=1."""
    ARTIFACTS.mkdir(exist_ok=True)
    target.screenshot(path=str(ARTIFACTS / name), **options)
    if os.environ.get("SAVE_DOCS_IMAGES") == "1":
        shutil.copyfile(ARTIFACTS / name, DOCS / name)


class Troubles:
    """What went wrong in a page while it was watched: console errors, uncaught exceptions,
    requests that failed and answers of 400 or more (a refusal the page asked for too: the
    client must not ask what it knows is not there)."""

    def __init__(self, page: Any) -> None:
        self.seen: list[str] = []
        self.requests: list[str] = []
        self._answered: dict[Any, int] = {}
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.seen.append(f"uncaught: {error}"))
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("response", self._response)
        page.on("requestfailed", self._failed)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.seen.append(f"console: {message.text} ({message.location.get('url')})")

    def _response(self, response: Any) -> None:
        self._answered[response.request] = response.status
        if response.status >= 400:
            self.seen.append(f"{response.status} {response.request.method} {response.url}")

    def _failed(self, request: Any) -> None:
        # Chromium ends a fetch answered without a body (204, a 304 to If-None-Match) as
        # `net::ERR_ABORTED` after its answer, though the page's fetch resolves normally.
        if self._answered.get(request) in (204, 304):
            return
        self.seen.append(f"failed: {request.method} {request.url} {request.failure}")

    def clear(self) -> None:
        self.seen.clear()
        self.requests.clear()
