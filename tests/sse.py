"""Reading Server-Sent Events as a client does (the WHATWG event-stream format)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass
class Message:
    event: str  # "message" when the frame names none; "comment" for a comment line
    id: str | None
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


def messages(lines: Iterable[str]) -> Iterator[Message]:
    """The messages of a stream given line by line (without line ends), comments included."""
    event, last_id, data = "", None, []
    for line in lines:
        if line == "":
            if data or event:
                yield Message(event or "message", last_id, "\n".join(data))
            event, data = "", []
        elif line.startswith(":"):
            yield Message("comment", last_id, line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
            elif name == "id":
                last_id = value
            elif name == "retry":
                yield Message("retry", last_id, value)


def parse(body: bytes) -> list[Message]:
    return list(messages(body.decode().split("\n")))


class Follower:
    """An app following a match's stream over HTTP, as EventSource would."""

    def __init__(self, base: str, match_id: str, token: str, last_event_id: str | None = None,
                 timeout: float = 10, scheme: str = "Token", path: str | None = None) -> None:
        import http.client
        from urllib.parse import urlsplit

        url = urlsplit(base)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
        # `scheme` "Api-Key": a partner platform's key follows its own match.
        headers = {"Authorization": f"{scheme} {token}", "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        # ``path``: another stream than the match's (a platform's).
        self.connection.request("GET", path or f"/api/v1/matches/{match_id}/stream",
                                headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status

    def lines(self) -> Iterator[str]:
        while line := self.response.readline():
            yield line.decode().rstrip("\r\n")

    def __iter__(self) -> Iterator[Message]:
        return messages(self.lines())

    def close(self) -> None:
        self.connection.close()


class Listening(threading.Thread):
    """A follower in a thread of its own: every message until the stream ends."""

    def __init__(self, base: str, match_id: str, token: str, **kwargs: Any) -> None:
        super().__init__(daemon=True)
        self.follower = Follower(base, match_id, token, **kwargs)
        self.got: list[Message] = []
        self.start()

    def run(self) -> None:
        for message in self.follower:
            self.got.append(message)

    def actions(self) -> list[dict[str, Any]]:
        return [message.json() for message in self.got if message.event == "action"]

    def ended(self) -> bool:
        return bool(self.got) and self.got[-1].event == "end"
