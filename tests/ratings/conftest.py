"""Named players for the ratings' tests: a guest's result is never rated."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.api.conftest import API, Player
from tests.platforms.conftest import platform  # noqa: F401 - a fixture for these tests too


def named_player(username: str) -> Player:
    client = APIClient()
    response = client.post(API + "/auth/register", {
        "username": username, "password": "correct horse battery", "display_name": username,
    }, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    return Player(client, body["user"]["id"], username)
