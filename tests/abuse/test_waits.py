"""Bounded waiting on the embedded default (games/api/slots.py): long polls and streams hold a
slot each, within the account's and the process's bounds; past them the request is refused at
once (429 with Retry-After), and every slot comes back when its wait ends, however it ends."""

from __future__ import annotations

import random
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from games import notify, selectors
from games.api import stream_pages
from tests import sse
from tests.abuse.scenarios import my_turn_view
from tests.api.conftest import API, Player, play_random_turn, table_of_four
from tests.integration.harness import client

pytestmark = pytest.mark.django_db(transaction=True)


def wait_until(check: Callable[[], bool], what: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def waiting_on(match_id: str) -> int:
    """Long polls of the match waiting in this process right now (the embedded default's own
    waiters: games/notify.py)."""
    with notify._waiters_lock:
        return len(notify._waiters.get(str(match_id), ()))


class Poll(threading.Thread):
    """One long poll of ``someone``'s, on a test client of its own (same token)."""

    def __init__(self, someone: Player, match_id: str, wait: int, after: int = 0) -> None:
        super().__init__()
        self.api = APIClient()
        self.api.credentials(**someone.client._credentials)
        self.path = f"{API}/matches/{match_id}/events?after={after}&wait={wait}"
        self.status: int | None = None
        self.start()

    def run(self) -> None:
        try:
            self.status = self.api.get(self.path).status_code
        finally:
            connection.close()


def events(someone: Player, match_id: str, wait: int, after: int = 0) -> Any:
    return someone.get(f"/matches/{match_id}/events?after={after}&wait={wait}")


def assert_refused(response: Any, code: str) -> None:
    assert response.status_code == 429, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == code and response.json()["detail"]
    assert int(response["Retry-After"]) >= 1


def test_an_accounts_long_polls_past_its_bound_are_refused_then_given_back(player,
                                                                            settings) -> None:
    settings.LONG_POLL_MAX_PER_ACCOUNT = 2
    match_id, players = table_of_four(player)
    watcher = players[1]
    polls = [Poll(watcher, match_id, wait=20) for _ in range(2)]
    wait_until(lambda: waiting_on(match_id) == 2, "the two polls never waited")
    assert_refused(events(watcher, match_id, wait=20), "too_many_long_polls")
    # A read that does not wait holds nothing, and is never refused; nor is another account.
    assert events(watcher, match_id, wait=0).status_code == 200
    other = Poll(players[2], match_id, wait=20)
    wait_until(lambda: waiting_on(match_id) == 3, "another account's poll never waited")
    play_random_turn(players, match_id, random.Random(1))
    for poll in [*polls, other]:
        poll.join(10)
        assert poll.status == 200
    # Both slots came back with their answers: the account may hold its two waits again.
    latest = watcher.view(match_id)["version"]  # nothing moves until someone plays
    again = [Poll(watcher, match_id, wait=1, after=latest) for _ in range(2)]
    for poll in again:
        poll.join(10)
    assert [poll.status for poll in again] == [200, 200]


def test_a_process_holds_a_bounded_number_of_waiting_threads(player, settings) -> None:
    """Long polls, and streams served in a thread (as this test client serves them), share
    LONG_POLL_MAX_PER_PROCESS; every other request is still served."""
    settings.LONG_POLL_MAX_PER_PROCESS = 2
    match_id, players = table_of_four(player)
    polls = [Poll(someone, match_id, wait=20) for someone in players[1:3]]
    wait_until(lambda: waiting_on(match_id) == 2, "the two polls never waited")
    assert_refused(events(players[3], match_id, wait=20), "server_busy")
    assert_refused(players[3].get(f"/matches/{match_id}/stream"), "server_busy")
    assert players[3].view(match_id)["status"] == "active"
    play_random_turn(players, match_id, random.Random(2))
    for poll in polls:
        poll.join(10)
        assert poll.status == 200
    latest = players[3].view(match_id)["version"]
    assert events(players[3], match_id, wait=1, after=latest).status_code == 200


def test_a_long_poll_that_fails_gives_its_slot_back(player, settings, monkeypatch) -> None:
    settings.LONG_POLL_MAX_PER_ACCOUNT = 1
    match_id, players = table_of_four(player)
    waits = selectors.wait_for_move
    failed = threading.Event()

    def fails_once(*args: Any) -> None:
        if not failed.is_set():
            failed.set()
            raise RuntimeError("the database went away")
        waits(*args)

    monkeypatch.setattr(selectors, "wait_for_move", fails_once)
    assert events(players[1], match_id, wait=20).status_code == 500
    # Its slot is free: the account's one wait is let in, and a second is refused.
    poll = Poll(players[1], match_id, wait=3)
    wait_until(lambda: waiting_on(match_id) == 1, "the poll after the failure never waited")
    assert_refused(events(players[1], match_id, wait=3), "too_many_long_polls")
    poll.join(10)
    assert poll.status == 200


def test_a_stream_that_fails_gives_its_thread_back(player, settings, monkeypatch) -> None:
    settings.LONG_POLL_MAX_PER_PROCESS = 1
    match_id, players = table_of_four(player)

    def broken(*args: Any) -> Any:
        raise RuntimeError("the database went away")

    with monkeypatch.context() as patch:
        patch.setattr(stream_pages, "read_page", broken)
        response = players[1].get(f"/matches/{match_id}/stream")
        assert response.status_code == 200
        with pytest.raises(RuntimeError):
            b"".join(response.streaming_content)
        response.close()
    poll = Poll(players[2], match_id, wait=3)
    wait_until(lambda: waiting_on(match_id) == 1, "the poll after the failure never waited")
    assert_refused(players[3].get(f"/matches/{match_id}/stream"), "server_busy")
    poll.join(10)
    assert poll.status == 200


def raw_long_poll(
    base_url: str, token: str, match_id: str, after: int, wait: int
) -> socket.socket:
    """A long poll sent on a socket of its own, whose answer is never read."""
    parts = urllib.parse.urlsplit(base_url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=5)
    sock.sendall(
        f"GET {API}/matches/{match_id}/events?after={after}&wait={wait} HTTP/1.1\r\n"
        f"Host: {parts.hostname}\r\nAuthorization: Token {token}\r\n\r\n".encode()
    )
    return sock


def test_a_long_poll_whose_client_left_gives_its_slot_back(asgi_server, settings) -> None:
    settings.LONG_POLL_MAX_PER_ACCOUNT = 1
    me = client.guest(asgi_server, "Me")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    latest = my_turn_view(me, match_id)["version"]  # nothing moves until I do
    sock = raw_long_poll(asgi_server, str(me.token), match_id, latest, wait=2)
    wait_until(lambda: waiting_on(match_id) == 1, "the poll never waited")
    sock.close()  # no goodbye
    refused = me.get(f"{client.API}/matches/{match_id}/events?after={latest}&wait=2")
    assert refused.status == 429 and refused.body["code"] == "too_many_long_polls"
    assert int({name.lower(): value for name, value in refused.headers.items()}["retry-after"])
    # The abandoned wait ends on its `wait`, and gives its slot back then.
    wait_until(
        lambda: me.get(f"{client.API}/matches/{match_id}/events?after={latest}&wait=1"
                       ).status == 200,
        "the slot of the abandoned poll was never given back",
    )


def test_a_process_holds_a_bounded_number_of_streams(asgi_server, settings) -> None:
    settings.STREAM_MAX_PER_PROCESS = 1
    me, other = client.guest(asgi_server, "Me"), client.guest(asgi_server, "Other")
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    others_match = client.match_against_bots(other, levels=("easy",) * 3)
    first = sse.Follower(asgi_server, match_id, str(me.token))
    assert first.status == 200 and next(iter(first)).event == "retry"
    refused = sse.Follower(asgi_server, others_match, str(other.token))
    assert refused.status == 429
    assert int(refused.response.getheader("Retry-After")) >= 1
    assert b'"code":"server_busy"' in refused.response.read()
    refused.close()
    assert client.view(other, others_match)["status"] == "active"
    first.close()  # no goodbye: the server notices the closed connection
    deadline = time.monotonic() + 5
    while (again := sse.Follower(asgi_server, others_match, str(other.token))).status == 429:
        again.close()
        assert time.monotonic() < deadline, "the stream's slot was never given back"
        time.sleep(0.1)
    again.close()
