"""Routes of the games API, mounted under /api/v1/."""

from django.urls import URLPattern, URLResolver

app_name = "games"

urlpatterns: list[URLPattern | URLResolver] = []
