"""Webhook receivers that misbehave, as an attacker's platform would run them: on a raw socket,
so that they can answer what no HTTP server library would. Runs in a thread of the tests
(`HostileReceiver`) or as its own process (``python -m tests.platforms.hostile MODE``, printing
its URL), for the scaled-out tests and the load bench.

Modes:
- ``trickle``: the status line, then one header line every TRICKLE_SECONDS, forever;
- ``silent``: reads the request and never answers;
- ``bad-status``: a status line that is not HTTP;
- ``huge-body``: 200 with a body of a gigabyte, sent as fast as the socket takes it;
- ``redirect``: 307 to ``target`` (a private address the service must not be taken to);
- ``gzip-bomb``: 200 with a short body, gzip twice over, that unpacks to 100 MB;
- ``cookie``: 204 setting a cookie on every answer, keeping the connection.
"""

from __future__ import annotations

import gzip
import socket
import sys
import threading
import time

TRICKLE_SECONDS = 0.5
MODES = ("trickle", "silent", "bad-status", "huge-body", "redirect", "gzip-bomb", "cookie")


class HostileReceiver:
    def __init__(self, mode: str, target: str = "") -> None:
        assert mode in MODES, mode
        self.mode = mode
        self.target = target
        self.requests = 0
        # Made before anything is sent: 100 MB of zeros, gzip twice over, is about 100 KB.
        self.bomb = (gzip.compress(gzip.compress(bytes(100_000_000)))
                     if mode == "gzip-bomb" else b"")
        # The head of each request it read.
        self.heads: list[bytes] = []
        # Connections being answered right now, and the most there ever were at once.
        self.open = 0
        self.most_open = 0
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0), backlog=128)
        self._server.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/hooks"
        threading.Thread(target=self._accept, daemon=True).start()

    def stop(self) -> None:
        self._stopped.set()
        self._server.close()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                connection, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with self._lock:
            self.requests += 1
            self.open += 1
            self.most_open = max(self.most_open, self.open)
        try:
            connection.settimeout(5)
            if self.mode == "cookie":
                while head := self._read_request(connection):  # kept: one after another
                    self.heads.append(head)
                    connection.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n"
                                       b"Set-Cookie: session=theirs; Path=/\r\n\r\n")
                return
            self.heads.append(connection.recv(65536).split(b"\r\n\r\n")[0])
            self._misbehave(connection)
        except OSError:
            pass  # the service hung up, as it should
        finally:
            with self._lock:
                self.open -= 1
            connection.close()

    def _misbehave(self, connection: socket.socket) -> None:
        if self.mode == "trickle":
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            while self._wait_for_hang_up(connection, TRICKLE_SECONDS):
                connection.sendall(b"X-Wait: a little longer\r\n")
        elif self.mode == "silent":
            self._wait_for_hang_up(connection, 60)
        elif self.mode == "bad-status":
            connection.sendall(b"I am not HTTP at all\r\n\r\n")
        elif self.mode == "huge-body":
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n")
            chunk = b"x" * 65536
            for _ in range(1000000000 // len(chunk)):
                if self._stopped.is_set():
                    return
                connection.sendall(chunk)
        elif self.mode == "gzip-bomb":
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip\r\n"
                               b"Content-Length: %d\r\n\r\n" % len(self.bomb) + self.bomb)
            self._wait_for_hang_up(connection, 5)
        elif self.mode == "redirect":
            connection.sendall(
                f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {self.target}\r\n"
                "Content-Length: 0\r\n\r\n".encode()
            )

    @staticmethod
    def _read_request(connection: socket.socket) -> bytes:
        """The next request's head (its body read and dropped), or b"" once hung up."""
        received = b""
        while b"\r\n\r\n" not in received:
            more = connection.recv(65536)
            if not more:
                return b""
            received += more
        head, body = received.split(b"\r\n\r\n", 1)
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            body += connection.recv(65536)
        return head

    def _wait_for_hang_up(self, connection: socket.socket, seconds: float) -> bool:
        """Wait ``seconds``; False as soon as the service hangs up (or the receiver stops)."""
        connection.settimeout(0.05)
        ends = time.monotonic() + seconds
        while time.monotonic() < ends and not self._stopped.is_set():
            try:
                if not connection.recv(65536):
                    return False
            except TimeoutError:
                continue
        return not self._stopped.is_set()


if __name__ == "__main__":
    receiver = HostileReceiver(sys.argv[1], *sys.argv[2:3])
    print(receiver.url, flush=True)
    while True:
        time.sleep(3600)
