"""The ratings' endpoints, under /api/v1/ beside the games' (batak_api/urls.py includes them
first: the games' URLs end with the API's catch-all 404)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
