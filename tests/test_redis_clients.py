"""One Redis client per process, URL and options: shared by threads and by the cache's
instances (one per thread), never across a fork."""

from __future__ import annotations

import os
import threading

import redis

from batak_api.cache import FailOpenRedisCache
from runtime import redis_clients

# Nothing listens there: these tests make clients, never connections.
URL = "redis://127.0.0.1:1/0"


def test_threads_share_one_client_per_url_and_options() -> None:
    mine = redis_clients.client(URL, socket_timeout=0.5)
    theirs: list[redis.Redis] = []
    thread = threading.Thread(
        target=lambda: theirs.append(redis_clients.client(URL, socket_timeout=0.5))
    )
    thread.start()
    thread.join()
    assert theirs[0] is mine
    assert redis_clients.client(URL, socket_timeout=1.0) is not mine


def test_the_caches_of_every_thread_use_the_process_client() -> None:
    params = {"OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}
    one, other = FailOpenRedisCache(URL, params), FailOpenRedisCache(URL, params)
    client = one._cache.get_client()
    assert one._cache.get_client(write=True) is client
    assert other._cache.get_client() is client
    assert client is redis_clients.client(URL, socket_connect_timeout=0.5, socket_timeout=0.5)


def test_a_forked_child_makes_its_own_client() -> None:
    parents = redis_clients.client(URL)
    pid = os.fork()
    if pid == 0:  # the child: a client of its own, kept for its own later calls
        child = redis_clients.client(URL)
        os._exit(0 if child is not parents and redis_clients.client(URL) is child else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
