"""The reference web client at /play/: one HTML file (its script and styles inline) built from
web/ by esbuild and committed, so serving it takes Python only (docs/play.md)."""

import hashlib
from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import condition, require_GET

PAGE = settings.BASE_DIR / "web" / "dist" / "play.html"


@cache
def _page() -> tuple[bytes, str]:
    # Read once per process: the file changes only with a deploy, which restarts the process.
    content = PAGE.read_bytes()
    return content, hashlib.sha256(content).hexdigest()[:16]


@require_GET
@condition(etag_func=lambda request: _page()[1])
def play(request: HttpRequest) -> HttpResponse:
    """The client's page; a browser asks again each visit (no-cache) and gets 304 while it is
    the same build."""
    response = HttpResponse(_page()[0], content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response
