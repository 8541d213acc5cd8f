"""The table at /play/ laid out as people sit round it, on a phone and a desktop: one's own
seat at the bottom, the next seat (who plays after, in the default anticlockwise direction) on
the right, the partner across at the top, the trick in the middle with each card in front of
its player, the hand in view without scrolling; a whole match with no console error and no
failed request; a quick match's table saying when computer players take its empty seats; and
axe-core on each, with no violation at all."""

from __future__ import annotations

import re
import time
import urllib.parse
import uuid
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from bots import interface
from games import seating
from games.models import Match

from .conftest import DESKTOP, PHONE, Troubles, check_accessibility, save_picture
from .test_play import api_get, create_table, move_once

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": PHONE, "desktop": DESKTOP}
FILL = re.compile(r"^Computer players take the empty seats in (\d+) s$")


@pytest.fixture
def analysed_like_the_service(settings, monkeypatch) -> list[int]:
    """Ended deals are sent for analysis, as the service does by default (the tests' default
    switches it off, and then every deal's analysis is a 404 `no_analysis`), but never
    analysed here: the client is told 202, still being analysed."""
    settings.ANALYSE_DEALS = True
    sent: list[int] = []
    monkeypatch.setattr(interface, "send_analysis", sent.append)
    return sent


def seats_of(base: str, page: Any, match_id: str) -> tuple[int, list[dict[str, Any]]]:
    """This person's seat and the seats as the API lists them."""
    view = api_get(base, page, f"/matches/{match_id}/view", "en")
    return view["seat"], view["seats"]


