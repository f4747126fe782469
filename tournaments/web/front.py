"""The front page: what the club site is for a visitor, and what needs a signed-in member."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def home_page(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("", home_page, name="home"),
]
