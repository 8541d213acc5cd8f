"""The match review admin through Django's test client: the pages, their checks, the actions,
read-only access and the number of queries."""

from __future__ import annotations

import json
import random
import re
import uuid

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from bots import tasks
from games import engine, selectors
from games.api import export
from games.models import Action, Deal, DealAnalysis, DealStatus, Match, MatchStatus, Seat
from tests.api.schema import assert_matches

from .helpers import person, play_match

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/games/match/"


def match_url(match: Match) -> str:
    return reverse("admin:games_match_change", args=(match.pk,))


def deal_url(match: Match, sequence: int = 1) -> str:
    return reverse("admin:games_match_deal", args=(match.pk, sequence))


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.fixture
def finished(admin_user) -> Match:
    return play_match(person("ayse"), seed=1)


# --- the list ----------------------------------------------------------------------------------


def test_changelist_shows_game_status_deals_seats_and_winner(admin_client, finished) -> None:
    html = page(admin_client, CHANGELIST)

    winner = finished.seats.get(index=finished.ranking.index(1)).display_name
    assert str(finished.id)[:8] in html
    assert "Auction (İhaleli)" in html and "Finished" in html
    assert ">1 / 1<" in html
    bots = ", ".join(f"{seat.display_name} ({seat.get_bot_level_display()})"
                     for seat in finished.seats.all() if seat.is_bot)
    assert "Ayşe" in html and bots in html and "Medium)" in html
    assert f'<td class="field-winner">{winner}' in html


def quick_match(creator, *, game: str = "auction", bots: tuple[str, ...] = ()) -> Match:
    """A finished one-deal match written straight to the tables: enough for the list."""
    match = Match.objects.create(
        game=game, rules={}, deal_count=1, status=MatchStatus.FINISHED, first_dealer=0,
        totals=[40, 10, 10, -40], ranking=[1, 2, 2, 4], created_by=creator,
        finished_at=timezone.now(),
    )
    levels = [*bots, *[""] * (4 - len(bots))]
    Seat.objects.bulk_create(
        Seat(match=match, index=i, bot_level=level,
             user=creator if i == 3 else None, display_name=f"Player {i}")
        for i, level in enumerate(levels)
    )
    Deal.objects.create(
        match=match, sequence=1, number=1, dealer=0, status=DealStatus.FINISHED, deck=[],
        salt="", commitment="", hands=[],
    )
    return match


@pytest.mark.parametrize("query", ["", "?q=Player+2", "?bots=yes&bot_level=easy&o=4"])
def test_changelist_query_count_does_not_grow_with_matches(admin_client, query) -> None:
    creator = person("creator")

    def queries() -> int:
        page(admin_client, CHANGELIST)  # warms the session and the content types
        with CaptureQueriesContext(connection) as captured:
            page(admin_client, CHANGELIST + query)
        return len(captured)

    quick_match(creator, bots=("easy",))
    few = queries()
    for _ in range(60):
        quick_match(creator, bots=("easy", "hard"))
    assert queries() == few
    # Session, user, one count, the page of matches, their seats (with their accounts).
    assert few <= 6, few


def test_filters_and_search(admin_client) -> None:
    someone = person("someone")
    people = quick_match(someone)
    easy = quick_match(someone, bots=("easy",))
    hard = quick_match(someone, game="spades", bots=("hard", "hard"))
    Seat.objects.filter(match=hard, index=0).update(display_name="Zeynep")

    def listed(query: str) -> set[uuid.UUID]:
        html = page(admin_client, CHANGELIST + query)
        return {m.pk for m in (people, easy, hard) if str(m.pk)[:8] in html}

    assert listed("") == {people.pk, easy.pk, hard.pk}
    assert listed("?bots=no") == {people.pk}
    assert listed("?bots=yes") == {easy.pk, hard.pk}
    assert listed("?bot_level=hard") == {hard.pk}
    assert listed("?game=spades") == {hard.pk}
    past_week = re.search(r'href="(\?created_at__gte=[^"]+)"[^>]*>\s*Past 7 days', page(
        admin_client, CHANGELIST)).group(1).replace("&amp;", "&")
    assert listed(past_week + "&status=finished") == {people.pk, easy.pk, hard.pk}
    assert listed("?status=active") == set()
    assert listed("?q=zeynep") == {hard.pk}
    assert listed("?q=someone") == {people.pk, easy.pk, hard.pk}
    assert listed(f"?q={str(easy.pk)[:13]}") == {easy.pk}
    assert listed(f"?q={easy.pk}") == {easy.pk}


