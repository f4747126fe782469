"""An organiser's pages for a competition: a new one of any game and format from its format's settings, entrants,
start with a seeding order, cancel, retry, disputes.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def not_built_yet(request: HttpRequest, **kwargs: object) -> HttpResponse:
    # A placeholder for issue 23's pages, so links to them resolve while they are built.
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("clubs/<slug:slug>/competitions/new/", not_built_yet, name="competition-new"),
    path("competitions/<int:competition_id>/manage/", not_built_yet, name="competition-manage"),
]
