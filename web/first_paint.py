"""First paint of a table at /play/ in Debian's headless Chromium (docs/play.md): a guest's
match against three computer players, opened by its URL seven times (the first run warms the
server and is left out), measured from the navigation's start.

    .venv/bin/python web/first_paint.py http://127.0.0.1:8000
"""

import json
import statistics
import sys
import urllib.request
from typing import Any

from playwright.sync_api import sync_playwright

RUNS = 7
BOTS = [{"kind": "bot", "bot_level": "easy"}] * 3
# The moment the hand is in the page, then the frame that paints it.
WATCH_THE_HAND = """new MutationObserver((_, observer) => {
    if (!document.querySelector('.hand button.card')) return;
    observer.disconnect();
    requestAnimationFrame(() => { window.tablePainted = performance.now(); });
}).observe(document, {subtree: true, childList: true});"""
FCP = "performance.getEntriesByName('first-contentful-paint')"


def post(base: str, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def main(base: str) -> None:
    token = post(base, "/api/v1/auth/guest", {"display_name": "Timer"})["token"]
    seats = [{"kind": "me"}, *BOTS]
    match = post(base, "/api/v1/matches", {"game": "auction", "deals": 1, "seats": seats}, token)
    first_paint: list[float] = []
    table: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        for _ in range(RUNS):
            # The page's Content-Security-Policy forbids eval, which wait_for_function's
            # polling of a string needs: set aside for the measuring only.
            context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            context.add_init_script(f"localStorage.setItem('batak.token', {json.dumps(token)})")
            context.add_init_script(WATCH_THE_HAND)
            page = context.new_page()
            page.goto(f"{base}/play/#/match/{match['id']}")
            page.wait_for_function(f"window.tablePainted && {FCP}.length")
            first_paint.append(page.evaluate(f"{FCP}[0].startTime"))
            table.append(page.evaluate("window.tablePainted"))
            context.close()
        browser.close()
    for name, times in (("first contentful paint", first_paint), ("table and hand drawn", table)):
        print(f"{name}: median {statistics.median(times[1:]):.0f} ms, max {max(times[1:]):.0f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
