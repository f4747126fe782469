"""Clubs: the list, a club's page, and joining (a Join button, a request, an invitation link) and leaving."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def not_built_yet(request: HttpRequest, **kwargs: object) -> HttpResponse:
    # A placeholder for issue 23's pages, so links to them resolve while they are built.
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("clubs/", not_built_yet, name="clubs"),
    path("clubs/new/", not_built_yet, name="club-new"),
    path("clubs/<slug:slug>/", not_built_yet, name="club"),
    path("clubs/<slug:slug>/join/", not_built_yet, name="club-join"),
    path("clubs/<slug:slug>/leave/", not_built_yet, name="club-leave"),
    path("invitations/<str:code>/", not_built_yet, name="invitation"),
]
