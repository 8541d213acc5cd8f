"""The one access policy (games/access.py), held from three sides:

- the policy itself, written out as a table here, so that changing who may do what changes
  this test;
- every match endpoint asked by every role, at public and private matches in play and over:
  a caller is refused 403 `not_your_seat` exactly when the policy says so, and the live
  stream's admission answers the same;
- whole matches under random rules, read after every action by every role through every
  endpoint that role may read: nobody is answered a card still in another hand (a face-up
  dummy aside), staff included.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games import access, engine, seating, selectors, services
from games.access import Permission, Role
from games.api import streams
from games.models import Match, MatchStatus, Visibility
from tests.engine.test_properties import table_rules

API = "/api/v1"

# role → the permissions it has: the policy as the product promises it.
EXPECTED = {
    Role.PLAYER: {"facts", "summary", "read", "hands", "seat", "watch", "act"},
    # A person who left a private match is an outsider to it (of a public one, a spectator).
    Role.LEAVER: {"facts"},
    Role.CREATOR: {"facts", "summary", "read", "hands", "watch", "manage"},
    Role.STAFF: {"facts", "summary", "read", "hands", "watch"},
    Role.SPECTATOR: {"facts", "summary", "watch"},
    Role.STRANGER: {"facts"},
}

# (method, path under the match, the permission it needs)
ENDPOINTS = [
    ("get", "", Permission.SUMMARY),
    ("get", "/spectate", Permission.FACTS),
    ("get", "/invitation", Permission.FACTS),
    # Staff may name another seat once the match is over (below); without one, only a seat's
    # own view is there to read.
    ("get", "/view", Permission.SEAT),
    ("get", "/bid-estimate", Permission.SEAT),
    ("get", "/deals", Permission.READ),
    ("get", "/deals/1", Permission.READ),
    ("get", "/deals/1/notation", Permission.HANDS),
    ("get", "/notation", Permission.HANDS),
    ("get", "/events?wait=0", Permission.WATCH),
    ("post", "/return", Permission.ACT),
    ("post", "/leave", Permission.ACT),
    ("post", "/actions", Permission.ACT),
]


def test_the_policy_is_the_table() -> None:
    for role, permissions in EXPECTED.items():
        assert {p.value for p in Permission if access.Access(role, None).allows(p)} == (
            permissions
        ), role


def user(name: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(f"{name}-{uuid.uuid4().hex[:8]}", **extra)


def client_of(someone: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(someone)
    return client


def table(visibility: str, *, over: bool) -> tuple[Match, dict[Role, Any]]:
    """A match made by a creator who does not sit at it, with a player, a person who left,
    staff and two outsiders; in play, or abandoned."""
    people = {role: user(role.value) for role in Role if role != Role.STAFF}
    people[Role.STAFF] = user("staff", is_staff=True)
    match = services.create_match(
        user=people[Role.CREATOR],
        table=services.NewTable(
            game="auction",
            deal_count=1,
            visibility=visibility,
            clock_seconds=None,
            seats=[services.SeatSpec(kind="person", user=people[Role.PLAYER]),
               services.SeatSpec(kind="person", user=people[Role.LEAVER]),
               services.SeatSpec(kind="bot", bot_level="easy"),
               services.SeatSpec(kind="bot", bot_level="easy")],
        ),
    )
    seating.leave_match(match_id=match.id, user=people[Role.LEAVER])
    if over:
        services.abandon_match(match_id=match.id)
    match.refresh_from_db()
    return match, people


def as_seen_at(visibility: str, role: Role) -> Role:
    """An outsider watches a public match, and is a stranger to a private one; a person who
    left a public match watches it like anyone."""
    if role in (Role.SPECTATOR, Role.STRANGER):
        return Role.SPECTATOR if visibility == Visibility.PUBLIC else Role.STRANGER
    if role == Role.LEAVER and visibility == Visibility.PUBLIC:
        return Role.SPECTATOR
    return role


def refused(response: Any) -> bool:
    assert response.status_code < 500, response.content
    # A seated player naming another seat is told which is theirs (`other_seat`).
    return response.status_code == 403 and response.json()["code"] in ("not_your_seat",
                                                                       "other_seat")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("visibility", [Visibility.PUBLIC, Visibility.PRIVATE])
@pytest.mark.parametrize("over", [False, True], ids=["in play", "over"])
def test_every_role_at_every_endpoint_is_answered_as_the_policy_says(
    visibility: str, over: bool
) -> None:
    for method, path, permission in ENDPOINTS:
        match, people = table(visibility, over=over)
        for role, someone in people.items():
            role = as_seen_at(visibility, role)
            found = access.access(Match.objects.get(pk=match.pk), someone)
            assert found.role == role
            body = ({"kind": "pass"} if path == "/actions" else {}) if method == "post" else None
            response = getattr(client_of(someone), method)(
                f"{API}/matches/{match.id}{path}", body, format="json"
            )
            assert refused(response) != (permission in POLICY_OF[role]), (
                role, method, path, response.status_code, response.content
            )


POLICY_OF = {role: {Permission(p) for p in permissions} for role, permissions in EXPECTED.items()}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("visibility", [Visibility.PUBLIC, Visibility.PRIVATE])
def test_the_stream_admits_as_the_policy_says(visibility: str) -> None:
    match, people = table(visibility, over=False)
    for role, someone in people.items():
        role = as_seen_at(visibility, role)
        follower = streams.Follower(match, 0, someone, None)
        assert follower._allowed() == (Permission.WATCH in POLICY_OF[role]), role


CARD = re.compile(r'"((?:[2-9TJQKA])[SHDC])"')


def named_cards(body: object) -> set[str]:
    if isinstance(body, str):  # a notation's text
        return set(re.findall(r"\b[2-9TJQKA][SHDC]\b", body))
    return set(CARD.findall(json.dumps(body)))


def check_nobody_reads_a_hidden_card(match: Match, people: dict[Role, Any]) -> None:
    match.refresh_from_db()
    current = selectors.current_deal(match)
    if current.status != "in_progress":
        return  # an ended deal's hands are public
    deal = selectors.replay_deal(match, current)
    face_up = set() if deal.dummy is None else {str(c) for c in deal.hand(deal.dummy)}
    for role, someone in people.items():
        client = client_of(someone)
        own_seat = access.access(match, someone).seat
        own = set() if own_seat is None else {str(c) for c in deal.hand(own_seat.index)}
        hidden = {str(c) for seat in range(4) for c in deal.hand(seat)} - face_up - own
        for path in ["/view", "/spectate", "/events?wait=0", "/deals", "/view?seat=2"]:
            response = client.get(f"{API}/matches/{match.id}{path}")
            assert response.status_code < 500, response.content
            if response.status_code != 200:
                continue
            body = response.json()
            if path == "/deals":  # ended deals only, whose hands are public
                assert current.sequence not in [record["sequence"] for record in body]
                continue
            if isinstance(body, dict):
                # The previous deal has ended (its hands are public): only the deal in play.
                body = {**body, "previous_deal": None}
                if "events" in body:
                    body["events"] = [e for e in body["events"]
                                      if e["deal_sequence"] == current.sequence]
            assert not named_cards(body) & hidden, (role, path)


@pytest.mark.django_db(transaction=True)
@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=table_rules(), seed=st.integers(0, 2**32))
def test_no_role_reads_a_card_still_in_another_hand(rules: engine.TableRules, seed: int) -> None:
    rng = random.Random(seed)
    people = {role: user(role.value) for role in Role if role != Role.STAFF}
    people[Role.STAFF] = user("staff", is_staff=True)
    overrides = {k: v for k, v in rules.to_dict().items() if k != "game"}
    match = services.create_match(
        user=people[Role.CREATOR],
        table=services.NewTable(
            game=rules.game.value,
            rules=overrides,
            deal_count=1,
            visibility=Visibility.PUBLIC,
            clock_seconds=None,
            seats=[services.SeatSpec(kind="person", user=people[Role.PLAYER]),
               services.SeatSpec(kind="person", user=people[Role.LEAVER]),
               services.SeatSpec(kind="bot", bot_level="easy"),
               services.SeatSpec(kind="bot", bot_level="easy")],
        ),
    )
    seating.leave_match(match_id=match.id, user=people[Role.LEAVER])
    match.refresh_from_db()
    while match.status == MatchStatus.ACTIVE:
        check_nobody_reads_a_hidden_card(match, people)
        deal = selectors.replay_deal(match, selectors.current_deal(match))
        assert deal.to_act == 0, "the computer players and the stand-in have moved"
        legal = [a for a in deal.legal_actions(0) if a.kind != engine.ActionKind.REDEAL]
        services.submit_action(
            match_id=match.id, action=rng.choice(legal), user=people[Role.PLAYER]
        )
        match.refresh_from_db()


# Every path under a match that a seated person uses, and the ones anyone may try.
EVERY_PATH = [
    ("get", ""), ("get", "/view"), ("get", "/view?seat=1"), ("get", "/bid-estimate"),
    ("get", "/deals"), ("get", "/deals/1"), ("get", "/deals/1/notation"), ("get", "/notation"),
    ("get", "/events?wait=0"), ("get", "/stream"),
    ("get", "/spectate"), ("get", "/invitation"), ("post", "/join"), ("post", "/cancel"),
    ("post", "/return"), ("post", "/leave"),
    ("post", "/actions"),
]


def answer(someone: Any, method: str, path: str, match: Match) -> tuple[int, str | None, Any]:
    response = getattr(client_of(someone), method)(
        f"{API}/matches/{match.id}{path}", {} if method == "post" else None, format="json"
    )
    assert response.status_code < 500, response.content
    if response.streaming:  # a stream admitted: its first frames are all it needs to show
        response.close()
        return response.status_code, None, None
    if response["Content-Type"].startswith("text/x-batak-notation"):
        return response.status_code, None, response.content.decode()
    body = response.json() if response.content else None
    code = body.get("code") if isinstance(body, dict) and response.status_code >= 400 else None
    return response.status_code, code, body


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("visibility", [Visibility.PUBLIC, Visibility.PRIVATE])
def test_a_person_who_left_is_answered_as_an_outsider_everywhere(visibility: str) -> None:
    """A probe found the leaver of a private match still reading its view (the hand dealt to
    their stand-in), its events and its stream. Now every endpoint answers them what it answers
    an outsider (403 `not_your_seat` at a private match; a spectator's answers at a public
    one), and nothing they are answered names a card of the seat they handed on."""
    match, people = table(visibility, over=False)
    leaver, outsider = people[Role.LEAVER], people[Role.STRANGER]
    deal = selectors.replay_deal(match, selectors.current_deal(match))
    handed_on = {str(card) for card in deal.hand(1)}
    for method, path in EVERY_PATH:
        theirs, outsiders = answer(leaver, method, path, match), answer(outsider, method, path,
                                                                        match)
        if path == "/join" and visibility == Visibility.PUBLIC:
            # A started match has no seat for anyone (409); the leaver is told they had one.
            assert (theirs[:2], outsiders[:2]) == ((409, "already_seated"),
                                                   (409, "seat_unavailable"))
            continue
        assert theirs[:2] == outsiders[:2], (method, path, theirs, outsiders)
        assert not named_cards(theirs[2]) & handed_on, (method, path)
    assert answer(leaver, "get", "/view", match)[:2] == (403, "not_your_seat")
    listed = [row["id"] for row in client_of(leaver).get(f"{API}/matches").json()["results"]]
    assert (str(match.id) in listed) == (visibility == Visibility.PUBLIC)


@pytest.mark.django_db(transaction=True)
def test_a_private_matchs_summary_is_the_tables_own() -> None:
    """`GET /matches/{id}` of a private match answered its seats, names and presence to anyone
    signed in who knew its id; now only to those who may read it. Joining by invitation (the
    code, not the id) still answers the match."""
    match, people = table(Visibility.PRIVATE, over=False)
    for role in (Role.PLAYER, Role.CREATOR, Role.STAFF):
        assert answer(people[role], "get", "", match)[0] == 200, role
    for role in (Role.STRANGER, Role.SPECTATOR, Role.LEAVER):
        assert answer(people[role], "get", "", match)[:2] == (403, "not_your_seat"), role
    waiting = services.create_match(
        user=people[Role.CREATOR],
        table=services.NewTable(
            game="auction",
            deal_count=1,
            clock_seconds=None,
            seats=[services.SeatSpec(kind="me"), *[services.SeatSpec(kind="open")] * 3],
        ),
    )
    invited = people[Role.STRANGER]
    assert answer(invited, "get", "", waiting)[:2] == (403, "not_your_seat")
    joined = client_of(invited).post(
        f"{API}/invitations/{waiting.invitation_code}/join", {}, format="json"
    )
    assert joined.status_code == 200 and joined.json()["match"]["id"] == str(waiting.id)
    assert answer(invited, "get", "", waiting)[0] == 200
