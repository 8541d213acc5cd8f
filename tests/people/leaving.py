"""A person leaves a private table and reads no more of it, and a move that comes after its
turn's deadline is refused while the stand-in's time-out is made once: through HTTP, as a
function of a running server's address, so that it runs on the embedded default
(tests/people/test_embedded.py) and scaled out (tests/integration/test_people.py).

The server must allow a 5-second clock (the scenario asks for it). Scaled out, the stream
server's streams end as soon as their listener leaves (`a_leavers_stream_ends_at_once`).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from tests import sse
from tests.integration.harness import client

API = client.API
CLOCK = {"bid": 5, "card": 5}
BOT = {"kind": "bot", "bot_level": "easy"}


def _refused(response: client.Response) -> tuple[int, str]:
    return response.status, (response.body or {}).get("code", "")


def a_leaver_reads_nothing_and_a_late_move_is_refused(base_url: str) -> None:
    owner, friend, stranger = (client.guest(base_url, name) for name in ("Owner", "Friend",
                                                                         "Stranger"))
    match = client.expect(owner.post(f"{API}/matches", {
        "deals": 1, "clock": CLOCK, "seats": [{"kind": "me"}, {"kind": "open"}, BOT, BOT],
    }), 201, "create")
    match_id = match["id"]
    code = client.expect(owner.get(f"{API}/matches/{match_id}/invitation"), 200, "code")["code"]
    # The id alone shows an outsider nothing; the code seats them.
    assert _refused(friend.get(f"{API}/matches/{match_id}")) == (403, "not_your_seat")
    client.expect(friend.post(f"{API}/invitations/{code}/join", {"seat": 1}), 200, "join")
    client.expect(friend.get(f"{API}/matches/{match_id}"), 200, "details")
    assert _refused(stranger.get(f"{API}/matches/{match_id}")) == (403, "not_your_seat")

    client.expect(friend.post(f"{API}/matches/{match_id}/leave"), 200, "leave")
    for path in ("", "/view", "/events?wait=0", "/deals", "/bid-estimate"):
        theirs = _refused(friend.get(f"{API}/matches/{match_id}{path}"))
        assert theirs == _refused(stranger.get(f"{API}/matches/{match_id}{path}")), path
        assert theirs == (403, "not_your_seat"), path
    assert sse.Follower(base_url, match_id, str(friend.token)).status == 403

    _late_move(owner, match_id)


def a_leavers_stream_ends_at_once(base_url: str, stream_url: str) -> None:
    """A stream on ``stream_url`` of a person who leaves (on ``base_url``) a private match in
    play ends within a second or two, long before its periodic look at who may follow it
    (STREAM_HEARTBEAT_SECONDS, 15 s by default)."""
    owner, friend = client.guest(base_url, "Owner"), client.guest(base_url, "Friend")
    match_id = client.expect(owner.post(f"{API}/matches", {
        "deals": 1, "seats": [{"kind": "me"}, {"kind": "open"}, BOT, BOT],
    }), 201, "create")["id"]
    code = client.expect(owner.get(f"{API}/matches/{match_id}/invitation"), 200, "code")["code"]
    client.expect(friend.post(f"{API}/invitations/{code}/join", {"seat": 1}), 200, "join")
    follower = sse.Follower(stream_url, match_id, str(friend.token), timeout=8)
    assert follower.status == 200
    messages = iter(follower)
    assert next(messages).event == "retry"
    # The owner stays, and hears who left as soon as the leaver's stream ends.
    staying = iter(sse.Follower(stream_url, match_id, str(owner.token), timeout=8))
    assert next(staying).event == "retry"
    assert not next(m for m in staying if m.event == "seats").json()["seats"][1]["left"]
    client.expect(friend.post(f"{API}/matches/{match_id}/leave"), 200, "leave")
    left = time.monotonic()
    rest = list(messages)  # ends: no `end` event, the match goes on with a stand-in
    assert time.monotonic() - left < 3
    assert all(message.event in ("action", "comment", "deal_ended", "clock", "seats", "hand",
                                 "turn") for message in rest)
    assert sse.Follower(stream_url, match_id, str(friend.token)).status == 403
    heard = next(m for m in staying if m.event == "seats")
    assert heard.json()["seats"][1]["left"] and time.monotonic() - left < 3
    # Nothing moves once the test ends: the stand-in and the computer players stop at the
    # owner's turn. (A worker still playing them when the test database is emptied held a
    # match row the emptying needed, and PostgreSQL ended one of the two: a deadlock.)
    deadline = time.monotonic() + 60
    while not client.my_turn(client.view(owner, match_id)):
        assert time.monotonic() < deadline, "the owner's turn never came"
        time.sleep(0.05)


def _late_move(owner: client.Api, match_id: str) -> None:
    """The owner holds their move until their turn's deadline has passed, then sends it."""
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the owner's turn never came"
        view = client.view(owner, match_id)
        if client.my_turn(view) and view["turn_deadline"] is not None:
            break
        time.sleep(0.05)
    due = datetime.fromisoformat(view["turn_deadline"]).timestamp()
    time.sleep(max(0.0, due - time.time()) + 0.03)
    action: dict[str, Any] = view["deal"]["legal_actions"][0]
    late = client.act(owner, match_id, action, expected_version=view["version"])
    # Refused: by the clock itself, or as stale when the clock sweep made the time-out first.
    assert _refused(late) in ((409, "turn_timed_out"), (409, "stale_version")), late
    events = client.events(owner, match_id, after=view["version"], wait=5)["events"]
    assert events[0]["version"] == view["version"] + 1
    assert (events[0]["submitted_by"], events[0]["origin"]) == (view["seat"], "timeout")
