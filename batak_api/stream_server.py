"""The live streams' ASGI server, scaled out: `python -m batak_api.stream_server`.

uvicorn serving batak_api/asgi.py, configured like gunicorn from the environment: it binds
STREAM_BIND (default 0.0.0.0:8001) and runs STREAM_WORKERS processes (default 1; each holds
thousands of idle streams, so one per core at most). A proxy in front sends it the requests
for `/api/v1/matches/{id}/stream` (see deploy/nginx.conf); it answers any other request too.
"""

import os

import uvicorn


def main() -> None:
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
        # Open streams are cut after this on a stop; their clients resume with Last-Event-ID.
        timeout_graceful_shutdown=5,
    )


if __name__ == "__main__":
    main()
