"""Refuse a request body that is too big by its declared length, before anything reads it.

Django spools a multipart upload of any size to disk before a view can look at it, and DRF's JSON
parser reads the whole stream into memory: the declared length is the one check that comes first.
A body without a declared length reads as empty under WSGI, so it cannot get round this there. Under
ASGI (the live-table nodes, docs/deploy.md) Django reads the whole body before any middleware runs,
so there the proxy's limit (``client_max_body_size`` in the deploy guide's nginx) is what holds.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


class RequestSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit: int = settings.MAX_REQUEST_BYTES
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse({"detail": "Content-Length is not a number"}, status=400)
        if declared > limit:
            return JsonResponse(
                {"detail": f"the request body is {declared:,} bytes; at most {limit:,} are accepted"}, status=413
            )
        return self.get_response(request)
