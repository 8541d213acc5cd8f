"""Tour tests play through the API with the same guest players as the API tests."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from bots import players
from games.models import Match, MatchStatus
from tests.api.conftest import Player, player
from tour import content
from tour.models import TableProgress

__all__ = ["player"]


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    """Hard with few worlds: these tests check the tour, not the bots' strength."""
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6))


def start(someone: Player, slug: str) -> dict[str, Any]:
    response = someone.post(f"/tour/tables/{slug}/start")
    assert response.status_code == 201, response.content
    return response.json()


def tables(someone: Player) -> dict[str, dict[str, Any]]:
    response = someone.get("/tour/tables")
    assert response.status_code == 200, response.content
    return {table["slug"]: table for table in response.json()}


def open_tables(someone: Player) -> list[str]:
    return [slug for slug, table in tables(someone).items() if table["open"]]


def finish(match_id: str, ranking: list[int], totals: list[int]) -> None:
    """End a match as the engine would, with this ranking (ties already resolved)."""
    Match.objects.filter(pk=match_id).update(
        status=MatchStatus.FINISHED, ranking=ranking, totals=totals, finished_at=timezone.now()
    )


def open_up_to(someone: Player, slug: str) -> None:
    """Give ``someone`` a win at every table before ``slug``, so it is open."""
    for table in content.TABLES:
        if table.slug == slug:
            return
        TableProgress.objects.create(user_id=someone.user_id, table=table.slug, played=1, won=1,
                                     best_place=1, best_total=100)
