"""What a hostile or careless client sends, as functions of a running server's address: the
same scenarios run on the embedded default (tests/abuse, SQLite behind a live server) and on
the scaled-out form (tests/integration/test_abuse.py, gunicorn on PostgreSQL). Each finding of
the abuse probes is one of them; none may ever see a 5xx or change what it must not."""

from __future__ import annotations

import http.client
import json
import random
import secrets
import time
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings

from tests import sse
from tests.integration.harness import client

API = client.API


def raw_post(base_url: str, path: str, body: bytes, headers: dict[str, str] | None = None):
    """POST ``body`` as it is (no JSON encoding): status and parsed answer."""
    parts = urllib.parse.urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json",
                                                **(headers or {})})
        reply = connection.getresponse()
        raw = reply.read()
        return reply.status, (json.loads(raw) if raw else None)
    finally:
        connection.close()


def deeply_nested_json_is_refused(base_url: str) -> None:
    body = b"[" * 1000 + b"]" * 1000
    status, answer = raw_post(base_url, f"{API}/auth/guest", body)
    assert (status, answer["code"]) == (400, "malformed_request")


def huge_bodies_are_refused_unread(base_url: str) -> None:
    body = b'{"display_name": "' + b"x" * (20 * 1024 * 1024) + b'"}'
    status, answer = raw_post(base_url, f"{API}/auth/guest", body)
    assert (status, answer["code"]) == (413, "request_too_large")


def my_turn_view(api: client.Api, match_id: str) -> dict:
    """The seat's view once it is to act (the computer players may be moving in a worker)."""
    deadline = time.monotonic() + 20
    while not client.my_turn(view := client.view(api, match_id)):
        assert time.monotonic() < deadline, "the computer players did not hand over the turn"
        time.sleep(0.1)
    return view


def idempotency_keys_outside_the_pattern_are_400(base_url: str) -> None:
    api = client.guest(base_url, "Keys")
    match_id = client.match_against_bots(api, levels=["easy"] * 3)
    view = my_turn_view(api, match_id)
    action = view["deal"]["legal_actions"][0]
    for key in ("k" * 256, "two words", "ü"):
        response = client.act(api, match_id, action, idempotency_key=key)
        assert (response.status, response.body["code"]) == (400, "invalid_idempotency_key"), key
    assert client.view(api, match_id)["version"] == view["version"]


def one_key_sent_to_many_matches_at_once_applies_once(base_url: str) -> None:
    api = client.guest(base_url, "Racer")
    matches = [client.match_against_bots(api, levels=["easy"] * 3) for _ in range(8)]
    key = secrets.token_hex(8)

    def send(match_id: str) -> int:
        mine = client.Api(base_url, api.token)
        action = my_turn_view(mine, match_id)["deal"]["legal_actions"][0]
        return client.act(mine, match_id, action, idempotency_key=key).status

    with ThreadPoolExecutor(8) as pool:
        statuses = Counter(pool.map(send, matches))
    assert not any(status >= 500 for status in statuses), statuses
    assert statuses[200] <= 1 and set(statuses) <= {200, 409, 422}, statuses


def racing_registrations_of_one_name_make_one_account(base_url: str) -> None:
    name = "Racer" + secrets.token_hex(3)
    names = [name] * 6 + [name.lower(), name.upper()] * 3

    def register(username: str) -> int:
        anonymous = client.Api(base_url)
        body = {"username": username, "password": "kozmaca-2026-" + secrets.token_hex(4)}
        return anonymous.post(f"{API}/auth/register", body).status

    with ThreadPoolExecutor(12) as pool:
        statuses = Counter(pool.map(register, names))
    assert statuses == {201: 1, 409: 11}, statuses


def weak_passwords_are_refused(base_url: str) -> None:
    anonymous = client.Api(base_url)
    # All digits, too common, the username itself.
    for username, password in (("weakling", "12345678"), ("weakling", "password"),
                               ("racerweak1", "racerweak1")):
        body = {"username": username, "password": password}
        response = anonymous.post(f"{API}/auth/register", body)
        assert response.status == 400, (password, response.body)
        assert {error["field"] for error in response.body["errors"]} == {"password"}


