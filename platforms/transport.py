"""How webhooks travel: signed POSTs to receivers, within one deadline for all of them, to the
addresses the service checked (platforms/addresses.py), a backlog's over connections kept.
What is sent, and when, is platforms/webhooks.py's."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import http.cookiejar
import ssl
import threading
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import httpx
from django.conf import settings
from opentelemetry.context import Context

from platforms.addresses import Address, public_addresses, resolve
from runtime import traces


@dataclass(frozen=True)
class Post:
    url: str
    headers: dict[str, str]
    body: bytes
    # The trace the post is made in (`traces.span_apart`), when not the caller's.
    trace: Context | None = None


class Outcome(NamedTuple):
    """What came of a post: its status code when the receiver answered, else None and why;
    and how long it took from its turn to be sent."""

    code: int | None
    error: str
    seconds: float
    # False when the deadline came before the post had its place: nothing was sent.
    sent: bool = True


def post(url: str, headers: dict[str, str], body: bytes) -> Outcome:
    """POST ``body`` to ``url`` within WEBHOOK_TIMEOUT_SECONDS in all (see `post_all`)."""
    return post_all([Post(url, headers, body)], at_once=1)[0]


def post_all(posts: Sequence[Post], at_once: int) -> list[Outcome]:
    """Each of ``posts``, in order, at most ``at_once`` under way at a time over connections
    kept between them, all within one WEBHOOK_TIMEOUT_SECONDS (looking each host up once,
    connecting, sending, and each answer's status line and headers; its body is read only
    when short, to keep the connection).
    Whatever goes wrong with one, a deadline, a refused address, a broken answer, is that
    post's failure. One connection kept for a receiver's backlog saves what a connection of
    its own costs each post: the drain after an outage is CPU-bound."""
    return _loop().run_until_complete(_post_all(posts, max(1, at_once)))


async def _post_all(posts: Sequence[Post], at_once: int) -> list[Outcome]:
    deadline = asyncio.get_running_loop().time() + settings.WEBHOOK_TIMEOUT_SECONDS
    places = asyncio.Semaphore(at_once)
    # Each host name is looked up once a call: a receiver's new address is used from the
    # next call on, and connections kept to its old one are left to expire.
    look_ups: dict[str, asyncio.Future[list[Address]]] = {}

    async def one(post: Post) -> Outcome:
        started, sent = time.perf_counter(), False
        try:
            async with asyncio.timeout_at(deadline), places:
                started, sent = time.perf_counter(), True
                host = urllib.parse.urlsplit(post.url).hostname or ""
                if host not in look_ups:
                    look_ups[host] = _look_up(host)
                # Shielded: one post's deadline must not cancel the look-up others wait for.
                address = (await asyncio.shield(look_ups[host]))[0]
                with traces.within(post.trace) if post.trace else contextlib.nullcontext():
                    code = await _connections(host).send(post, address)
            return Outcome(code, "", time.perf_counter() - started)
        except TimeoutError:
            why = f"no answer within {settings.WEBHOOK_TIMEOUT_SECONDS:g} s"
        except Exception as failure:
            reason = str(failure) or type(failure).__name__
            why = f"{type(failure).__name__}: {reason}"[:300]
        return Outcome(None, why, time.perf_counter() - started, sent)

    outcomes = list(await asyncio.gather(*(one(post) for post in posts)))
    with contextlib.suppress(Exception):  # what was sent is the outcomes' to say
        await _forget_the_least_used()
    return outcomes


def _look_up(host: str) -> asyncio.Future[list[Address]]:
    # Looked up here, and connected to by address: a name that answers a public address to
    # the check and a private one to the connection (DNS rebinding) gets nowhere. The
    # receiver still sees its own name, in Host and in TLS's SNI.
    look_up = resolve if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES else public_addresses
    return asyncio.get_running_loop().run_in_executor(_RESOLVER, look_up, host)


class _Host:
    """One host name's connections, kept by this thread between its calls: a connection made
    for one name, its certificate checked for that name, never carries another name's posts."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.client = httpx.AsyncClient(
            verify=_TLS, trust_env=False, follow_redirects=False, timeout=None,
            # No receiver's cookie is kept, nor sent with another's delivery to the host.
            cookies=_NoCookies(),
            # Answers as sent: a compressed body could unpack to any size.
            headers={"Accept-Encoding": "identity"},
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=8,
                                keepalive_expiry=KEPT_CONNECTION_SECONDS))

    async def send(self, post: Post, address: Address) -> int:
        parts = urllib.parse.urlsplit(post.url)
        literal = f"[{address}]" if address.version == 6 else str(address)
        port = f":{parts.port}" if parts.port else ""
        pinned = urllib.parse.urlunsplit(parts._replace(netloc=literal + port))
        extensions = {"sni_hostname": self.host} if parts.scheme == "https" else {}
        request = self.client.build_request(
            "POST", pinned, content=post.body, extensions=extensions,
            headers={**post.headers, "Host": parts.netloc},
        )
        # A redirect is the receiver's answer (a failed attempt), not an address to go to.
        response = await self.client.send(request, stream=True)
        try:
            await _read_short_body(response)
        finally:
            await response.aclose()
        return response.status_code


