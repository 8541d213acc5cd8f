"""A person at the table, over HTTP: the load benchmark's simulated clients and the integration
tests play through this, exactly as an app would (guest token, views, moves, the event feed)."""

from __future__ import annotations

import dataclasses
import http.client
import json
import random
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from typing import Any

API = "/api/v1"
# gunicorn closes a keep-alive connection after 5 s idle (batak_api/gunicorn_conf.py); a request
# sent on it just then would fail, so an older connection is replaced before use.
KEEPALIVE_SECONDS = 4.0


@dataclasses.dataclass(frozen=True)
class Response:
    status: int
    body: Any
    headers: dict[str, str]
    seconds: float


class Api:
    """JSON over one keep-alive connection; one per thread."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 45.0) -> None:
        self.base_url = base_url
        parts = urllib.parse.urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.token = token
        self.timeout = timeout
        self._connection: http.client.HTTPConnection | None = None
        self._used = 0.0

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Response:
        sent = dict(headers or {})
        if self.token:
            sent["Authorization"] = f"Token {self.token}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        # Only reads are retried on a broken connection: a move must never be sent twice
        # behind the caller's back.
        attempts = 2 if method == "GET" else 1
        for attempt in range(attempts):
            connection = self._connect()
            started = time.perf_counter()
            try:
                connection.request(method, path, payload, sent)
                reply = connection.getresponse()
                raw = reply.read()
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt + 1 == attempts:
                    raise
                continue
            seconds = time.perf_counter() - started
            self._used = time.monotonic()
            if reply.getheader("Connection", "").lower() == "close":
                self.close()
            data = json.loads(raw) if raw else None
            return Response(reply.status, data, dict(reply.getheaders()), seconds)
        raise AssertionError("unreachable")

    def get(self, path: str, **kwargs: Any) -> Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Response:
        return self.request("POST", path, {} if body is None else body, **kwargs)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is not None and time.monotonic() - self._used > KEEPALIVE_SECONDS:
            self.close()
        if self._connection is None:
            self._connection = http.client.HTTPConnection(self.host, self.port, self.timeout)
        return self._connection


class ApiError(AssertionError):
    def __init__(self, what: str, response: Response) -> None:
        super().__init__(f"{what}: {response.status} {response.body}")
        self.response = response


def expect(response: Response, status: int, what: str) -> Any:
    if response.status != status:
        raise ApiError(what, response)
    return response.body


def guest(base_url: str, name: str = "") -> Api:
    """A new guest account, signed in."""
    api = Api(base_url)
    body = expect(api.post(f"{API}/auth/guest", {"display_name": name}), 201, "guest sign-up")
    api.token = body["token"]
    return api


def match_against_bots(
    api: Api, *, levels: Sequence[str] = ("medium",) * 3, deals: int = 1, game: str = "auction"
) -> str:
    """A started match: the caller at seat 0, computer players of ``levels`` at seats 1..3."""
    seats = [{"kind": "me"}] + [{"kind": "bot", "bot_level": level} for level in levels]
    body = {"game": game, "deals": deals, "seats": seats}
    return expect(api.post(f"{API}/matches", body), 201, "create match")["id"]


def view(api: Api, match_id: str) -> dict[str, Any]:
    return expect(api.get(f"{API}/matches/{match_id}/view"), 200, "seat view")


def act(api: Api, match_id: str, action: dict[str, Any], **extra: Any) -> Response:
    """Submit ``action`` (as listed in ``legal_actions``); ``extra`` adds e.g. expected_version.
    An ``idempotency_key`` extra is sent as the Idempotency-Key header."""
    key = extra.pop("idempotency_key", None)
    headers = {"Idempotency-Key": key} if key else None
    return api.post(f"{API}/matches/{match_id}/actions", action | extra, headers=headers)


def events(api: Api, match_id: str, after: int, wait: int) -> dict[str, Any]:
    path = f"{API}/matches/{match_id}/events?after={after}&wait={wait}"
    return expect(api.get(path), 200, "events")


def my_turn(seat_view: dict[str, Any]) -> bool:
    deal = seat_view["deal"]
    return deal is not None and deal["to_act"] == seat_view["seat"]


def random_action(seat_view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action of the seat (never a redeal request, which only slows a test)."""
    legal = [a for a in seat_view["deal"]["legal_actions"] if a["kind"] != "redeal"]
    return rng.choice(legal)