def thirty_simultaneous_match_creations_all_succeed(base_url: str) -> None:
    """Each a person against three computer players, whose first turns run at once (on SQLite,
    writes that once failed with "database is locked")."""
    players = [client.guest(base_url, f"Crowd{number}") for number in range(30)]

    def create(api: client.Api) -> tuple[int, str]:
        mine = client.Api(base_url, api.token)
        body = {"deals": 1, "seats": [{"kind": "me"}] + [
            {"kind": "bot", "bot_level": "medium"}] * 3}
        response = mine.post(f"{API}/matches", body)
        return response.status, (response.body or {}).get("id", "")

    with ThreadPoolExecutor(30) as pool:
        created = list(pool.map(create, players))
    assert [status for status, _ in created] == [201] * 30, Counter(s for s, _ in created)
    for api, (_, match_id) in zip(players, created, strict=True):
        assert my_turn_view(api, match_id)["status"] == "active"


def twenty_simultaneous_quick_matches_make_five_full_tables(base_url: str) -> None:
    """Never two people in one seat, never two half-empty tables that could have been one."""
    players = [client.guest(base_url, f"Quick{number}") for number in range(20)]
    # A kind of table no other scenario asks for, so that only these twenty meet.
    body = {"game": "spades", "deals": 3, "fill_with_bots_after": None}

    def ask(api: client.Api) -> tuple[int, str, int]:
        response = client.Api(base_url, api.token).post(f"{API}/quick-match", body)
        answer = response.body or {}
        return response.status, answer.get("match", {}).get("id", ""), answer.get("seat", -1)

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(ask, players))
    assert [status for status, _, _ in answers] == [200] * 20, Counter(a[0] for a in answers)
    seats = Counter((match_id, seat) for _, match_id, seat in answers)
    assert max(seats.values()) == 1, "two people in one seat"
    assert sorted(Counter(match_id for _, match_id, _ in answers).values()) == [4] * 5


def a_bounded_flood_gets_no_server_error(base_url: str, requests: int = 200) -> Counter[int]:
    """``requests`` mixed requests from 20 threads: sign-ups, matches, views, moves, the feed."""
    owner = client.guest(base_url, "Flood")
    match_id = client.match_against_bots(owner, levels=["easy"] * 3)

    def one(number: int) -> int:
        api = client.Api(base_url, owner.token)
        kind = number % 5
        if kind == 0:
            return client.Api(base_url).post(f"{API}/auth/guest", {}).status
        if kind == 1:
            return api.get(f"{API}/matches/{match_id}/view").status
        if kind == 2:
            return api.get(f"{API}/matches/{match_id}/events?after=0&wait=0&limit=5").status
        if kind == 3:
            view = api.get(f"{API}/matches/{match_id}/view")
            deal = view.body.get("deal") if view.status == 200 else None
            if not deal or not deal["legal_actions"]:
                return view.status
            return client.act(api, match_id, deal["legal_actions"][0],
                              expected_version=view.body["version"]).status
        return api.get(f"{API}/matches?page_size=5").status

    with ThreadPoolExecutor(20) as pool:
        statuses = Counter(pool.map(one, range(requests)))
    assert not any(status >= 500 for status in statuses), statuses
    return statuses


def a_flood_of_streams_is_capped_and_slows_nobody_else(base_url: str) -> None:
    """One account opens live streams until it is refused: past its cap it gets 429
    `too_many_streams` (never a held connection more), and another account is still served."""
    hog = client.guest(base_url, "Hog")
    match_id = client.match_against_bots(hog, levels=["easy"] * 3)
    open_streams, statuses = [], Counter()
    try:
        for _ in range(30):
            follower = sse.Follower(base_url, match_id, hog.token, timeout=30)
            statuses[follower.status] += 1
            if follower.status == 200:
                open_streams.append(follower)
            else:
                answer = json.loads(follower.response.read())
                assert answer["code"] == "too_many_streams", answer
                follower.close()
        assert set(statuses) == {200, 429} and statuses[429] >= 10, statuses
        other = client.guest(base_url, "Other")
        client.view(other, client.match_against_bots(other, levels=["easy"] * 3))
    finally:
        for follower in open_streams:
            follower.close()


LONG_POLL_WAIT = 30


