"""A seated person's transcripts of games played with real cards: upload the record, or build it step by step;
confirm or dispute.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path


def not_built_yet(request: HttpRequest, **kwargs: object) -> HttpResponse:
    # A placeholder for issue 23's pages, so links to them resolve while they are built.
    raise Http404("not built yet")


urlpatterns: list[URLPattern] = [
    path("play/matches/<int:match_id>/transcripts/", not_built_yet, name="match-transcripts"),
]
