"""The service's URLs plus the benchmark's baseline: a trivial authenticated endpoint that does
one database write, going through the same middleware, authentication, throttling and rendering
as a move, so that a move's cost can be given as a share of the framework's."""

from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, path
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from batak_api.urls import handler404, handler500
from batak_api.urls import urlpatterns as service_urlpatterns


class TouchView(APIView):
    def post(self, request: Request) -> Response:
        assert request.user.is_authenticated  # IsAuthenticated, the default permission
        get_user_model().objects.filter(pk=request.user.pk).update(last_login=timezone.now())
        return Response({"ok": True})


urlpatterns: list[URLPattern | URLResolver] = [
    path("loadtest/touch", TouchView.as_view()),
    *service_urlpatterns,
]

__all__ = ["handler404", "handler500", "urlpatterns"]
