"""A webhook receiver on loopback, as a platform runs one: it verifies each delivery's
signature with the standardwebhooks library and keeps what it got. Runs in a thread of the
tests (`Receiver`), or as its own process (``python -m tests.platforms.receiver PORT FILE
SECRET``) that the integration test kills and starts again."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

# Given each body, the status to answer (when ``answers`` has none left).
Decide = Callable[[dict[str, Any]], int]


def handler(secrets: dict[str, str], got: list[dict[str, Any]], answers: list[int],
            out: Path | None = None,
            decide: Callable[[], Decide | None] = lambda: None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received = time.monotonic()
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {name.lower(): value for name, value in self.headers.items()}
            rule = decide()
            status = answers.pop(0) if answers else rule(json.loads(body)) if rule else 204
            valid = False
            for secret in secrets.values():
                try:
                    Webhook(secret).verify(body, headers)
                    valid = True
                except WebhookVerificationError:
                    continue
            record = {"id": headers.get("webhook-id"), "valid": valid, "status": status,
                      "body": json.loads(body), "at": received}
            got.append(record)
            if out is not None:
                with out.open("a") as lines:
                    lines.write(json.dumps(record) + "\n")
            self.send_response(status)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


class Receiver:
    """In a thread: ``url``, what it ``got`` (with the monotonic time it came ``at``), and
    ``answers`` (statuses to give, in turn), then ``decide`` (a status from the body), if
    set."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}
        self.got: list[dict[str, Any]] = []
        self.answers: list[int] = []
        self.decide: Decide | None = None
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler(
            self.secrets, self.got, self.answers, decide=lambda: self.decide))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def unique(self) -> dict[str, dict[str, Any]]:
        """What was received, deduplicated on `webhook-id` (the accepted copy)."""
        return {r["id"]: r for r in self.got if 200 <= r["status"] < 300}


def main() -> None:
    port, out, secret = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    server = ThreadingHTTPServer(("127.0.0.1", port), handler({"s": secret}, [], [], out))
    server.serve_forever()


if __name__ == "__main__":
    main()