def centre_of(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


# Where things are on the screen, read in one go: the table is redrawn as the stream brings the
# other seats' moves, so reading one box after another could mix two drawings.
BOXES = """selector => [...document.querySelectorAll(selector)].map(element => {
    const box = element.getBoundingClientRect();
    return {seat: element.dataset.seat, x: box.x, y: box.y, width: box.width, height: box.height};
})"""


def assert_seated_round_the_table(page: Any, base: str, match_id: str) -> None:
    """Each seat where the layout puts it, around the middle of the table, with the name the
    API gives it (one's own marked "you")."""
    from playwright.sync_api import expect

    mine, seats = seats_of(base, page, match_id)
    for seat in seats:
        place = (seat["index"] - mine) % 4
        element = page.locator(f'.seat[data-seat="{seat["index"]}"]')
        expect(element).to_have_class(re.compile(rf"\bpos-{place}\b"))
        name = element.locator(".name")
        if seat["kind"] == "open":
            expect(name).to_have_text("Empty seat")
        else:
            expect(name).to_have_text(
                f"{seat['display_name']} (you)" if place == 0 else seat["display_name"])
    [middle] = page.evaluate(BOXES, ".board .centre")
    boxes = {int(box["seat"]): box for box in page.evaluate(BOXES, ".seat")}
    assert len(boxes) == 4
    for seat, box in boxes.items():
        place = (seat - mine) % 4
        x, y = centre_of(box)
        if place == 0:  # one's own, at the bottom
            assert box["y"] >= middle["y"] + middle["height"] - 1, (seat, box, middle)
        elif place == 1:  # the next seat: on the right
            assert box["x"] >= middle["x"] + middle["width"] - 1, (seat, box, middle)
            assert middle["y"] <= y <= middle["y"] + middle["height"], (seat, box, middle)
        elif place == 2:  # across, the partner's in the partnership game: at the top
            assert box["y"] + box["height"] <= middle["y"] + 1, (seat, box, middle)
        else:  # the seat before: on the left
            assert box["x"] + box["width"] <= middle["x"] + 1, (seat, box, middle)
            assert middle["y"] <= y <= middle["y"] + middle["height"], (seat, box, middle)
        if place in (0, 2):
            assert middle["x"] <= x <= middle["x"] + middle["width"], (seat, box, middle)


def assert_trick_in_front_of_its_players(page: Any, mine: int) -> int:
    """Each card of the trick on the table is on its player's side of the middle: below it
    one's own, right the next seat's, above the partner's, left the seat before's. Returns
    how many cards there were."""
    found = page.evaluate("""() => {
        const trick = document.querySelector('.centre .trick ol');
        if (trick === null) return null;
        const box = element => {
            const { x, y, width, height } = element.getBoundingClientRect();
            return { x, y, width, height };
        };
        return { middle: box(trick), cards: [...trick.querySelectorAll('li')].map(li =>
            ({ seat: Number(li.dataset.seat), box: box(li.querySelector('.card')) })) };
    }""")
    if found is None:
        return 0
    mx, my = centre_of(found["middle"])
    for played in found["cards"]:
        x, y = centre_of(played["box"])
        place = (played["seat"] - mine) % 4
        where = {0: y > my and abs(x - mx) < 2, 1: x > mx and abs(y - my) < 2,
                 2: y < my and abs(x - mx) < 2, 3: x < mx and abs(y - my) < 2}[place]
        assert where, (played, place, found["middle"])
    return len(found["cards"])


def assert_hand_in_view(page: Any, viewport: dict[str, int]) -> None:
    """The whole hand is on the screen as the page opens, without scrolling."""
    page.evaluate("window.scrollTo(0, 0)")
    [box] = page.evaluate(BOXES, "#hand")
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (box, viewport)
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (box, viewport)


def assert_favicon_is_its_own(page: Any, troubles: Troubles) -> None:
    """The page names its icon (an SVG in a data URL, which its policy allows): a browser
    asks no /favicon.ico, which the service does not serve."""
    href = page.locator("link[rel=icon]").get_attribute("href") or ""
    assert href.startswith("data:image/svg+xml,"), href
    assert "<svg" in urllib.parse.unquote(href)
    width = page.evaluate("""href => new Promise((resolve) => {
        const image = new Image();
        image.onload = () => resolve(image.naturalWidth);
        image.onerror = () => resolve(0);
        image.src = href;
    })""", href)
    assert width > 0
    assert not [url for url in troubles.requests if "favicon" in url]


@pytest.mark.parametrize(("size", "game"), [("phone", "auction"), ("desktop", "partnership")])
def test_a_whole_match_at_a_table_laid_out_as_people_sit(
    open_page, asgi_server, analysed_like_the_service, size, game,
) -> None:
    from playwright.sync_api import expect

    viewport = SIZES[size]
    page = open_page("Ayşe", viewport=viewport)
    troubles = Troubles(page)
    match_id = create_table(page, game)
    mine, _ = seats_of(asgi_server, page, match_id)
    assert_seated_round_the_table(page, asgi_server, match_id)
    # The auction: the calls on the screen with the hand, none of it out of view.
    page.locator(".actions button.action").first.wait_for()
    assert_hand_in_view(page, viewport)

    pictured = False
    cards_seen = 0
    deadline = time.monotonic() + 120
    while not page.locator("#result").count():
        assert time.monotonic() < deadline, "the match did not end"
        mid_trick = (not page.locator("main[aria-busy]").count()
                     and page.locator("#current-trick li").count()
                     and page.locator("#hand button.card.playable").count())
        if mid_trick:
            cards_seen = max(cards_seen, assert_trick_in_front_of_its_players(page, mine))
        if mid_trick and not pictured and page.locator("#current-trick li").count() >= 2:
            # On this seat's turn with a trick under way: the picture of docs/play.md.
            assert_seated_round_the_table(page, asgi_server, match_id)
            assert_hand_in_view(page, viewport)
            page.evaluate("document.activeElement.blur()")  # no focus ring in the picture
            check_accessibility(page, strict=True)
            save_picture(page, f"play-table-{size}.png")
            pictured = True
        if not move_once(page):
            page.wait_for_timeout(50)
    assert pictured and cards_seen >= 2

    expect(page.locator("#turn")).to_have_text("The match is over")
    expect(page.locator("#notice")).to_have_text("")
    expect(page.locator("[data-key=rematch-offer]")).to_be_visible()
    # The last trick stays on the table, each card by its player.
    assert assert_trick_in_front_of_its_players(page, mine) == 4
    assert_seated_round_the_table(page, asgi_server, match_id)
    check_accessibility(page, strict=True)
    # No rematch offer is known: none is asked for (it would be a 404).
    assert not [url for url in troubles.requests if url.endswith("/rematch")]
    assert troubles.seen == []
    assert_favicon_is_its_own(page, troubles)

    # Opened again, the finished table asks for no offer either, and says *Play again*.
    troubles.clear()
    page.reload()
    expect(page.locator("[data-key=rematch-offer]")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert not [url for url in troubles.requests if url.endswith("/rematch")]
    assert troubles.seen == []


def test_the_hand_stays_in_view_on_a_phone_at_the_busiest_turn(open_page) -> None:
    """Koz Maça with announcements at a table with hints: fourteen numbers to announce, the
    hint button and the whole hand, all on a phone's screen at once."""
    from playwright.sync_api import expect

    page = open_page("Ayşe", viewport=PHONE)
    form = page.locator("#new-table")
    form.locator("select[name=game]").select_option("spades")
    form.locator("details.rules summary").click()
    form.get_by_label("Announcements").check()
    form.get_by_label("Hints on your turn").check()
    form.locator("select[name=bot_level]").select_option("easy")
    form.locator("input[name=deals]").fill("1")
    form.locator("button[type=submit]").click()
    expect(page.locator(".actions button.announce")).to_have_count(14)
    expect(page.locator(".actions .call-label")).to_have_text("Your announcement")
    expect(page.get_by_role("button", name="Announce 13")).to_have_text("13")
    expect(page.locator("#hint-button")).to_be_visible()
    # Spades are trump before anyone names them.
    expect(page.locator(".table-info")).to_have_text("Trump: ♠ spades")
    assert_hand_in_view(page, PHONE)
    check_accessibility(page, strict=True)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_quick_match_says_when_computer_players_take_the_empty_seats(
    open_page, asgi_server, size,
) -> None:
    from playwright.sync_api import expect

    viewport = SIZES[size]
    page = open_page("Ayşe", viewport=viewport)
    troubles = Troubles(page)
    quick = page.locator("form[aria-labelledby=quick-title]")
    quick.locator("select[name=game]").select_option("spades")
    quick.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"#/match/"))
    match_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#turn")).to_have_text("Waiting for players")

    # The time the API gives, counted down on the screen.
    match = api_get(asgi_server, page, f"/matches/{match_id}", "en")
    left = (datetime.fromisoformat(match["fill_with_bots_at"]) - timezone.now()).total_seconds()
    fill = page.locator("#fill")
    expect(fill).to_have_text(FILL)
    first = int(FILL.match(fill.inner_text()).group(1))  # type: ignore[union-attr]
    assert 0 < first <= round(left) + 1, (first, left)
    expect(fill).not_to_have_text(fill.inner_text(), timeout=3_000)
    assert int(FILL.match(fill.inner_text()).group(1)) < first  # type: ignore[union-attr]

    # The empty seats say so, with no total; the score sheet's columns line up with their
    # headers, one a seat.
    open_seats = page.locator(".seat.open")
    expect(open_seats).to_have_count(3)
    for seat in open_seats.all():
        expect(seat).to_contain_text("Empty seat")
        expect(seat).to_contain_text("waiting for a player")
        expect(seat).not_to_contain_text("Total")
    expect(page.locator(".seat:not(.open) .total")).to_have_count(0)
    headers = page.locator(".sheet thead th").all()
    totals = page.locator(".sheet tfoot tr > *").all()
    assert len(headers) == len(totals) == 5
    for header, total in zip(headers, totals, strict=True):
        above, below = header.bounding_box(), total.bounding_box()
        assert above is not None and below is not None
        assert abs(above["x"] - below["x"]) < 1 and abs(above["width"] - below["width"]) < 1
    expect(page.locator(".sheet thead th")).to_have_text(
        ["Deal", "Ayşe (you)", "Empty seat", "Empty seat", "Empty seat"])
    assert_seated_round_the_table(page, asgi_server, match_id)
    page.evaluate("document.activeElement.blur()")
    check_accessibility(page, strict=True)
    save_picture(page, f"play-waiting-{size}.png")

    # The wait is over (the service's sweeper, run here by the test): the computer players sit
    # down, and the table starts with their names in their seats.
    Match.objects.filter(pk=match_id).update(fill_bots_at=timezone.now() - timedelta(seconds=1))
    assert seating.fill_with_bots(match_id=uuid.UUID(match_id))
    expect(page.locator("#fill")).to_have_count(0)
    expect(page.locator(".seat.open")).to_have_count(0)
    page.locator("#hand").wait_for()
    assert_seated_round_the_table(page, asgi_server, match_id)
    assert_hand_in_view(page, viewport)
    # No invitation code is asked for a public table (it has none), nor anything else refused.
    assert not [url for url in troubles.requests if url.endswith("/invitation")]
    assert troubles.seen == []