# --- the match page and the deal page ----------------------------------------------------------


def test_match_page_shows_rules_seats_score_sheet_and_deal_links(admin_client, finished) -> None:
    html = page(admin_client, match_url(finished))
    deal = finished.deals.get()

    assert "Bids start at 4 tricks" in html
    assert "must play a higher trump" in html
    assert "Standard scoring" in html
    assert "person, account ayse" in html and "computer, Hard" in html
    assert f'href="{deal_url(finished)}"' in html
    assert "✓ replayed" in html and "replay-problems" not in html
    for seat in range(4):
        cell = f"{deal.tricks[seat]} / {deal.scores[seat]}"
        assert cell in html
    assert re.search(r'class="outcome (made|down)"', html)
    assert 'href="' + reverse("admin:games_match_export", args=(finished.pk,)) in html


def test_match_page_shows_clock_timeouts_autopilot_and_who_left(admin_client, finished) -> None:
    versions = list(
        Action.objects.filter(match=finished, seat=0).order_by("version")
        .values_list("version", flat=True)
    )
    Match.objects.filter(pk=finished.pk).update(clock={"bid": 15, "card": 30})
    Action.objects.filter(match=finished, version=versions[0]).update(origin="timeout")
    Action.objects.filter(match=finished, version__in=versions[1:3]).update(origin="autopilot")
    Action.objects.filter(match=finished, version__in=versions[5:]).update(origin="stand_in")
    Seat.objects.filter(match=finished, index=0).update(left_at=timezone.now())
    html = page(admin_client, match_url(finished))
    assert "Turn clock: 15 s a call, 30 s a card." in html
    assert f"1 (at version {versions[0]})" in html
    assert f"versions {versions[1]} to {versions[2]}" in html
    assert f"{len(versions) - 5} moves by a stand-in" in html


def test_deal_page_shows_the_whole_deal_from_the_replay(admin_client, finished) -> None:
    html = page(admin_client, deal_url(finished))
    deal = selectors.replay_deal(finished, finished.deals.get())

    hands_html = html.split('id="hands"')[1].split("</section>")[0]
    assert len(re.findall(r'data-card="\w\w" data-trick="\d+"', hands_html)) == 52
    assert '<span class="suit red">♥</span>' in hands_html
    assert '<span class="suit">♠</span>' in hands_html
    assert html.count('<li class="call') == len(deal.auction)
    assert html.count('<tr class="trick"') == 13
    assert html.count('class="play leader') == 13
    for trick in deal.completed_tricks():
        _, card = next(p for p in trick.plays if p[0] == trick.winner)
        assert re.search(rf'class="play[^"]*winner[^"]*">\s*<span class="who">[^<]*</span>\s*'
                         rf'<span class="card[^"]*" data-card="{card}"', html)
    assert f"All {len(deal.log)} actions of this deal's log were replayed" in html
    score = html.split('id="score"')[1]
    for points in deal.score.points:
        assert f'<td class="num points">{points}' in score


@pytest.mark.parametrize(
    ("game", "rules"),
    [
        ("partnership", {"partnership_dummy": True, "scoring": "bonus"}),
        ("spades", {"spades_announcements": True}),
        ("spades", {"scoring": "contract", "direction": "clockwise"}),
        ("auction", {"all_pass": "redeal", "scoring": "simple", "weak_hand_redeal": True}),
    ],
)
def test_every_game_reviews(admin_client, game, rules) -> None:
    match = play_match(person("p"), game=game, rules=rules, seed=7)

    html = page(admin_client, match_url(match))
    assert "replay-problems" not in html
    for deal in match.deals.all():
        assert "replay-problems" not in page(admin_client, deal_url(match, deal.sequence))


def test_a_thrown_in_deal_is_reviewed(admin_client) -> None:
    calls = iter(range(4))

    def all_pass_first(legal: list[engine.Action], rng: random.Random) -> engine.Action:
        return engine.Pass() if next(calls, None) is not None else rng.choice(legal)

    match = play_match(person("p"), rules={"all_pass": "redeal"}, choose=all_pass_first)

    assert [d.status for d in match.deals.all()] == [DealStatus.REDEALT, DealStatus.FINISHED]
    sheet = page(admin_client, match_url(match))
    assert "thrown in, dealt again" in sheet and "(shuffle 2)" in sheet
    assert "replay-problems" not in sheet
    html = page(admin_client, deal_url(match, 1))
    assert "Thrown in: all four passed" in html and 'id="tricks"' not in html
    assert html.count('<li class="call pass"') == 4
    assert 'rel="next"' in html


