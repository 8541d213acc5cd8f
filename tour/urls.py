"""Routes of the Tour of Tables, under /api/v1/tour/."""

from django.urls import URLPattern, path

from tour.api import views

app_name = "tour"

urlpatterns: list[URLPattern] = [
    path("tables", views.TourTablesView.as_view(), name="tables"),
    path("tables/<slug:table>", views.TourTableView.as_view(), name="table"),
    path("tables/<slug:table>/start", views.StartTableView.as_view(), name="start"),
    path("matches/<uuid:match_id>", views.TourMatchView.as_view(), name="match"),
]
