"""API test helpers: guest players with tokens, and playing through HTTP."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

API = "/api/v1"


class Player:
    """One person at the table, talking to the API with their own token."""

    def __init__(self, client: APIClient, user_id: int, name: str) -> None:
        self.client = client
        self.user_id = user_id
        self.name = name

    def get(self, path: str, **kwargs: Any):
        return self.client.get(API + path, **kwargs)

    def post(self, path: str, data: Any = None, **kwargs: Any):
        return self.client.post(API + path, data if data is not None else {}, format="json",
                                **kwargs)

    def view(self, match_id: str) -> dict[str, Any]:
        response = self.get(f"/matches/{match_id}/view")
        assert response.status_code == 200, response.content
        return response.json()


def new_player(name: str = "") -> Player:
    client = APIClient()
    response = client.post(API + "/auth/guest", {"display_name": name}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    return Player(client, body["user"]["id"], name)


@pytest.fixture
def player(db) -> Callable[[str], Player]:
    return new_player


def create_match(owner: Player, **body: Any) -> dict[str, Any]:
    response = owner.post("/matches", body)
    assert response.status_code == 201, response.content
    return response.json()


def table_of_four(player, game: str = "auction", deals: int = 1, **rules: Any):
    """A match with four people seated 0..3, started."""
    players = [player(f"P{i}") for i in range(4)]
    match = create_match(
        players[0], game=game, deals=deals, rules=rules, visibility="public",
        seats=[{"kind": "me"}] + [{"kind": "open"}] * 3,
    )
    for index, someone in enumerate(players[1:], start=1):
        response = someone.post(f"/matches/{match['id']}/join", {"seat": index})
        assert response.status_code == 200, response.content
    return match["id"], players


def submit(someone: Player, match_id: str, action: dict[str, Any], **extra: Any):
    """Submit ``action`` (an entry of `legal_actions`); ``extra`` adds e.g. expected_version."""
    return someone.post(f"/matches/{match_id}/actions", {**action, **extra})


def play_random_turn(players: list[Player], match_id: str, rng: random.Random) -> dict[str, Any]:
    """The seat to act submits a random legal action; returns the response body."""
    view = players[0].view(match_id)
    seat = view["deal"]["to_act"]
    mine = players[seat].view(match_id)
    legal = [a for a in mine["deal"]["legal_actions"] if a["kind"] != "redeal"]
    response = submit(players[seat], match_id, rng.choice(legal),
                      expected_version=mine["version"])
    assert response.status_code == 200, response.content
    return response.json()