def moves_to_the_end(
    apps: dict[int, Api], match_id: str, rng: random.Random, most: int = 600
) -> Iterator[int]:
    """The people of ``apps`` (their seats' APIs) make random legal moves, whoever is to act,
    until the match is over; yields how many they have made after each one."""
    moves = 0
    for _ in range(most):
        views = {seat: view(app, match_id) for seat, app in apps.items()}
        if next(iter(views.values()))["status"] != "active":
            return
        acting = [seat for seat, seat_view in views.items() if my_turn(seat_view)]
        if not acting:
            time.sleep(0.02)
            continue
        seat = acting[0]
        expect(act(apps[seat], match_id, random_action(views[seat], rng)), 200, "move")
        moves += 1
        yield moves
    raise AssertionError("the match did not end")


def play_to_the_end(apps: dict[int, Api], match_id: str, rng: random.Random) -> None:
    for _ in moves_to_the_end(apps, match_id, rng):
        pass


def turns(
    api: Api, match_id: str, *, stream: str | None = None, quiet: float = 60.0,
    going: Callable[[], bool] = lambda: True, heard: list[Any] | None = None,
) -> Iterator[dict[str, Any]]:
    """Each `turn` the caller's stream of ``match_id`` tells (its data), as a push-first app
    hears them, until the stream's `end`: from ``stream`` (a stream server's base URL; the API's
    by default), resumed with `Last-Event-ID` whenever the server closes it or it stays quiet
    ``quiet`` seconds, while ``going()``. Every message heard is added to ``heard``."""
    last_id: str | None = None
    while going():
        follower = _open_stream(stream or api.base_url, api, match_id, last_id, quiet)
        if follower is None:
            continue
        try:
            for message in follower:
                if heard is not None:
                    heard.append(message)
                if message.id is not None:
                    last_id = message.id
                if message.event == "end":
                    return
                if message.event == "turn":
                    yield message.json()
        except TimeoutError:
            continue  # quiet for long: opened again, if still going
        finally:
            follower.close()


def _open_stream(base: str, api: Api, match_id: str, last_id: str | None,
                 quiet: float) -> Any:
    """The stream opened (a `tests.sse.Follower`), or None to try again: no answer within
    ``quiet`` seconds (a busy server), or 429 (after a second, as Retry-After asks)."""
    from tests import sse

    try:
        follower = sse.Follower(base, match_id, api.token or "", last_event_id=last_id,
                                timeout=quiet)
    except TimeoutError:
        return None
    if follower.status == 429:
        follower.close()
        time.sleep(1.0)
        return None
    if follower.status != 200:
        follower.close()
        raise ApiError("stream", Response(follower.status, {}, {}, 0.0))
    return follower


@dataclasses.dataclass
class StreamPlay:
    """What a seat heard on its stream while it played from it alone, and its moves."""

    messages: list[Any] = dataclasses.field(default_factory=list)  # tests.sse.Message
    moves: int = 0


def play_from_stream(api: Api, match_id: str, rng: random.Random) -> StreamPlay:
    """Play the caller's seat as a push-first app does: one stream, and one POST of an entry of
    each `turn`'s `legal_actions` (never a redeal), until the stream's `end`."""
    played = StreamPlay()
    for turn in turns(api, match_id, heard=played.messages):
        action = rng.choice([a for a in turn["legal_actions"] if a["kind"] != "redeal"])
        answer = act(api, match_id, action, expected_version=turn["version"])
        if answer.status == 200:
            played.moves += 1
        elif answer.status != 409:  # moved on meanwhile (a clock): the stream says how
            raise ApiError("move", answer)
    return played
