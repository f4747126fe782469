"""A bot author's pages: my bots, a new bot, its versions (upload, HTTP endpoint, built-in), logs, retiring."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def not_built_yet(request: HttpRequest, **kwargs: object) -> HttpResponse:
    # A placeholder for issue 23's pages, so links to them resolve while they are built.
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("bots/", not_built_yet, name="bots"),
    path("bots/new/", not_built_yet, name="bot-new"),
    path("bots/<int:bot_id>/", not_built_yet, name="bot"),
    path("bots/<int:bot_id>/versions/new/", not_built_yet, name="bot-version-new"),
]