def break_a_card(match: Match) -> Action:
    """Stores a play of a card the player did not hold: the log no longer replays."""
    row = match.actions.filter(kind="play").order_by("version")[5]
    held = set(match.deals.get().hands[row.seat])
    row.payload = {"card": next(c for c in ("AS", "KS", "QS", "JS", "AH") if c not in held)}
    row.save()
    return row


def test_a_log_that_does_not_replay_is_flagged_not_crashed(admin_client, finished) -> None:
    row = break_a_card(finished)

    match_html = page(admin_client, match_url(finished))
    assert 'id="replay-problems"' in match_html
    assert "the log does not replay — card_not_in_hand" in match_html
    assert "⚠ log does not replay" in match_html

    deal_html = page(admin_client, deal_url(finished))
    assert 'id="replay-problems"' in deal_html
    assert f"at action {row.sequence}" in deal_html
    assert "card_not_in_hand" in deal_html
    assert re.search(r'<tr class="refused"><td>' + str(row.sequence) + "</td>", deal_html)
    assert 'id="hands"' not in deal_html  # nothing unvalidated is shown as if it were


def test_unreadable_hands_are_flagged(admin_client, finished) -> None:
    Deal.objects.filter(match=finished).update(hands=[["XX"]])

    assert "the log does not replay — CardParseError" in page(admin_client, match_url(finished))
    html = page(admin_client, deal_url(finished))
    assert 'id="replay-problems"' in html and "CardParseError" in html


def test_a_stored_result_that_differs_from_the_replay_is_flagged(admin_client, finished) -> None:
    deal = finished.deals.get()
    Deal.objects.filter(pk=deal.pk).update(scores=[999, 0, 0, 0])

    match_html = page(admin_client, match_url(finished))
    assert "stored scores [999, 0, 0, 0], replay gives" in match_html
    assert "stored totals" in match_html
    assert "⚠ record differs" in match_html
    assert "stored scores [999, 0, 0, 0]" in page(admin_client, deal_url(finished))


def test_cards_of_a_deal_in_play_stay_hidden(admin_client) -> None:
    match = play_match(person("p"), seed=3, finish=False)

    html = page(admin_client, match_url(match))
    assert "in play, waiting for" in html
    assert "replay-problems" not in html and "✓ replayed" in html
    assert f'href="{deal_url(match)}"' not in html
    assert admin_client.get(deal_url(match)).status_code == 404


# --- read-only, staff-only -----------------------------------------------------------------------


def test_the_admin_cannot_add_change_or_delete(admin_client, finished) -> None:
    model_admin = admin.site.get_model_admin(Match)
    request = type("Request", (), {"user": finished.created_by})()
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, finished)
    assert not model_admin.has_delete_permission(request, finished)
    for model in (Action, Seat, Deal):
        assert not admin.site.is_registered(model)

    assert admin_client.get(CHANGELIST + "add/").status_code == 403
    assert admin_client.post(match_url(finished), {"status": "active"}).status_code == 403
    assert admin_client.get(match_url(finished) + "delete/").status_code == 403
    html = page(admin_client, match_url(finished))
    assert 'name="_save"' not in html
    assert "delete_selected" not in page(admin_client, CHANGELIST)
    finished.refresh_from_db()
    assert finished.status == MatchStatus.FINISHED


def test_only_staff_may_look(client, finished) -> None:
    for url in (CHANGELIST, match_url(finished), deal_url(finished)):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    client.force_login(person("player"))
    response = client.get(deal_url(finished))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


# --- the actions -------------------------------------------------------------------------------


def run_action(client: Client, action: str, *matches: Match):
    return client.post(
        CHANGELIST, {"action": action, "_selected_action": [str(m.pk) for m in matches]},
        follow=action != "export_json",
    )


