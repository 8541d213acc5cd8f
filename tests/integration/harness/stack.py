"""The scaled-out form as processes on this machine: Redis, gunicorn, Celery worker and beat.

The load benchmark and the integration tests start what they need with `Stack`, all pointed at
one PostgreSQL database and one Redis, on loopback only, and stop it all at the end. Every
process runs in a session of its own, so that killing one (SIGKILL included, as a crash would)
takes its children with it and nothing else.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

from celery import Celery

ROOT = Path(__file__).resolve().parents[3]
METRICS_TOKEN = "integration-metrics"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {seconds:.0f} s")
        time.sleep(0.1)


def redis_answers(url: str) -> bool:
    import redis

    try:
        with redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5) as client:
            return bool(client.ping())
    except redis.RedisError:
        return False


def production_env(database_url: str, redis_url: str, **overrides: str) -> dict[str, str]:
    """The environment of a production deployment on loopback, without a TLS proxy in front."""
    queue = f"batak-{secrets.token_hex(4)}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "batak_api.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        # A queue of its own, so that runs side by side on one Redis never take each other's
        # tasks.
        "CELERY_QUEUE": queue,
        "WEBHOOK_QUEUE": f"{queue}-webhooks",
        "ANALYSIS_QUEUE": f"{queue}-analysis",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_NUM_PROXIES": "0",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        # The tests follow a finished match's stream to its `end`, and no further (a test of
        # what follows the end sets it).
        "STREAM_AFTER_END_SECONDS": "0",
        # Metrics as the image serves them (batak_api/metrics.py): each server's processes
        # summed, the web's behind this token, a worker's on a port of its own.
        "METRICS_TOKEN": METRICS_TOKEN,
    }
    env.update(overrides)
    return env


class Stack:
    """Processes started with one environment; ``logs`` holds one file per process and
    ``urls`` the base URL of each web process."""

    def __init__(self, env: Mapping[str, str], logs: Path) -> None:
        self.env = dict(env)
        self.logs = logs
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.urls: dict[str, str] = {}
        # The base URL of each Celery worker's metrics.
        self.metrics_urls: dict[str, str] = {}
        logs.mkdir(parents=True, exist_ok=True)

    # --- processes -----------------------------------------------------------------------------

    def start(self, name: str, command: list[str], **env: str) -> subprocess.Popen[bytes]:
        if name in self.processes and self.processes[name].poll() is None:
            raise RuntimeError(f"{name} is already running")
        # Each server's processes keep their metrics in a folder of its own, as each container
        # of the compose form has.
        metrics = self.logs / "metrics" / name
        metrics.mkdir(parents=True, exist_ok=True)
        with (self.logs / f"{name}.log").open("ab") as log:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env={**self.env, "PROMETHEUS_MULTIPROC_DIR": str(metrics), **env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes[name] = process
        return process

    def kill(self, name: str, sig: signal.Signals = signal.SIGKILL) -> None:
        """Send ``sig`` to the process and all its children (its session), and reap it."""
        process = self.processes[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        process.wait(timeout=30)

    def pause(self, name: str) -> None:
        os.killpg(self.processes[name].pid, signal.SIGSTOP)

    def resume(self, name: str) -> None:
        os.killpg(self.processes[name].pid, signal.SIGCONT)

    def stop(self, name: str) -> None:
        process = self.processes[name]
        if process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
            # A paused process would never see the SIGTERM.
            os.killpg(process.pid, signal.SIGCONT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill(name)

    def stop_all(self) -> None:
        for name in reversed(list(self.processes)):
            self.stop(name)

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.logs / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    # --- the service's parts -------------------------------------------------------------------

    def start_redis(self, name: str = "redis", port: int | None = None) -> str:
        """A Redis of our own (which a test may kill); returns its URL."""
        server = shutil.which("redis-server")
        if server is None:
            raise FileNotFoundError("redis-server is not installed")
        port = port or free_port()
        self.start(name, [server, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                          "--appendonly", "no"])
        url = f"redis://127.0.0.1:{port}/0"
        wait_until(lambda: redis_answers(url), 10, f"{name} answering on {port}")
        return url

    def start_web(
        self, name: str = "web", workers: int = 2, threads: int = 16, **env: str
    ) -> str:
        """gunicorn with the image's configuration; returns its base URL."""
        port = free_port()
        self.start(
            name,
            [sys.executable, "-m", "gunicorn", "-c", "python:batak_api.gunicorn_conf"],
            GUNICORN_BIND=f"127.0.0.1:{port}",
            WEB_CONCURRENCY=str(workers),
            GUNICORN_THREADS=str(threads),
            **env,
        )
        url = f"http://127.0.0.1:{port}"
        self._wait_alive(name, lambda: _answers(f"{url}/healthz"), f"{name} answering /healthz")
        self.urls[name] = url
        return url

    def start_stream(self, name: str = "stream", workers: int = 1, **env: str) -> str:
        """The live streams' ASGI process, as compose.yaml runs it; returns its base URL."""
        port = free_port()
        self.start(name, [sys.executable, "-m", "batak_api.stream_server"],
                   STREAM_BIND=f"127.0.0.1:{port}", STREAM_WORKERS=str(workers), **env)
        url = f"http://127.0.0.1:{port}"
        self._wait_alive(name, lambda: _answers(f"{url}/healthz"), f"{name} answering /healthz")
        self.urls[name] = url
        return url

    def start_worker(self, name: str = "worker", concurrency: int = 2, **env: str) -> None:
        """A Celery worker of the computer players (and every task but webhooks')."""
        self._start_celery_worker(
            name, [sys.executable, "-m", "celery", "-A", "batak_api", "worker",
                   "--pool", "prefork", "--concurrency", str(concurrency)], **env)

    def start_webhook_worker(self, name: str = "webhooks", **env: str) -> None:
        """The webhook workers, on their own queue, as compose.yaml runs them."""
        self._start_celery_worker(name, [sys.executable, "-m", "batak_api.webhook_worker"],
                                  **env)

    def start_analysis_worker(self, name: str = "analysis", **env: str) -> None:
        """The post-deal analysis worker, on its own queue, as compose.yaml runs it."""
        self._start_celery_worker(
            name, [sys.executable, "-m", "celery", "-A", "batak_api", "worker", "--queues",
                   self.env["ANALYSIS_QUEUE"], "--pool", "prefork", "--concurrency", "1"],
            **env)

    def _start_celery_worker(self, name: str, command: list[str], **env: str) -> None:
        node = f"{name}-{secrets.token_hex(3)}@{socket.gethostname()}"
        port = free_port()
        self.start(
            name,
            [*command, "--hostname", node, "--loglevel", "INFO",
             # No chatter with other workers on the same Redis (other test runs).
             "--without-mingle", "--without-gossip"],
            **{"METRICS_PORT": str(port), **env},
        )
        self.metrics_urls[name] = f"http://127.0.0.1:{port}"
        broker = env.get("REDIS_URL", self.env["REDIS_URL"])
        app = Celery(broker=broker)
        try:
            self._wait_alive(
                name, lambda: bool(app.control.ping([node], timeout=0.5)), f"{name} ready"
            )
        finally:
            app.close()

    def start_beat(self, name: str = "beat", **env: str) -> None:
        self.start(name, [sys.executable, "-m", "celery", "-A", "batak_api", "beat",
                          "--loglevel", "INFO"], **env)

    def _wait_alive(self, name: str, check: Callable[[], bool], what: str) -> None:
        def ready() -> bool:
            if self.processes[name].poll() is not None:
                raise RuntimeError(f"{name} exited:\n{self.log_tail(name)}")
            return check()

        try:
            wait_until(ready, 60, what)
        except TimeoutError as error:
            raise TimeoutError(f"{error}:\n{self.log_tail(name)}") from None


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False
