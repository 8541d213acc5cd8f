"""Hints for learners (`getHint`): only at a table with the `hints` rule, never a rated one,
only to the seat to act; worked out from the seat's own view, once per view, and bounded per
account."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import translation
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from bots import interface
from games import engine, hints
from runtime import windows
from tests.api.conftest import Player, create_match, submit
from tests.bots.test_advice import indistinguishable_views


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def hints_table(player, **body: Any) -> tuple[str, list[Player]]:
    """A public auction match with hints and four people, started."""
    people = [player(f"P{i}") for i in range(4)]
    match = create_match(people[0], game="auction", deals=1, visibility="public", hints=True,
                         seats=[{"kind": "me"}] + [{"kind": "open"}] * 3, **body)
    for index, someone in enumerate(people[1:], start=1):
        assert someone.post(f"/matches/{match['id']}/join", {"seat": index}).status_code == 200
    return match["id"], people


def to_act(people: list[Player], match_id: str) -> int:
    return people[0].view(match_id)["deal"]["to_act"]


def hint(someone: Player, match_id: str, **headers: Any):
    return someone.get(f"/matches/{match_id}/hint", **headers)


def test_a_hint_on_your_turn_values_every_legal_choice(player) -> None:
    match_id, people = hints_table(player)
    seat = to_act(people, match_id)
    view = people[seat].view(match_id)
    assert view["hints"] is True
    assert people[0].get(f"/matches/{match_id}").json()["hints"] is True
    response = hint(people[seat], match_id)
    assert response.status_code == 200, response.content
    body = response.json()
    legal = [action for action in view["deal"]["legal_actions"] if action["kind"] != "redeal"]
    assert sorted(map(str, (c["action"] for c in body["choices"]))) == sorted(map(str, legal))
    assert body["action"] == body["choices"][0]["action"]
    points = [choice["points"] for choice in body["choices"]]
    assert points == sorted(points, reverse=True)
    assert all(choice["tricks"] is not None for choice in body["choices"])  # calls
    assert body["version"] == view["version"] and body["team"] is False
    assert body["reason_code"] in hints.REASONS and body["reason"]
    # The suggestion is a legal action, as submitted.
    assert submit(people[seat], match_id, body["action"]).status_code == 200


def test_the_reason_reads_in_the_callers_language(player) -> None:
    match_id, people = hints_table(player)
    seat = to_act(people, match_id)
    english = hint(people[seat], match_id, HTTP_ACCEPT_LANGUAGE="en").json()
    french = hint(people[seat], match_id, HTTP_ACCEPT_LANGUAGE="fr").json()
    assert english["action"] == french["action"] and english["reason"] != french["reason"]


def test_not_your_turn_is_409(player) -> None:
    match_id, people = hints_table(player)
    waiting = (to_act(people, match_id) + 1) % 4
    response = hint(people[waiting], match_id)
    assert response.status_code == 409 and response.json()["code"] == "not_your_turn"


def test_a_table_without_hints_gives_none(player) -> None:
    me = player("Solo")
    match = create_match(me)
    assert match["hints"] is False
    response = hint(me, match["id"])
    assert response.status_code == 403 and response.json()["code"] == "hints_off"


def test_a_spectator_or_stranger_gets_no_hint(player) -> None:
    match_id, _people = hints_table(player)
    response = hint(player("Watcher"), match_id)
    assert response.status_code == 403 and response.json()["code"] == "not_your_seat"


def test_a_match_not_in_play_gives_no_hint(player) -> None:
    me = player("Early")
    match = create_match(me, hints=True, seats=[{"kind": "me"}] + [{"kind": "open"}] * 3)
    response = hint(me, match["id"])
    assert response.status_code == 409 and response.json()["code"] == "match_not_active"


def test_a_rated_table_offers_no_hints(player) -> None:
    me = player("Rated")
    seats = [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot_level": "easy"},
             {"kind": "bot", "bot_level": "easy"}]
    created = me.post("/matches", {"rated": True, "hints": True, "seats": seats})
    assert created.status_code == 400 and created.json()["code"] == "hints_not_rated"
    quick = me.post("/quick-match", {"game": "auction", "rated": True, "hints": True})
    assert quick.status_code == 400 and quick.json()["code"] == "hints_not_rated"


def test_quick_match_keeps_tables_with_hints_apart(player) -> None:
    first, second, third = player("A"), player("B"), player("C")
    with_hints = first.post("/quick-match", {"game": "auction", "hints": True}).json()
    without = second.post("/quick-match", {"game": "auction"}).json()
    assert with_hints["match"]["hints"] is True and without["match"]["hints"] is False
    assert with_hints["match"]["id"] != without["match"]["id"]
    joined = third.post("/quick-match", {"game": "auction", "hints": True}).json()
    assert joined["match"]["id"] == with_hints["match"]["id"]


def test_a_view_asked_again_is_not_worked_out_again(player, monkeypatch) -> None:
    calls = []
    values = interface.choice_values

    def counted(observation):
        calls.append(observation)
        return values(observation)

    monkeypatch.setattr(interface, "choice_values", counted)
    match_id, people = hints_table(player)
    seat = to_act(people, match_id)
    first = hint(people[seat], match_id).json()
    assert hint(people[seat], match_id).json() == first
    assert len(calls) == 1


def test_hints_worked_out_are_bounded_by_the_rate(player, settings) -> None:
    settings.HINT_RATE = "2/minute"
    match_id, people = hints_table(player)
    seat = to_act(people, match_id)
    assert hint(people[seat], match_id).status_code == 200
    assert hint(people[seat], match_id).status_code == 200  # the same view: no new search
    view = people[seat].view(match_id)
    bid = next(a for a in view["deal"]["legal_actions"] if a["kind"] == "bid")
    assert submit(people[seat], match_id, bid).status_code == 200
    for other in (1, 2, 3):  # the others pass: the bidder names trumps
        someone = people[(seat + other) % 4]
        assert hint(someone, match_id).status_code == 200
        assert submit(someone, match_id, {"kind": "pass"}).status_code == 200
    assert hint(people[seat], match_id).status_code == 200
    # A third view of the same account in the window is refused, with when to come back.
    deal = people[seat].view(match_id)["deal"]
    assert deal["phase"] == "trump" and deal["to_act"] == seat
    trump = deal["legal_actions"][0]
    assert submit(people[seat], match_id, trump).status_code == 200
    while (deal := people[0].view(match_id)["deal"])["to_act"] != seat:
        someone = people[deal["to_act"]]
        card = someone.view(match_id)["deal"]["legal_actions"][0]
        assert submit(someone, match_id, card).status_code == 200
    refused = hint(people[seat], match_id)
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_hints"
    assert int(refused["Retry-After"]) >= 1


def test_one_hint_at_a_time_per_account(player) -> None:
    match_id, people = hints_table(player)
    seat = to_act(people, match_id)
    busy = f"hints:busy:{windows.account_key(people[seat].user_id)}"
    cache.add(busy, "another", 60)
    refused = hint(people[seat], match_id)
    assert refused.status_code == 429 and refused.json()["code"] == "hint_in_progress"
    assert int(refused["Retry-After"]) >= 1
    cache.delete(busy)
    assert hint(people[seat], match_id).status_code == 200


@pytest.mark.parametrize("language", ["es", "fr", "pt", "ru", "tr"])
def test_every_reason_reads_in_every_language(language: str) -> None:
    for sentence in hints.REASONS.values():
        with translation.override(language):
            assert translation.gettext(sentence) != sentence, (language, sentence)


@examples(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["auction", "partnership", "spades"]),
       tricks_in=st.integers(0, 8))
def test_layouts_the_seat_cannot_tell_apart_get_the_same_hint(seed: int, game: str,
                                                             tricks_in: int) -> None:
    """The hint of a layout and of its twin (unplayed cards swapped between two hands the seat
    cannot see, as it saw them): the same suggestion, figures and sentence."""
    views = indistinguishable_views(seed, game, tricks_in)
    if views is None:
        return
    hint_of = [hints.worked_out(interface.choice_values(seen)) for seen in views]
    assert hint_of[0] == hint_of[1]
    assert hint_of[0].sentence() == hint_of[1].sentence()


@dataclasses.dataclass(frozen=True)
class Value:
    action: engine.Action
    points: float
    tricks: float | None = None


QC, THREE_C = engine.Card.parse("QC"), engine.Card.parse("3C")


@pytest.mark.parametrize(("values", "code", "sentence"), [
    ([Value(engine.Pass(), -1.0, 2.0)], "only_choice", "It is your only legal choice."),
    ([Value(engine.Bid(5), 5.2, 6.4), Value(engine.Pass(), -1.0, 2.5)], "bid",
     "Your hand should take about 6.4 tricks with its best trump: a bid of 5 is expected to "
     "score best."),
    ([Value(engine.Pass(), -0.5, 2.5), Value(engine.Bid(5), -3.0, 3.1)], "pass",
     "With about 3.1 tricks expected from your hand, passing is expected to score more than "
     "any bid."),
    ([Value(engine.ChooseTrump(engine.Suit.HEARTS), 5.0, 6.0),
      Value(engine.ChooseTrump(engine.Suit.SPADES), 3.0, 4.0)], "trump",
     "With ♥ as trumps your hand should take about 6.0 tricks, more than with any other suit."),
    ([Value(engine.Announce(3), 3.0, 3.2), Value(engine.Announce(2), 2.0, 3.2)], "announce",
     "You should take about 3.2 tricks: announcing 3 is expected to score best."),
    ([Value(engine.Play(QC), 4.6), Value(engine.Play(THREE_C), 3.2)], "card",
     "Q♣ is expected to score 1.4 points more than the next best card, 3♣."),
    ([Value(engine.Play(QC), 4.6), Value(engine.Play(THREE_C), 4.58)], "cards_equal",
     "Every card you may play is expected to score about the same here; Q♣ is as good as any."),
])
def test_each_kind_of_choice_has_its_reason(values: list[Value], code: str,
                                            sentence: str) -> None:
    worked = hints.worked_out(values)
    assert worked.reason == code and worked.choices[0]["action"] == values[0].action.to_dict()
    with translation.override("en"):
        assert worked.sentence() == sentence
    for language in ("es", "fr", "pt", "ru", "tr"):
        with translation.override(language):
            assert worked.sentence() != sentence
