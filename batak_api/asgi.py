"""ASGI entry point: the embedded default's server (`scripts/serve`, uvicorn) and, scaled out,
the process that serves the live streams.

Django gives every request a thread of its own for the request's whole life, to run its sync
middleware and view in; for a stream that lasts an hour that would be a thread per listener.
A stream's request therefore skips that: its middleware and view (the admission: token,
access, throttles) run in the process's one shared thread for such work, and the stream
itself runs on the event loop (games/api/streams.py).

Every request's body is read, and bounded, before Django sees the request (batak_api/limits.py).
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler

if TYPE_CHECKING:
    from batak_api.limits import BodyLimitASGI

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")

STREAM_PATH = re.compile(r"/api/v1/matches/[^/]+/stream")


# ASGI's callables, as django-stubs types them for ASGIHandler.
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


class StreamingASGIHandler(ASGIHandler):
    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and STREAM_PATH.fullmatch(scope["path"]):
            # Without a ThreadSensitiveContext, asgiref sends sync code to its one shared
            # thread instead of a new thread for this request.
            await self.handle(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def _application() -> BodyLimitASGI:
    from batak_api.tracing import configure

    # Before Django loads the middleware: traces of its requests need the instrumentation's.
    # Each of the stream server's processes imports this module: each traces on its own.
    configure()
    get_asgi_application()  # sets Django up, as Django's own entry point does
    from django.conf import settings

    from batak_api.limits import BodyLimitASGI
    from games.computer_players import warm_up_if_in_process
    from runtime.work import AfterAnswerASGI

    warm_up_if_in_process()

    handler: ASGIHandler = StreamingASGIHandler()
    if settings.DEBUG:
        # The development server's static files (the admin's, the API docs'), as runserver
        # serves them; in production WhiteNoise does.
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        handler = ASGIStaticFilesHandler(handler)
    # A person's move is answered before the quick computer players' round after it, which
    # the request then plays (runtime/work.py), as under gunicorn (batak_api/wsgi.py).
    return BodyLimitASGI(AfterAnswerASGI(handler))


application = _application()

# The garbage collector's full pass stops the event loop for as long as it takes to walk every
# object. Everything loaded so far lives as long as the process: frozen, it is never walked
# again. Each open stream keeps a few hundred objects (its request, response, tasks), and with
# 1,000 streams a full pass still took 0.2-0.4 s (0.9 s unfrozen); streams make few reference
# cycles (reference counts free the rest), so full passes can be rare: one per 700 x 10 x 200
# net allocations instead of 700 x 10 x 10. Set here, so every uvicorn worker process has it.
GC_THRESHOLDS = (700, 10, 200)
gc.collect()
gc.freeze()
gc.set_threshold(*GC_THRESHOLDS)
