"""An organiser's pages for their club, with no staff rights: a new club, its settings, members and roles,
invitation links, join requests.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def not_built_yet(request: HttpRequest, **kwargs: object) -> HttpResponse:
    # A placeholder for issue 23's pages, so links to them resolve while they are built.
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("clubs/<slug:slug>/settings/", not_built_yet, name="club-settings"),
    path("clubs/<slug:slug>/members/", not_built_yet, name="club-members"),
    path("clubs/<slug:slug>/invitations/", not_built_yet, name="club-invitations"),
    path("clubs/<slug:slug>/requests/", not_built_yet, name="club-requests"),
]
