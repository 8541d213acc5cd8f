"""Your first match, from sign-up to the final scores, with Python's standard library alone.

    python3 first_match.py [BASE_URL]        (default http://127.0.0.1:8000)

It plays as an app does, from the match's live stream alone (Server-Sent Events): the stream
tells every move, and on your seat's stream a `turn` event when it is your move, with what you
may do and the version to send back; the loop answers each with one of them (here the first).
A stream the server closes is opened again where it left off (`Last-Event-ID`), until its `end`.
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


def stream(last_id: str | None) -> Any:
    """The match's live stream, from after the event ``last_id`` (None: from the start)."""
    headers = {"Authorization": f"Token {token}", "Accept": "text/event-stream"}
    if last_id is not None:
        headers["Last-Event-ID"] = last_id
    request = urllib.request.Request(f"{BASE}/matches/{match_id}/stream", headers=headers)
    return urllib.request.urlopen(request, timeout=60)


def events(answer: Any) -> Any:
    """The stream's events as (name, id, data): a blank line ends each."""
    name, event_id, data = "message", None, []
    for raw in answer:
        line = raw.decode().rstrip("\r\n")
        if not line:
            if data:
                yield name, event_id, json.loads("\n".join(data))
            name, event_id, data = "message", None, []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())


last_id, over = None, None
while over is None:
    with stream(last_id) as answer:
        for name, event_id, data in events(answer):
            last_id = event_id or last_id
            if name == "turn":
                # Your move: any of legal_actions, posted as it is with the turn's version.
                action = data["legal_actions"][0]
                call("POST", f"/matches/{match_id}/actions", token,
                     {**action, "expected_version": data["version"]})
                print(f"version {data['version']}: {action}")
            elif name == "end":
                over = data
                break

view = call("GET", f"/matches/{match_id}/view", token)
print(f"match {over['status']}: totals {view['totals']}, places {view['ranking']}")
