"""Matches between four people over Django's test client, each move random and legal: what the
benchmarks of a move's own cost (loadtest.move_profile, loadtest.tracing_cost) time."""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any


def play_random_moves(clients: list[Any], rng: random.Random, budget: int, *, game: str,
                      around_move: Callable[[], AbstractContextManager[object]]) -> int:
    """Random legal moves of one new match of ``game`` between the four ``clients``' people, at
    most ``budget``; how many. Each move's request runs inside ``around_move()`` (a timer, a
    profiler), and only it: each deal's hands are read once, and the moves are chosen from an
    engine state of our own."""
    from games import engine

    created = clients[0].post("/api/v1/matches", {
        "game": game, "deals": 4, "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3,
        "visibility": "public",
    }, content_type="application/json")
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    for index, client in enumerate(clients[1:], start=1):
        joined = client.post(f"/api/v1/matches/{match_id}/join", {"seat": index},
                             content_type="application/json")
        assert joined.status_code == 200, joined.content
    played = 0
    while played < budget:
        views = [c.get(f"/api/v1/matches/{match_id}/view").json() for c in clients]
        if views[0]["deal"] is None:
            return played
        start = engine.DealStart.from_cards(
            engine.TableRules.from_dict(views[0]["rules"]), views[0]["deal"]["dealer"],
            [[engine.Card.parse(card) for card in view["deal"]["hand"]] for view in views],
            views[0]["deal"]["number"],
        )
        deal, version = engine.Deal(start), views[0]["version"]
        while played < budget and not deal.is_over:
            seat = deal.to_act
            assert seat is not None, "a deal that is not over has a seat to act"
            action = rng.choice(
                [a for a in deal.legal_actions(seat) if a.kind != engine.ActionKind.REDEAL])
            with around_move():
                answer = clients[seat].post(
                    f"/api/v1/matches/{match_id}/actions",
                    {**action.to_dict(), "expected_version": version},
                    content_type="application/json")
            assert answer.status_code == 200, answer.content
            deal.apply(seat, action)
            version = answer.json()["version"]
            played += 1
    return played
