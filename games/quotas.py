"""What one account may hold or send at once (games/api/quotas.py applies them): its own
module, with no import of the API's, so that a credential's model can name it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quotas:
    """What one account may hold or send: requests a window (none: no bound), requests in
    flight in one server process, live streams and long polls across the service."""

    requests: tuple[int, int] | None
    requests_in_flight: int
    streams: int
    long_polls: int