def _hosts() -> dict[str, _Host]:
    """This thread's kept hosts, the most recently used last."""
    hosts: dict[str, _Host] = _threads.__dict__.setdefault("hosts", {})
    return hosts


def _connections(host: str) -> _Host:
    hosts = _hosts()
    kept = hosts.pop(host, None) or _Host(host)
    hosts[host] = kept  # the most recently used last
    return kept


async def _forget_the_least_used() -> None:
    hosts = _hosts()
    while len(hosts) > KEPT_HOSTS:
        await hosts.pop(next(iter(hosts))).client.aclose()


# A thread keeps connections to this many receivers' hosts, each idle for this long at most.
KEPT_HOSTS = 16
KEPT_CONNECTION_SECONDS = 5.0


async def _read_short_body(response: httpx.Response) -> None:
    """Read an answer's body when it says it is short, briefly, as it came and counting what
    comes: a connection is kept for the next post only once its answer is read to the end.
    Any other body, or one that goes on past what it said, is left (its connection closed);
    the answer was its status."""
    length = response.headers.get("content-length", "")
    if (not length.isdigit() or int(length) > KEPT_ANSWER_BYTES
            or "transfer-encoding" in response.headers):
        return
    read = 0
    try:
        async with asyncio.timeout(KEPT_ANSWER_SECONDS):
            async for chunk in response.aiter_raw():
                read += len(chunk)
                if read > KEPT_ANSWER_BYTES:
                    return
    except (TimeoutError, httpx.HTTPError):
        pass  # the status was the answer; only the connection is lost


class _NoCookies(http.cookiejar.CookieJar):
    def extract_cookies(self, response: Any, request: Any) -> None:
        pass

    def set_cookie(self, cookie: http.cookiejar.Cookie) -> None:
        pass


# An answer whose body is this short is read, within this long, to keep its connection.
KEPT_ANSWER_BYTES = 65536
KEPT_ANSWER_SECONDS = 0.5


def _loop() -> asyncio.AbstractEventLoop:
    """This thread's event loop for its posts, kept: making and closing one a post cost as much
    CPU as a third of the post itself (a drain after an outage is CPU-bound)."""
    loop: asyncio.AbstractEventLoop | None = getattr(_threads, "loop", None)
    if loop is None or loop.is_closed():
        loop = _threads.loop = asyncio.new_event_loop()
        _threads.hosts = {}  # their connections were the old loop's
    return loop


_threads = threading.local()
# Built once per process: loading the certificate store takes milliseconds.
_TLS = ssl.create_default_context()
# Look-ups run here, not on the event loop's default executor: `asyncio.run` waits for that
# one at its end, so a name server that never answers would outlast the deadline.
_RESOLVER = concurrent.futures.ThreadPoolExecutor(max_workers=8,
                                                  thread_name_prefix="webhook-lookups")
