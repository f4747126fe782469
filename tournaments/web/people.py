"""username>/:A person's page: their results, rating history and head to head."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def person_page(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("players/<str:username>/", person_page, name="person"),
]
