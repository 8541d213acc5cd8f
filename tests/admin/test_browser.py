"""The review pages in a real browser: Debian's headless Chromium driven by Playwright, against
the live test server. One browser for the module; a handful of page loads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from games import selectors
from games.models import Match

from .helpers import person, play_match
from .test_admin import break_a_card

pytestmark = pytest.mark.browser

SCREENSHOT = Path(settings.BASE_DIR) / "test-artifacts" / "admin-replay.png"
PASSWORD = "referee-password-1"



@pytest.fixture
def referee(browser, live_server, django_user_model) -> Iterator[Any]:
    """A page logged into the admin as a staff user."""
    django_user_model.objects.create_superuser("referee", password=PASSWORD)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/login/?next=/admin/games/match/")
    page.fill("#id_username", "referee")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/games/match/")
    yield page
    context.close()


def test_a_referee_reviews_a_finished_match(referee, live_server) -> None:
    from playwright.sync_api import expect

    match = play_match(person("ayse"), seed=5)
    deal = selectors.replay_deal(match, match.deals.get())
    names = [seat.display_name for seat in match.seats.all()]
    page = referee

    page.reload()
    row = page.locator("#result_list tbody tr", has_text=str(match.id)[:8])
    expect(row).to_contain_text("Ayşe")
    expect(row).to_contain_text(", ".join(f"{seat.display_name} ({seat.get_bot_level_display()})"
                                          for seat in match.seats.all() if seat.is_bot))
    expect(row.locator(".field-winner")).to_have_text(
        " & ".join(names[seat] for seat, place in enumerate(match.ranking) if place == 1)
    )
    row.get_by_role("link", name=str(match.id)[:8]).click()

    expect(page.locator("#table-rules")).to_contain_text("Bids start at 4 tricks")
    expect(page.locator("#seats tbody tr")).to_have_count(4)
    sheet = page.locator("#score-sheet")
    expect(sheet).to_contain_text("✓ replayed")
    expect(page.locator("#replay-problems")).to_have_count(0)
    sheet.get_by_role("link", name="Deal 1").click()

    # The four hands as dealt, suits as symbols, red suits in red.
    expect(page.locator("#hands .card")).to_have_count(52)
    heart = page.locator('#hands .card[data-card$="H"]').first
    spade = page.locator('#hands .card[data-card$="S"]').first
    assert heart.evaluate("e => getComputedStyle(e).color") == "rgb(200, 16, 46)"
    assert spade.evaluate("e => getComputedStyle(e).color") != "rgb(200, 16, 46)"
    expect(page.locator("#hands .hand").nth(0)).to_contain_text("♠")
    # The auction in order, the contract, every trick with its winner highlighted, the score.
    calls = page.locator("#auction li")
    expect(calls).to_have_count(len(deal.auction))
    for index, (seat, bid) in enumerate(deal.auction):
        call = "pass" if bid is None else f"bid {bid}"
        expect(calls.nth(index)).to_have_text(f"{names[seat]} {call}")
    expect(page.locator("#contract")).to_contain_text(f"{names[deal.declarer]} plays {deal.bid}")
    tricks = page.locator("#tricks tr.trick")
    expect(tricks).to_have_count(13)
    for number, trick in enumerate(deal.completed_tricks()):
        winner = tricks.nth(number).locator("td.winner")
        expect(winner).to_have_count(1)
        expect(winner).to_contain_text(names[trick.winner])
        expect(tricks.nth(number).locator("td.play").first).to_have_class("play leader" + (
            " winner" if trick.winner == trick.leader else "") + (
            " trump" if trick.plays[0][1].suit == deal.trump else ""))
    background = tricks.nth(0).locator("td.winner").evaluate(
        "e => getComputedStyle(e).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent")
    points = page.locator("#score td.points")
    for seat in range(4):
        expect(points.nth(seat)).to_contain_text(str(deal.score.points[seat]))

    # Stepping through the tricks.
    label = page.locator("#tricks .step-label")
    expect(label).to_have_text("All 13 tricks")
    page.get_by_role("button", name="« Start").click()
    expect(label).to_have_text("Before the first trick (of 13)")
    expect(page.locator("#tricks tr.trick:visible")).to_have_count(0)
    page.get_by_role("button", name="Next ▶").click()
    expect(label).to_have_text("Trick 1 of 13")
    expect(page.locator("#tricks tr.trick:visible")).to_have_count(1)
    first = [str(card) for _, card in deal.completed_tricks()[0].plays]
    expect(page.locator("#hands .card.in-trick")).to_have_count(4)
    for code in first:
        expect(page.locator(f'#hands .card[data-card="{code}"]')).to_have_class(
            "card in-trick" if code[-1] in "SC" else "card red in-trick")
    page.keyboard.press("ArrowRight")
    expect(label).to_have_text("Trick 2 of 13")
    expect(page.locator("#hands .card.played")).to_have_count(4)
    expect(page.locator("#tricks tr.current")).to_have_attribute("data-trick", "2")
    page.get_by_role("button", name="◀ Previous").click()
    expect(label).to_have_text("Trick 1 of 13")
    page.get_by_role("button", name="All tricks »").click()
    expect(label).to_have_text("All 13 tricks")
    expect(page.locator("#tricks tr.trick:visible")).to_have_count(13)
    expect(page.locator("#hands .card.played, #hands .card.in-trick")).to_have_count(0)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#tricks tr.current")).to_have_attribute("data-trick", "13")
    page.get_by_role("button", name="All tricks »").click()

    page.evaluate("document.activeElement.blur()")  # no focus ring in the picture
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)


def test_a_broken_log_is_flagged_in_the_browser(referee, live_server) -> None:
    from playwright.sync_api import expect

    match: Match = play_match(person("ben"), seed=6)
    row = break_a_card(match)
    page = referee

    page.goto(f"{live_server.url}/admin/games/match/{match.pk}/change/")
    alarm = page.locator("#replay-problems")
    expect(alarm).to_be_visible()
    expect(alarm).to_contain_text("the log does not replay — card_not_in_hand")
    page.locator("#score-sheet").get_by_role("link", name="Deal 1").click()
    expect(page.locator("#replay-problems")).to_contain_text(f"at action {row.sequence}")
    expect(page.locator("#raw-log tr.refused")).to_contain_text("← refused by the engine")
