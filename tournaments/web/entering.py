"""A member's buttons on a competition: enter and leave; on a challenge ladder challenge, accept, decline and
withdraw.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def not_built_yet(request: HttpRequest, **kwargs: object) -> HttpResponse:
    # A placeholder for issue 23's pages, so links to them resolve while they are built.
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("competitions/<int:competition_id>/enter/", not_built_yet, name="competition-enter"),
    path("competitions/<int:competition_id>/leave/", not_built_yet, name="competition-leave"),
    path("competitions/<int:competition_id>/challenges/", not_built_yet, name="competition-challenge"),
    path("challenges/<int:challenge_id>/<str:decision>/", not_built_yet, name="challenge-decide"),
]