def test_export_is_the_documented_api_format(admin_client, finished) -> None:
    response = run_action(admin_client, "export_json", finished)

    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="match-{finished.pk}.json"'
    body = json.loads(response.content)
    deals = body.pop("deals")
    assert_matches(body, "Match")
    assert len(deals) == 1
    for record in deals:
        assert_matches(record, "DealRecord")
    assert json.loads(json.dumps(export.match_export(finished))) == {**body, "deals": deals}

    same = admin_client.get(reverse("admin:games_match_export", args=(finished.pk,)))
    assert json.loads(same.content) == {**body, "deals": deals}


def test_export_of_several_matches_is_a_list(admin_client, finished) -> None:
    other = play_match(person("q"), seed=2)

    body = json.loads(run_action(admin_client, "export_json", finished, other).content)

    assert [m["id"] for m in body] == [str(finished.pk), str(other.pk)]


def test_export_of_a_broken_match_says_why(admin_client, finished) -> None:
    break_a_card(finished)

    response = run_action(admin_client, "export_json", finished)

    assert response.status_code == 302
    html = page(admin_client, response["Location"])
    assert "was not exported" in html and "card_not_in_hand" in html


def test_abandon_goes_through_the_service(admin_client, finished) -> None:
    stuck = play_match(person("p"), seed=4, finish=False)
    version = stuck.version

    html = run_action(admin_client, "abandon", stuck, finished).content.decode()

    stuck.refresh_from_db()
    finished.refresh_from_db()
    assert stuck.status == MatchStatus.ABANDONED and stuck.finished_at is not None
    assert stuck.version == version + 1
    assert finished.status == MatchStatus.FINISHED
    assert "Abandoned 1 match(es)." in html and "Left 1 match(es) alone" in html
    # Nobody can play the abandoned match's unfinished deal any more, so it can be reviewed.
    deal_html = page(admin_client, deal_url(stuck))
    assert "waiting for" in deal_html and 'id="score"' not in deal_html


def test_abandon_needs_the_change_permission(client, finished) -> None:
    viewer = person("viewer")
    viewer.is_staff = True
    viewer.save()
    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    client.force_login(viewer)

    html = page(client, CHANGELIST)

    assert 'value="export_json"' in html and 'value="abandon"' not in html
    assert page(client, deal_url(finished))


def test_match_page_says_what_its_visibility_means(admin_client, finished) -> None:
    """Most private matches (computer players, a tour's) have no invitation code."""
    assert finished.invitation_code is None
    html = page(admin_client, match_url(finished))
    assert "Private: not in the lobby, with no invitation code to join it by." in html
    assert "invitation code." not in html
    Match.objects.filter(pk=finished.pk).update(invitation_code="abc")
    assert "people join with its invitation code" in page(admin_client, match_url(finished))
    Match.objects.filter(pk=finished.pk).update(visibility="public", invitation_code=None)
    assert "Public: listed in the lobby" in page(admin_client, match_url(finished))


def test_times_are_shown_to_the_minute(admin_client, finished) -> None:
    on_the_hour = timezone.now().replace(hour=7, minute=0, second=0, microsecond=0)
    Match.objects.filter(pk=finished.pk).update(created_at=on_the_hour)
    html = page(admin_client, match_url(finished))
    assert on_the_hour.strftime("%Y, 07:00") in html
    assert page(admin_client, CHANGELIST).count(on_the_hour.strftime("%Y, 07:00")) == 1


def test_the_replay_shows_each_cards_mark_and_cost_once_analysed(
    admin_client, finished, settings,
) -> None:
    deal = finished.deals.get()
    assert 'id="analysis"' not in page(admin_client, deal_url(finished))
    DealAnalysis.objects.create(deal=deal)
    settings.ANALYSIS_SECONDS_PER_DEAL = 5.0
    assert tasks.analyse_deal(deal.pk)
    result = DealAnalysis.objects.get(deal=deal).result
    html = page(admin_client, deal_url(finished))
    assert 'id="analysis"' in html
    judged = [m for m in result["moves"] if m["action"]["kind"] == "play"
              and (m["seen"] or m["known"]) and (m["mark"] or any(
                  (m[way] or {}).get("points_cost", 0) >= 0.05 for way in ("seen", "known")))]
    assert judged
    assert "\u22120 " not in html and "\u22120.0" not in html  # costless: nothing
    assert html.count('<span class="judged') == len(judged)
    for move in judged:
        if move["mark"]:
            assert re.search(rf'data-card="{move["action"]["card"]}">[^<]*</span>\s*'
                             rf'<span class="judged {move["mark"]}"', html)
