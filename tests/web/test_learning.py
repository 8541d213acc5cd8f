"""What /play/ offers a person learning the game, in a real browser: each ended deal's analysis
in its replay (asked again after `Retry-After` while it is queued, or at once on the stream's
`analysis_ready`), each card marked, and a hint on one's turn at a table with hints."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from bots import interface, tasks
from games.api import feed
from games.models import Deal

from .conftest import check_accessibility, save_picture
from .test_play import MOVE, api_get, create_table, move_once, play_to_the_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@pytest.fixture
def analysed_by_the_test(settings, monkeypatch) -> list[int]:
    """Ended deals are analysed, but by the test (the lane's process would outlive the test's
    database): the deals sent for analysis, in order."""
    settings.ANALYSE_DEALS = True
    settings.ANALYSIS_SECONDS_PER_DEAL = 1.0
    sent: list[int] = []
    monkeypatch.setattr(interface, "send_analysis", sent.append)
    return sent


def near(shown: str, points: float) -> bool:
    """Points as the page shows them: to one decimal."""
    return abs(float(shown) - points) <= 0.05 + 1e-9


def play_until_deals_ended(page: Any, count: int) -> None:
    deadline = time.monotonic() + 90
    while page.locator(".replays details").count() < count:
        assert time.monotonic() < deadline, f"{count} deals did not end"
        if not move_once(page):
            page.wait_for_timeout(50)


def assert_replay_shows(page: Any, base: str, match_id: str, sequence: int) -> None:
    """The replay of deal ``sequence`` marks every card the analysis marks, and only those,
    and sums each player's points given up."""
    from playwright.sync_api import expect

    analysis = api_get(base, page, f"/matches/{match_id}/deals/{sequence}/analysis", "en")
    replay = page.locator(f'.replays details[data-sequence="{sequence}"]')
    expect(replay.locator(".analysis tbody tr")).to_have_count(4)
    for row, player in zip(replay.locator(".analysis tbody tr").all(), analysis["players"],
                           strict=True):
        assert near(row.locator("td").first.inner_text(), player["points_given_up"])
    marked = {move["action"]["card"]: move for move in analysis["moves"]
              if move["action"]["kind"] == "play" and move["mark"]}
    shown = replay.locator(".tricks .played.marked")
    expect(shown).to_have_count(len(marked))
    for played in shown.all():
        move = marked[played.locator(".card").get_attribute("data-card")]
        assert move["mark"] in played.get_attribute("class")
        symbol, points = played.locator(".mark").inner_text().split(" \N{MINUS SIGN}")
        assert symbol == MARKS[move["mark"]] and near(points, move["seen"]["points_cost"])
        expect(played.locator(".card")).to_have_attribute(
            "aria-label", re.compile(f", {move['mark']}: .* points given up; better: "))


def test_the_replay_shows_each_deals_analysis_once_it_is_ready(
    open_page, asgi_server, analysed_by_the_test, monkeypatch,
) -> None:
    from playwright.sync_api import expect

    # The first deal's analysis can only come by the stream: the 202 says to wait a minute.
    monkeypatch.setattr(feed, "ANALYSIS_RETRY_SECONDS", 60)
    page = open_page("Ayşe")
    match_id = create_table(page, "spades", deals=2)
    play_until_deals_ended(page, 1)
    first = page.locator('.replays details[data-sequence="1"]')
    first.locator("summary").click()
    expect(first.locator(".analysing")).to_have_text("Analysing the deal…")  # 202: queued
    # Analysed while the next deal is played: the stream's analysis_ready has it read at once.
    assert tasks.analyse_deal(analysed_by_the_test[0])
    expect(first.locator(".analysis")).to_be_visible(timeout=3_000)
    expect(first).to_have_attribute("open", "")  # the redraw kept the replay open
    assert_replay_shows(page, asgi_server, match_id, 1)

    # The last deal's analysis comes after the match's end, the stream closed: asked again
    # after Retry-After.
    monkeypatch.setattr(feed, "ANALYSIS_RETRY_SECONDS", 2)
    play_to_the_end(page)
    last = Deal.objects.get(pk=analysed_by_the_test[-1])
    second = page.locator(f'.replays details[data-sequence="{last.sequence}"]')
    second.locator("summary").click()
    expect(second.locator(".analysing")).to_be_visible()
    assert tasks.analyse_deal(last.pk)
    expect(second.locator(".analysis")).to_be_visible(timeout=10_000)
    assert_replay_shows(page, asgi_server, match_id, last.sequence)
    check_accessibility(page)
    save_picture(second, "play-analysis.png")


def test_a_hint_on_ones_turn_at_a_table_with_hints(open_page, asgi_server) -> None:
    from playwright.sync_api import expect

    page = open_page("Ayşe")
    form = page.locator("#new-table")
    form.locator("details.rules summary").click()
    form.get_by_label("Hints on your turn").check()
    match_id = create_table(page, "auction")
    assert api_get(asgi_server, page, f"/matches/{match_id}/view", "en")["hints"] is True
    page.locator(MOVE).first.wait_for()
    expect(page.locator(".hinted")).to_have_count(0)
    page.get_by_role("button", name="Hint", exact=True).click()
    # Once the page has it (an account's hints are worked out one at a time), the same view's
    # hint again, from the cache: what the page shows.
    page.locator("#hint-text").wait_for()
    hint = api_get(asgi_server, page, f"/matches/{match_id}/hint", "en")
    expect(page.locator("#hint-text")).to_contain_text(hint["reason"])
    expect(page.locator("#hint-text strong")).to_have_text(re.compile(r"^Suggested: .+\.$"))
    check_accessibility(page)
    action = hint["action"]
    key = "-".join([action["kind"], str(action.get("tricks", action.get("suit", "")))])
    hinted = page.locator(".hinted")
    expect(hinted).to_have_count(1)
    if action["kind"] == "play":
        expect(hinted).to_have_attribute("data-card", action["card"])
        expect(hinted).to_have_attribute("aria-label", re.compile(", playable, suggested$"))
    else:
        expect(hinted).to_have_attribute("data-key", key)
    hinted.click()
    # A move made: the hint was for the view before it.
    expect(page.locator("#hint-text")).to_have_count(0)
    expect(page.locator(".hinted")).to_have_count(0)


def test_no_hint_button_at_a_table_without_hints(open_page) -> None:
    from playwright.sync_api import expect

    page = open_page("Ayşe")
    create_table(page, "auction")
    page.locator(MOVE).first.wait_for()
    expect(page.get_by_role("button", name="Hint", exact=True)).to_have_count(0)
