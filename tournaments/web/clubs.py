"""Clubs: the list, a club's page, and joining (a Join button, a request, an invitation link) and leaving."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def clubs_page(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("clubs/", clubs_page, name="clubs"),
]
