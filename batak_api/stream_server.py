"""The live streams' ASGI server, scaled out: `python -m batak_api.stream_server`.

uvicorn serving batak_api/asgi.py, configured like gunicorn from the environment: it binds
STREAM_BIND (default 0.0.0.0:8001) and runs STREAM_WORKERS processes (default 1; each holds
thousands of idle streams, so one per core at most). A proxy in front sends it the requests
for `/api/v1/matches/{id}/stream` (see deploy/nginx.conf); it answers any other request too.

Its own bounds, for a client that reaches it directly or past the proxy: h11 parses requests
(httptools, uvicorn's faster parser, takes a request head of any size: 50 MB of headers were
read into memory), and a request's head may be at most MAX_HEAD_BYTES; at most
MAX_CONNECTIONS connections at once (a 503 beyond, before the process runs out of file
descriptors); an idle connection between requests is closed after KEEP_ALIVE_SECONDS. Bodies are
bounded by the application (batak_api/limits.py). uvicorn has no deadline for a request's head:
a slow client costs a connection (no thread), and the proxy in front cuts it.
"""

import os

import uvicorn

# Larger than anything nginx passes on (4 KiB a line, 16 KiB in all, plus its own headers).
MAX_HEAD_BYTES = 32 * 1024
# Thousands of open streams, each a connection (a file descriptor: compose.yaml allows the
# process 16384).
MAX_CONNECTIONS = 10_000
KEEP_ALIVE_SECONDS = 5


def main() -> None:
    from batak_api.metrics import clear_processes

    clear_processes()
    host, _, port = os.environ.get("STREAM_BIND", "0.0.0.0:8001").rpartition(":")
    uvicorn.run(
        "batak_api.asgi:application",
        host=host,
        port=int(port),
        workers=int(os.environ.get("STREAM_WORKERS", "1")),
        # Our request log (batak_api/logs.py) is the access log; Django needs no lifespan.
        access_log=False,
        lifespan="off",
        server_header=False,
        http="h11",
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        # Open streams are cut after this on a stop; their clients resume with Last-Event-ID.
        timeout_graceful_shutdown=5,
    )


if __name__ == "__main__":
    main()
