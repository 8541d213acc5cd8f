"""Your first match, from sign-up to the final scores, with Python's standard library alone.

    python3 first_match.py [BASE_URL]        (default http://127.0.0.1:8000)

The loop reads the seat's view and acts on what it says, so it works whatever the deal: while
the match is active, if the seat to act is yours, take one of the legal actions (here the
first) at the version you read; if not, wait on the event feed for the next move.
"""

from __future__ import annotations

import json
import random
import sys
import urllib.error
import urllib.request
from typing import Any

BASE = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000") + "/api/v1"


def call(method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    """One API call; answers the JSON body, or stops on a problem document (4xx, 5xx)."""
    request = urllib.request.Request(
        BASE + path, method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json",
                 **({"Authorization": f"Token {token}"} if token else {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        problem = json.load(error)  # every refusal is a problem document with a stable `code`
        sys.exit(f"{method} {path}: {problem['status']} {problem['code']}: {problem['detail']}")


# An account: username, password and the name shown at the table; the answer holds a token.
username = f"ayse_{random.randrange(10**9)}"
token = call("POST", "/auth/register", body={
    "username": username, "password": "tea garden at noon", "display_name": "Ayşe"})["token"]

# A match: you in seat 0 against three computer players, one deal of the auction game.
bot = {"kind": "bot", "bot_level": "medium"}
match = call("POST", "/matches", token, {
    "game": "auction", "deals": 1, "seats": [{"kind": "me"}, bot, bot, bot]})
match_id = match["id"]

while True:
    view = call("GET", f"/matches/{match_id}/view", token)
    if view["status"] != "active":
        break
    deal = view["deal"]
    if deal is None or deal["to_act"] != view["seat"]:
        # Not your turn: wait (up to 20 s) for the next move on the event feed.
        call("GET", f"/matches/{match_id}/events?after={view['version']}&wait=20", token)
        continue
    # Your turn: any of legal_actions is accepted, posted as it is with the version.
    action = deal["legal_actions"][0]
    call("POST", f"/matches/{match_id}/actions", token,
         {**action, "expected_version": view["version"]})
    print(f"version {view['version']}: {action}")

print(f"match {view['status']}: totals {view['totals']}, places {view['ranking']}")
