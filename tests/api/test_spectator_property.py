"""Property: whole matches under random table rules, and after every action nothing a spectator
is answered (the spectator view, the event feed) names a card that is still in a hand, except
a face-up dummy's."""

from __future__ import annotations

import json
import random
import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine, presenters, selectors, services
from games.api.serializers.feed import EventPageSerializer, SpectatorViewSerializer
from games.models import Match, MatchStatus, Visibility
from tests.engine.test_properties import table_rules

CARD = re.compile(r'"((?:[2-9TJQKA])[SHDC])"')


def named_cards(body: object) -> set[str]:
    return set(CARD.findall(json.dumps(body)))


def check_spectator_sees_no_hidden_card(match: Match) -> None:
    match.refresh_from_db()
    view = SpectatorViewSerializer(presenters.spectator_view(match)).data
    page = EventPageSerializer(presenters.event_page(match, 0, 500)).data
    current = selectors.current_deal(match)
    if current.status != "in_progress":
        return  # an ended deal's hands are public
    deal = selectors.replay_deal(match, current)
    in_hands = {str(card) for seat in range(4) for card in deal.hand(seat)}
    face_up = {str(card) for card in deal.hand(deal.dummy)} if deal.dummy is not None else set()
    hidden = in_hands - face_up
    # The previous deal has ended (its hands are public): only the deal in play is checked.
    assert not named_cards({**view, "previous_deal": None}) & hidden
    events = [e for e in page["events"] if e["deal_sequence"] == current.sequence]
    assert not named_cards(events) & hidden


@pytest.mark.django_db
@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=table_rules(), seed=st.integers(0, 2**32))
def test_no_spectator_response_names_an_unplayed_card(
    rules: engine.TableRules, seed: int
) -> None:
    rng = random.Random(seed)
    users = [get_user_model().objects.create_user(f"p{uuid.uuid4().hex[:12]}") for _ in range(4)]
    overrides = {k: v for k, v in rules.to_dict().items() if k != "game"}
    match = services.create_match(
        user=users[0],
        table=services.NewTable(
            game=rules.game.value,
            rules=overrides,
            deal_count=2,
            seats=[services.SeatSpec(kind="me")] + [services.SeatSpec(kind="open")] * 3,
            visibility=Visibility.PUBLIC,
            clock_seconds=None,
        ),
    )
    for user in users[1:]:
        services.join_match(match_id=match.id, user=user)
    match.refresh_from_db()
    while match.status == MatchStatus.ACTIVE:
        check_spectator_sees_no_hidden_card(match)
        deal = selectors.replay_deal(match, selectors.current_deal(match))
        seat = deal.to_act
        assert seat is not None
        action = rng.choice(deal.legal_actions(seat))
        services.submit_action(match_id=match.id, action=action, user=users[seat])
        match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
