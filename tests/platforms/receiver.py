"""A webhook receiver on loopback, as a platform runs one: it verifies each delivery's
signature with the standardwebhooks library and keeps what it got. Runs in a thread of the
tests (`Receiver`), or as its own process (``python -m tests.platforms.receiver PORT FILE
SECRET... [--answer-after SECONDS]``, `ReceiverProcess`): one the integration test kills and
starts again, one whose work is not counted as the service's (loadtest/fairness.py)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
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
        # Keeps its connections, as receivers do: a backlog comes over a few of them.
        protocol_version = "HTTP/1.1"

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
                      "body": json.loads(body), "at": received,
                      "connection": list(self.client_address)}
            got.append(record)
            if out is not None:
                with out.open("a") as lines:
                    lines.write(json.dumps(record) + "\n")
            self.send_response(status)
            self.send_header("Content-Length", "0")
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


class ReceiverProcess:
    """In a process of its own on ``port``, verifying with ``secrets``, answering 204 after
    ``answer_after`` seconds: ``url``, and what it ``got()`` so far (read from ``out``)."""

    def __init__(self, port: int, out: Path, secrets: Iterable[str],
                 answer_after: float = 0.0) -> None:
        self.url = f"http://127.0.0.1:{port}/hooks"
        self._out = out
        self._read = 0
        self._got: list[dict[str, Any]] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.platforms.receiver", str(port), str(out), *secrets,
             "--answer-after", str(answer_after)],
            cwd=Path(__file__).resolve().parents[2],
        )
        from tests.integration.harness.stack import wait_until

        wait_until(lambda: listening(port), 10, "the webhook receiver")

    def got(self) -> list[dict[str, Any]]:
        if self._out.exists():
            with self._out.open() as lines:
                lines.seek(self._read)
                for line in lines:
                    if not line.endswith("\n"):
                        break  # (being written)
                    self._read += len(line.encode())
                    self._got.append(json.loads(line))
        return self._got

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()


def listening(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("secrets", nargs="+")
    parser.add_argument("--answer-after", type=float, default=0.0)
    args = parser.parse_args()

    def answer(body: dict[str, Any]) -> int:
        time.sleep(args.answer_after)
        return 204

    secrets = {str(index): secret for index, secret in enumerate(args.secrets)}
    server = ThreadingHTTPServer(("127.0.0.1", args.port),
                                 handler(secrets, [], [], args.out, decide=lambda: answer))
    server.serve_forever()


if __name__ == "__main__":
    main()
