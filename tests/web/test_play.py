"""A person at /play/ in a real browser: whole matches against three computer players in every
game, a refused card's reason, two people at one table (and again, by a rematch) and a watcher,
a reload mid-trick, and axe-core's accessibility check."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

import pytest

from .conftest import PHONE, check_accessibility, save_picture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CARD_LABEL = re.compile(
    r"^(ace|king|queen|jack|ten|nine|eight|seven|six|five|four|three|two) of "
    r"(spades|hearts|diamonds|clubs), (playable|not playable)$"
)
# Any move the person may make: a call, a trump, an announcement, a legal card.
MOVE = ".actions button.action:not(.redeal), .hand button.card.playable"


def create_table(page: Any, game: str, *, open_seats: tuple[int, ...] = (), deals: int = 1,
                 visibility: str = "private") -> str:
    form = page.locator("#new-table")
    form.locator("select[name=visibility]").select_option(visibility)
    form.locator("select[name=game]").select_option(game)
    form.locator("select[name=bot_level]").select_option("easy")
    form.locator("input[name=deals]").fill(str(deals))
    for seat in open_seats:
        form.locator(f"select[name=seat{seat}]").select_option("open")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"#/match/"))
    page.locator(".board").wait_for()
    return page.url.rsplit("/", 1)[1]


def move_once(page: Any) -> bool:
    """Makes the first move offered, if any; False when there is none (not this seat's turn)."""
    moves = page.locator(MOVE)
    # While a move is answered the buttons on show are about to go.
    if page.locator("main[aria-busy]").count() or moves.count() == 0:
        return False
    try:
        moves.first.click(timeout=500)
    except Exception:  # the table was redrawn under the click (another seat moved): look again
        return False
    return True


def play_to_the_end(*pages: Any, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not all(page.locator("#result").count() for page in pages):
        assert time.monotonic() < deadline, "the match did not end"
        if not any([move_once(page) for page in pages]):
            pages[0].wait_for_timeout(50)


def play_until_mid_trick(page: Any) -> None:
    """Plays on until a trick is under way and it is this seat's turn to add to it."""
    deadline = time.monotonic() + 90
    while (page.locator("main[aria-busy]").count() or not page.locator("#current-trick li").count()
           or not page.locator(".hand button.card.playable").count()):
        assert time.monotonic() < deadline, "no trick under way on this seat's turn"
        if not move_once(page):
            page.wait_for_timeout(50)


def api_get(base: str, page: Any, path: str, language: str) -> Any:
    token = page.evaluate("localStorage.getItem('batak.token')")
    request = urllib.request.Request(f"{base}/api/v1{path}", headers={
        "Authorization": f"Token {token}", "Accept-Language": language})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


@pytest.mark.parametrize("game", ["auction", "partnership", "spades"])
def test_a_guest_plays_a_whole_match_against_three_computer_players(open_page, game) -> None:
    from playwright.sync_api import expect

    page = open_page("Ayşe")
    create_table(page, game)
    expect(page.locator(".seat")).to_have_count(4)
    expect(page.locator(".seat.pos-0")).to_contain_text("Ayşe (you)")
    labels = page.locator(".hand button.card").evaluate_all("cards => cards.map(c => c.ariaLabel)")
    assert len(labels) == 13 and all(CARD_LABEL.match(label) for label in labels), labels
    # Played from the stream alone: the seat's view is read to resynchronise (a deal's end,
    # the trumps named), never once a move.
    reads: list[str] = []
    page.on("request", lambda request: reads.append(request.url)
            if request.url.split("?")[0].endswith("/view") else None)
    play_to_the_end(page)
    expect(page.locator("#turn")).to_have_text("The match is over")
    assert len(reads) <= 4, reads
    expect(page.locator("#result li")).to_have_count(4)
    expect(page.locator(".sheet tbody tr")).to_have_count(1)
    expect(page.locator(".replays details")).to_have_count(1)
    expect(page.locator("#notice")).to_have_text("")
    # Again, at once: the computer players accept as it is offered.
    finished = page.url
    page.locator("[data-key=rematch-offer]").click()
    page.wait_for_url(lambda url: "#/match/" in url and url != finished)
    expect(page.locator(".seat.pos-0")).to_contain_text("Ayşe (you)")
    expect(page.locator("#turn")).not_to_have_text("The match is over")


def test_a_table_rule_chosen_in_the_form_is_played(open_page) -> None:
    from playwright.sync_api import expect

    page = open_page("Ayşe")
    form = page.locator("#new-table")
    form.locator("select[name=game]").select_option("spades")
    form.locator("details.rules summary").click()
    form.get_by_label("Announcements").check()
    form.locator("select[name=bot_level]").select_option("easy")
    form.locator("input[name=deals]").fill("1")
    form.locator("button[type=submit]").click()
    # Before the first card each seat announces: the buttons offer 0 to 13.
    expect(page.locator(".actions button.announce")).to_have_count(14)
    page.get_by_role("button", name="Announce 3").click()
    expect(page.locator(".seat.pos-0 .badge")).to_have_text("Announce 3")
    play_to_the_end(page)
    expect(page.locator("#result li")).to_have_count(4)


def test_a_refused_card_says_why_in_the_persons_language(open_page, asgi_server) -> None:
    from playwright.sync_api import expect

    page = open_page("Jeanne", locale="fr-FR")
    match_id = create_table(page, "spades")
    deadline = time.monotonic() + 60
    # Play on until a card is refused on this seat's turn: one it holds that the rules forbid.
    while True:
        assert time.monotonic() < deadline, "no card was ever refused"
        page.locator(MOVE).first.wait_for()
        view = api_get(asgi_server, page, f"/matches/{match_id}/view", "fr")
        refusals = view["deal"]["refusals"] if view["deal"] else []
        if view["deal"] and view["deal"]["to_act"] == view["seat"] and refusals:
            break
        move_once(page)
        page.wait_for_timeout(100)
    refused = refusals[0]
    card = page.locator(f'.hand button.card[data-card="{refused["card"]}"]')
    expect(card).to_have_attribute("aria-label", re.compile(r", injouable$"))
    card.click()
    expect(page.locator("#notice")).to_have_text(refused["message"])
    assert refused["message"] != api_get(
        asgi_server, page, f"/matches/{match_id}/view", "en")["deal"]["refusals"][0]["message"]
    # The refusal changes nothing: a legal card still plays.
    page.locator(".hand button.card.playable").first.click()
    expect(page.locator("#notice")).to_have_text("")


def test_two_people_play_one_table_by_invitation_and_again(open_page, settings) -> None:
    from playwright.sync_api import expect

    settings.STREAM_AFTER_END_SECONDS = 60  # the rematch's news come by the stream after the end

    host = open_page("Ayşe")
    create_table(host, "auction", open_seats=(2,))
    expect(host.locator("#turn")).to_have_text("Waiting for players")
    code = host.locator("#invitation").inner_text().rsplit(" ", 1)[1]
    guest = open_page("Ben")
    guest.locator("input[name=code]").fill(code)
    guest.get_by_role("button", name="Join", exact=True).first.click()
    guest.locator(".board").wait_for()
    expect(guest.locator(".seat.pos-0")).to_contain_text("Ben (you)")
    expect(guest.locator(".seat.pos-2")).to_contain_text("Ayşe")
    expect(host.locator(".seat.pos-2")).to_contain_text("Ben")
    expect(host.locator(".seat.pos-2 .presence")).to_have_text("online")

    play_to_the_end(host, guest)
    totals = host.locator(".sheet tfoot td").all_inner_texts()
    expect(guest.locator(".sheet tfoot td")).to_have_text(totals)

    # Again: the host offers, the guest hears of it by the stream and accepts, and both are at
    # the new table, each a seat on.
    finished = host.url
    host.locator("[data-key=rematch-offer]").click()
    expect(host.locator("#rematch")).to_have_text("Waiting for the others to answer…")
    expect(guest.locator("#rematch")).to_contain_text(
        "Ayşe offers to play again, each seat moved on by one.")
    guest.locator("[data-key=rematch-accept]").click()
    for page in (host, guest):
        page.wait_for_url(lambda url: "#/match/" in url and url != finished)
        page.locator(".board").wait_for()
    assert host.url == guest.url
    expect(guest.locator(".seat.pos-0")).to_contain_text("Ben (you)")
    expect(guest.locator(".seat.pos-2")).to_contain_text("Ayşe")
    # Back at the finished table, the rematch is a link.
    host.go_back()
    expect(host.locator("#rematch a")).to_have_text("Go to the new match")
    host.locator("#rematch a").click()
    host.wait_for_url(guest.url)


def test_a_watcher_follows_a_public_table_on_a_phone(open_page) -> None:
    from playwright.sync_api import expect

    player = open_page("Ayşe")
    match_id = create_table(player, "partnership", visibility="public")
    watcher = open_page("Cem", viewport=PHONE)
    watcher.locator("input[name=match_id]").fill(match_id)
    watcher.get_by_role("button", name="Watch", exact=True).last.click()
    expect(watcher.locator(".badge", has_text="Watching")).to_be_visible()
    expect(watcher.locator(".seat")).to_have_count(4)
    expect(watcher.locator(".hand")).to_have_count(0)  # a watcher sees no one's cards
    play_to_the_end(player)
    expect(watcher.locator("#result li")).to_have_count(4)
    totals = player.locator(".sheet tfoot td").all_inner_texts()
    expect(watcher.locator(".sheet tfoot td")).to_have_text(totals)


def test_a_reload_mid_trick_comes_back_to_the_same_table(open_page) -> None:
    from playwright.sync_api import expect

    page = open_page("Ayşe")
    # Two deals: a seat that wins every trick it leads never sees a trick under way.
    create_table(page, "spades", deals=2)
    play_until_mid_trick(page)
    cards = "#current-trick [data-card], .hand [data-card]"
    before = page.locator(cards).evaluate_all("cards => cards.map(c => c.dataset.card)")
    page.reload()
    page.locator(MOVE).first.wait_for()
    assert page.locator(cards).evaluate_all("cards => cards.map(c => c.dataset.card)") == before
    play_to_the_end(page)
    expect(page.locator("#result li")).to_have_count(4)


def test_an_account_is_made_logged_out_of_and_logged_into(browser, asgi_server) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(f"{asgi_server}/play/")
        check_accessibility(page)
        form = page.locator("form[aria-labelledby=register-title]")
        form.locator("input[name=display_name]").fill("Ayşe")
        form.locator("input[name=username]").fill("ayse.k")
        form.locator("input[name=password]").fill("tea garden at noon")
        form.locator("button[type=submit]").click()
        expect(page.locator("header .who")).to_have_text("Ayşe")
        page.get_by_role("button", name="Log out").click()
        # The name is taken now: the server's refusal is shown, and nothing changes.
        for name, value in (("display_name", "Other"), ("username", "ayse.k"),
                            ("password", "another long one")):
            form.locator(f"input[name={name}]").fill(value)
        form.locator("button[type=submit]").click()
        expect(page.get_by_role("alert")).not_to_have_text("")
        login = page.locator("form[aria-labelledby=login-title]")
        login.locator("input[name=username]").fill("ayse.k")
        login.locator("input[name=password]").fill("tea garden at noon")
        login.locator("button[type=submit]").click()
        expect(page.locator("header .who")).to_have_text("Ayşe")
    finally:
        context.close()


def test_the_lobby_and_a_table_pass_axe_on_desktop_and_phone(open_page) -> None:
    # The table's pictures are test_table.py's, taken over a whole match.
    for size, viewport in (("desktop", None), ("phone", PHONE)):
        page = open_page("Ayşe", **({"viewport": viewport} if viewport else {}))
        check_accessibility(page, strict=True)
        save_picture(page, f"play-lobby-{size}.png", full_page=True)
        create_table(page, "spades", deals=2)
        play_until_mid_trick(page)
        check_accessibility(page, strict=True)


def test_a_dropped_connection_is_resumed_without_losing_a_card(open_page) -> None:
    from playwright.sync_api import expect

    page = open_page("Ayşe")
    create_table(page, "auction")
    page.locator(MOVE).first.wait_for()
    page.context.set_offline(True)
    # Any move now fails to reach the server; the stream's next attempt fails too.
    page.locator(MOVE).first.click()
    # The browser finds out when its request fails: on a busy machine (the unit run uses every
    # core), later than the default 5 s.
    expect(page.locator("#turn")).to_contain_text("Reconnecting…", timeout=20_000)
    page.context.set_offline(False)
    expect(page.locator("#turn")).not_to_contain_text("Reconnecting…")
    play_to_the_end(page)
    expect(page.locator("#result li")).to_have_count(4)


def test_a_person_who_leaves_is_played_by_a_computer_to_the_end(open_page) -> None:
    from playwright.sync_api import expect

    host = open_page("Ayşe")
    create_table(host, "spades", open_seats=(1,))
    guest = open_page("Ben")
    guest.locator("input[name=code]").fill(host.locator("#invitation").inner_text().split()[-1])
    guest.get_by_role("button", name="Join", exact=True).first.click()
    guest.locator(".board").wait_for()
    guest.once("dialog", lambda dialog: dialog.accept())
    guest.get_by_role("button", name="Leave the table").click()
    expect(guest.locator("#new-table")).to_be_visible()
    expect(host.locator(".seat[data-seat='1'] .stand-in")).to_have_text(
        "left; a computer player stands in")
    play_to_the_end(host)
    expect(host.locator("#result li")).to_have_count(4)
