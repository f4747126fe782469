"""A bot author's pages: my bots, a new bot, its versions (upload, HTTP endpoint, built-in), logs, retiring."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def bots_page(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("bots/", bots_page, name="bots"),
]
