"""Partner platforms with keys, calling the platform API as a platform's server does."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from platforms import services
from platforms.models import Platform, Scope

API = "/api/v1"
EVERY_SCOPE = [scope.value for scope in Scope]


class PlatformClient:
    def __init__(self, platform: Platform, key: str) -> None:
        self.platform = platform
        self.key = key
        self.client = APIClient()
        self.client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")

    def put(self, path: str, data: Any = None):
        return self.client.put(API + "/platform" + path, data or {}, format="json")

    def post(self, path: str, data: Any = None):
        return self.client.post(API + "/platform" + path, data or {}, format="json")

    def get(self, path: str):
        return self.client.get(API + "/platform" + path)

    def player(self, external_id: str, name: str = "") -> APIClient:
        """The platform's player, as its app: a client with the player token."""
        response = self.put(f"/players/{external_id}", {"display_name": name or external_id})
        assert response.status_code in (200, 201), response.content
        app = APIClient()
        app.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
        return app


def problem(response: Any, status: int, code: str) -> None:
    """The answer is a problem document of ``status`` and ``code``."""
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == code


def new_platform(name: str, scopes: list[str] | None = None) -> PlatformClient:
    platform = services.register_platform(name=name)
    _, key = services.issue_key(platform=platform, name="server", scopes=scopes or EVERY_SCOPE)
    return PlatformClient(platform, key)


@pytest.fixture
def platform(db) -> PlatformClient:
    return new_platform("Alpha Games")


@pytest.fixture
def other_platform(db) -> PlatformClient:
    return new_platform("Beta Cards")


def play_to_the_end(platform: PlatformClient, apps: dict[int, APIClient], match_id: str,
                    rng: random.Random) -> None:
    """The platform's players (``apps`` by seat) make random legal moves until it is over."""
    for _ in range(300):
        if platform.get(f"/matches/{match_id}").json()["status"] != "active":
            return
        for seat, app in apps.items():
            view = app.get(f"{API}/matches/{match_id}/view").json()
            if view["deal"] and view["deal"]["to_act"] == seat:
                action = rng.choice(view["deal"]["legal_actions"])
                answer = app.post(f"{API}/matches/{match_id}/actions", action,
                                  format="json")
                assert answer.status_code == 200, answer.content
