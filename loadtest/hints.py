"""What a hint costs (`getHint`), in one process on a scratch database.

`python -m loadtest.hints` (`--turns 200 --seed 1`) measures:

- `valuation`: the values of every legal choice (`bots.advice.choice_values` through the
  computer players' seam, Hard's search over `advice.SEEN`'s layouts) of random positions —
  calls (auction, trump, announcements) and cards, of the three games, and the cards of the
  partnership game with a face-up dummy apart (its declarer chooses for two hands: the longest
  searches) — the search a hint runs;
- `get (worked out)`: a whole `GET /matches/{id}/hint` of a person at a table with hints against
  three Medium computer players, its view not yet in the cache: access, the deal's replay, the
  valuation, the sentence and the answer;
- `get (again)`: the same request again, answered from the cache.

Medians and p90 in milliseconds, per kind of choice (`call`: a bid, pass, trump or
announcement; `card`), with the embedded default's settings (SQLite, computer players in the
request) and the search compiled and loaded first.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import time
from collections import defaultdict

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered) * 1000, 1),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
    }


def _kind(phase: str) -> str:
    return "card" if phase == "play" else "call"


def valuation(turns: int, seed: int) -> dict[str, dict[str, float]]:
    from bots import interface
    from games.engine import ActionKind, Deal, TableRules

    rng = random.Random(seed)
    times: dict[str, list[float]] = defaultdict(list)
    with_dummy = TableRules.from_dict(
        {**TableRules.create("partnership").to_dict(), "partnership_dummy": True})
    while min(len(times["call"]), len(times["card"]), len(times["card, with a dummy"])) < turns:
        game = rng.choice(["auction", "partnership", "spades", "dummy"])
        rules = with_dummy if game == "dummy" else TableRules.create(game)
        deal = Deal.new(rules, rng.randrange(4), rng=rng)
        while deal.to_act is not None:
            seat = deal.to_act
            observation = deal.observation(seat)
            # Every call, a sample of the cards (a deal has 52 cards and a few calls).
            if observation.phase.value != "play" or rng.random() < 0.1:
                started = time.perf_counter()
                interface.choice_values(observation)
                kind = _kind(observation.phase.value)
                if kind == "card" and game == "dummy":
                    kind = "card, with a dummy"
                times[kind].append(time.perf_counter() - started)
            moves = [a for a in deal.legal_actions(seat) if a.kind != ActionKind.REDEAL]
            deal.apply(seat, rng.choice(moves))
    return {f"valuation, {kind}": _summary(samples) for kind, samples in sorted(times.items())}


def whole_get(turns: int, seed: int) -> dict[str, dict[str, float]]:
    from django.core.cache import cache
    from rest_framework.test import APIClient

    from tests.api.conftest import Player, submit

    rng = random.Random(seed)
    worked: dict[str, list[float]] = defaultdict(list)
    again: list[float] = []
    client = APIClient()
    token = client.post("/api/v1/auth/guest", {"display_name": "Learner"}, format="json")
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    person = Player(client, token.json()["user"]["id"], "Learner")
    while len(again) < turns:
        game = rng.choice(["auction", "partnership", "spades"])
        match = client.post("/api/v1/matches", {
            "game": game, "deals": 1, "hints": True,
            "seats": [{"kind": "me"}, *({"kind": "bot", "bot_level": "medium"},) * 3],
        }, format="json").json()
        while len(again) < turns:
            view = client.get(f"/api/v1/matches/{match['id']}/view").json()
            if view["status"] != "active":
                break
            cache.clear()
            path = f"/api/v1/matches/{match['id']}/hint"
            started = time.perf_counter()
            answer = client.get(path)
            worked[_kind(view["deal"]["phase"])].append(time.perf_counter() - started)
            assert answer.status_code == 200, answer.content
            started = time.perf_counter()
            assert client.get(path).status_code == 200
            again.append(time.perf_counter() - started)
            legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
            submit(person, match["id"], rng.choice(legal), expected_version=view["version"])
    return {**{f"get (worked out), {kind}": _summary(samples)
               for kind, samples in sorted(worked.items())},
            "get (again)": _summary(again)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import django

    django.setup()
    logging.disable(logging.INFO)  # a line per request and per computer turn
    from django.conf import settings
    from django.test.utils import setup_test_environment

    from bots.players import warm_up

    settings.HINT_RATE = "1000000/minute"
    settings.ANALYSE_DEALS = False  # the deals' analyses are not what is measured
    setup_test_environment()
    from django.db import connection

    connection.creation.create_test_db(verbosity=0)
    warm_up()
    results = {**valuation(args.turns, args.seed), **whole_get(args.turns, args.seed)}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
