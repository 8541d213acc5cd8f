"""The front page at `/` (where to go from the service's address) and its icon."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

# A white spade on the table's green: the page's, the browser table's and the admin's icon.
ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
    '<rect width="64" height="64" rx="12" fill="#0f5132"/>'
    '<path fill="#f8f9fa" d="M32 8C22 20 9 28 9 39a10 10 0 0 0 19 5l-4 12h16l-4-12a10 10 0 0 '
    '0 19-5C55 28 42 20 32 8z"/></svg>'
)


@require_safe
def front_page(request: HttpRequest) -> HttpResponse:
    """Links to the table, the API's reference and root, the guides and the status."""
    return render(request, "front.html", {
        "api_root": reverse("games:api-root"), "docs_url": settings.DOCS_URL,
    })


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(ICON, content_type="image/svg+xml")
