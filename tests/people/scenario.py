"""Four people find each other by quick match, play a whole match in which one of them drops
out for two turns and comes back, and a spectator follows it: through HTTP, as functions of a
running server's address, so that the same scenario runs on the embedded default
(tests/people/test_embedded.py) and scaled out (tests/integration/test_people.py).

The server must run with a 5-second clock allowed (the scenario asks for it), its clocks
driven (the in-process timer, or beat), and PRESENCE_SECONDS short enough (3) that the three
who stay see the fourth as gone while it is away.
"""

from __future__ import annotations

import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.integration.harness import client

API = client.API
CLOCK = {"bid": 5, "card": 5}
QUICK = {"game": "auction", "deals": 1, "fill_with_bots_after": None, "clock": CLOCK}
AWAY = 3  # the seat that drops out
CARD = re.compile(r"^(?:[2-9TJQKA])[SHDC]$")


def _cards(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*map(_cards, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_cards, value)) if value else set()
    return set()


class Spectator:
    """Follows the match's event feed to its end and watches the public view as it goes."""

    def __init__(self, api: client.Api, match_id: str) -> None:
        self.api, self.match_id = api, match_id
        self.feed: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.thread = threading.Thread(target=self._follow, daemon=True)

    def _follow(self) -> None:
        try:
            while True:
                page = client.events(self.api, self.match_id, after=len(self.feed), wait=10)
                for event in page["events"]:
                    if event["version"] != len(self.feed) + 1:
                        self.problems.append(f"feed skipped to {event['version']}")
                    self.feed.append(event)
                self._check_view()
                if page["status"] != "active" and not page["has_more"]:
                    return
        except Exception as error:  # reported by the test, not lost in the thread
            self.problems.append(repr(error))

    def _check_view(self) -> None:
        view = client.expect(self.api.get(f"{API}/matches/{self.match_id}/spectate"), 200,
                             "spectate")
        deal = view["deal"]
        if deal is None:
            return
        if "hand" in deal:
            self.problems.append("a spectator was shown a hand")
        played = {e.get("card") for e in self.feed if e["deal_sequence"] == deal["sequence"]}
        shown = _cards(deal) - set(deal["dummy_hand"] or ()) - played
        # Cards played after the feed page was read may show: they are in the view's version.
        later = view["version"] > len(self.feed)
        if shown and not later:
            self.problems.append(f"the spectator view named unplayed cards {sorted(shown)}")


def find_each_other(base_url: str) -> tuple[str, list[client.Api]]:
    """Four guests ask for a quick match at once and land at one table."""
    people = [client.guest(base_url, f"Player {seat}") for seat in range(4)]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(
            lambda api: client.expect(api.post(f"{API}/quick-match", QUICK), 200, "quick match"),
            people,
        ))
    tables = {answer["match"]["id"] for answer in answers}
    assert len(tables) == 1, f"four quick matches opened {len(tables)} tables"
    seats = sorted((answer["seat"], api) for answer, api in zip(answers, people, strict=True))
    assert [seat for seat, _ in seats] == [0, 1, 2, 3]
    return tables.pop(), [api for _, api in seats]


def people_play_through_a_dropout(base_url: str) -> None:
    rng = random.Random(17)
    watcher = client.guest(base_url, "Watcher")
    # The spectator finds the table in the lobby while it fills.
    first = client.guest(base_url, "Early")
    opened = client.expect(first.post(f"{API}/quick-match", QUICK), 200, "quick match")
    lobby = client.expect(watcher.get(f"{API}/lobby?game=auction&deals=1"), 200, "lobby")
    assert opened["match"]["id"] in [table["id"] for table in lobby["results"]]
    client.expect(first.post(f"{API}/matches/{opened['match']['id']}/leave"), 200, "leave")

    match_id, people = find_each_other(base_url)
    spectator = Spectator(watcher, match_id)
    spectator.thread.start()
    timeouts_seen = 0
    came_back = False
    saw_gone = False
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "the match did not finish"
        view = client.view(people[0], match_id)
        if view["status"] != "active":
            break
        timeouts_seen = sum(
            e["origin"] == "timeout" and e["submitted_by"] == AWAY
            for e in _all_events(people[0], match_id)
        )
        away = not came_back
        if away and timeouts_seen >= 2:
            back = people[AWAY].post(f"{API}/matches/{match_id}/return")
            client.expect(back, 200, "return")
            came_back = True
            continue
        if away and view["seats"][AWAY]["connected"] is False:
            saw_gone = True
        seat = view["deal"]["to_act"]
        if seat == AWAY and away:
            time.sleep(0.3)  # nobody answers for the seat: its clock runs out
            continue
        seat_view = client.view(people[seat], match_id)
        if not client.my_turn(seat_view):
            time.sleep(0.05)  # a computer player (the autopilot) is moving
            continue
        response = client.act(people[seat], match_id, client.random_action(seat_view, rng),
                              expected_version=seat_view["version"])
        if response.status == 409:  # the clock of a slow seat, or the autopilot, was first
            continue
        client.expect(response, 200, "move")

    assert view["status"] == "finished"
    assert came_back and saw_gone, (came_back, saw_gone)
    events = _all_events(people[0], match_id)
    assert len(events) == view["version"]
    origins = [e["origin"] for e in events if e["submitted_by"] == AWAY]
    assert origins.count("timeout") == 2
    # After the return the person played their seat again.
    assert origins[-1] == "player"
    spectator.thread.join(30)
    assert not spectator.thread.is_alive()
    assert spectator.problems == []
    assert [e["version"] for e in spectator.feed] == list(range(1, view["version"] + 1))


def _all_events(api: client.Api, match_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        page = client.events(api, match_id, after=len(events), wait=0)
        events.extend(page["events"])
        if not page["has_more"]:
            return events