def answers_within(url: str, seconds: float) -> int:
    """The status of a GET of ``url`` (no retry), or an AssertionError if none in time."""
    try:
        with urllib.request.urlopen(url, timeout=seconds) as reply:
            return reply.status
    except TimeoutError as error:
        raise AssertionError(f"{url} did not answer within {seconds} s") from error


def a_flood_of_long_polls_is_capped_and_slows_nobody_else(base_url: str) -> None:
    """One account opens 20 long polls of the event feed, each to wait 30 s on a match where
    nothing moves. Unbounded, they took every thread of a gunicorn process and someone else's
    `/healthz` waited for them (27 s). Bounded, past the account's share they are refused at
    once (429, Retry-After), and `/healthz` and another person's view answer well within the
    polls' wait; the polls that were let in answer the next move, and give their slots back."""
    hog = client.guest(base_url, "Poller")
    match_id = client.match_against_bots(hog, levels=["easy"] * 3)
    view = my_turn_view(hog, match_id)  # nothing moves until the hog does
    other = client.guest(base_url, "Bystander")
    others_match = client.match_against_bots(other, levels=["easy"] * 3)
    feed = f"{API}/matches/{match_id}/events?after={view['version']}"

    def poll(_: int) -> client.Response:
        api = client.Api(base_url, hog.token, timeout=LONG_POLL_WAIT + 30)
        try:
            return api.get(f"{feed}&wait={LONG_POLL_WAIT}")
        finally:
            api.close()

    with ThreadPoolExecutor(20) as pool:
        polls = [pool.submit(poll, number) for number in range(20)]
        # The refused answer at once, the rest wait: give the refusals a third of the wait.
        share = settings.LONG_POLL_MAX_PER_ACCOUNT
        deadline = time.monotonic() + LONG_POLL_WAIT / 3
        while sum(poll.done() for poll in polls) < 20 - share and time.monotonic() < deadline:
            time.sleep(0.1)
        half = LONG_POLL_WAIT / 2
        assert answers_within(f"{base_url}/healthz", half) == 200
        bystander = client.Api(base_url, other.token, timeout=half)
        assert bystander.get(f"{API}/matches/{others_match}/view").status == 200
        refused = [poll.result() for poll in polls if poll.done()]
        assert len(refused) >= 20 - share, refused
        assert all(answer.status == 429 for answer in refused), refused
        for answer in refused:
            # The account's long polls, the process's waits, or its requests in flight.
            assert answer.body["code"] in ("too_many_long_polls", "server_busy",
                                           "throttled"), answer.body
            headers = {name.lower(): value for name, value in answer.headers.items()}
            assert int(headers["retry-after"]) >= 1
        # A read that does not wait is never refused.
        assert client.Api(base_url, hog.token).get(f"{feed}&wait=0").status == 200
        action = client.random_action(view, random.Random(1))
        client.expect(client.act(hog, match_id, action, expected_version=view["version"]),
                      200, "the move that ends the waits")
        statuses = Counter(poll.result(timeout=LONG_POLL_WAIT).status for poll in polls)
    assert statuses[200] == 20 - len(refused), statuses
    # Every slot given back: the account may hold its whole share of waits again at once.
    latest = my_turn_view(hog, match_id)["version"]  # nothing moves until the hog does
    ahead = f"{API}/matches/{match_id}/events?after={latest}&wait=1"
    with ThreadPoolExecutor(share) as pool:
        again = list(pool.map(lambda _: client.Api(base_url, hog.token).get(ahead), range(share)))
    assert [answer.status for answer in again] == [200] * share, again


SCENARIOS = [
    deeply_nested_json_is_refused,
    huge_bodies_are_refused_unread,
    idempotency_keys_outside_the_pattern_are_400,
    one_key_sent_to_many_matches_at_once_applies_once,
    racing_registrations_of_one_name_make_one_account,
    weak_passwords_are_refused,
    thirty_simultaneous_match_creations_all_succeed,
    twenty_simultaneous_quick_matches_make_five_full_tables,
    a_bounded_flood_gets_no_server_error,
    a_flood_of_streams_is_capped_and_slows_nobody_else,
    a_flood_of_long_polls_is_capped_and_slows_nobody_else,
]
