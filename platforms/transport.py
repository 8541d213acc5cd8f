"""How a webhook travels: one signed POST to a receiver, within one deadline for all of it,
to the address the service checked (platforms/addresses.py). What is sent, and when, is
platforms/webhooks.py's."""

from __future__ import annotations

import asyncio
import concurrent.futures
import ssl
import threading
import urllib.parse

import httpx
from django.conf import settings

from platforms.addresses import public_addresses, resolve


def post(url: str, headers: dict[str, str], body: bytes) -> tuple[int | None, str]:
    """POST ``body`` to ``url`` within WEBHOOK_TIMEOUT_SECONDS in all (looking the host up,
    connecting, sending, and the answer's status line and headers; its body is not read):
    (the status code, "") when the receiver answered, (None, why) when it did not. Whatever
    goes wrong, a deadline, a refused address, a broken answer, is a failed attempt."""
    try:
        return _loop().run_until_complete(_post_within_deadline(url, headers, body)), ""
    except TimeoutError:
        return None, f"no answer within {settings.WEBHOOK_TIMEOUT_SECONDS:g} s"
    except Exception as failure:
        reason = str(failure) or type(failure).__name__
        return None, f"{type(failure).__name__}: {reason}"[:300]


async def _post_within_deadline(url: str, headers: dict[str, str], body: bytes) -> int:
    async with asyncio.timeout(settings.WEBHOOK_TIMEOUT_SECONDS):
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        # Looked up once, here, and connected to by address: a name that answers a public
        # address to the check and a private one to the connection (DNS rebinding) gets
        # nowhere. The receiver still sees its own name, in Host and in TLS's SNI.
        look_up = resolve if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES else public_addresses
        loop = asyncio.get_running_loop()
        addresses = await loop.run_in_executor(_RESOLVER, look_up, host)
        address = addresses[0]
        literal = f"[{address}]" if address.version == 6 else str(address)
        port = f":{parts.port}" if parts.port else ""
        pinned = urllib.parse.urlunsplit(parts._replace(netloc=literal + port))
        extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
        async with httpx.AsyncClient(
            verify=_TLS, trust_env=False, follow_redirects=False, timeout=None
        ) as client:
            request = client.build_request(
                "POST", pinned, content=body, extensions=extensions,
                headers={**headers, "Host": parts.netloc},
            )
            # A redirect is the receiver's answer (a failed attempt), not an address to go to.
            response = await client.send(request, stream=True)
            await response.aclose()
            return response.status_code


def _loop() -> asyncio.AbstractEventLoop:
    """This thread's event loop for its posts, kept: making and closing one a post cost as much
    CPU as a third of the post itself (a drain after an outage is CPU-bound)."""
    loop: asyncio.AbstractEventLoop | None = getattr(_threads, "loop", None)
    if loop is None or loop.is_closed():
        loop = _threads.loop = asyncio.new_event_loop()
    return loop


_threads = threading.local()
# Built once per process: loading the certificate store takes milliseconds.
_TLS = ssl.create_default_context()
# Look-ups run here, not on the event loop's default executor: `asyncio.run` waits for that
# one at its end, so a name server that never answers would outlast the deadline.
_RESOLVER = concurrent.futures.ThreadPoolExecutor(max_workers=8,
                                                  thread_name_prefix="webhook-lookups")
