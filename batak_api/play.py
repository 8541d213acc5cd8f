"""The reference web client at /play/: one HTML file (its script and styles inline) built from
web/ by esbuild and committed, so serving it takes Python only (docs/play.md)."""

import base64
import hashlib
import re
from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import condition, require_safe

PAGE = settings.BASE_DIR / "web" / "dist" / "play.html"


@cache
def _page() -> tuple[bytes, str, str]:
    """The page, its ETag and its Content-Security-Policy. Read once per process: the file
    changes only with a deploy, which restarts the process."""
    content = PAGE.read_bytes()
    return content, hashlib.sha256(content).hexdigest()[:16], _policy(content)


def _policy(page: bytes) -> str:
    """Only the page's own inline script and styles run (by their hashes), and it talks only to
    this service: the page keeps a person's token, so no injected script or frame may run
    beside it."""

    def hashes(tag: bytes) -> str:
        found = re.findall(rb"<%s>(.*?)</%s>" % (tag, tag), page, flags=re.DOTALL)
        return " ".join(
            f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
            for body in found
        )

    return (
        f"default-src 'none'; script-src {hashes(b'script')}; style-src {hashes(b'style')}; "
        "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    )


@require_safe
@condition(etag_func=lambda request: _page()[1])
def play(request: HttpRequest) -> HttpResponse:
    """The client's page; a browser asks again each visit (no-cache) and gets 304 while it is
    the same build."""
    response = HttpResponse(_page()[0], content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["Content-Security-Policy"] = _page()[2]
    return response
