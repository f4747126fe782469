"""503 while PostgreSQL (or Redis, where it is still needed) cannot be reached; JSON errors on the API.

What a client gets (docs/deploy.md, "When Redis or PostgreSQL is away"):

- an outage (config/outages.py: the database's OperationalError or InterfaceError, Redis's connection
  errors): ``503 Service Unavailable`` with ``Retry-After``, as ``{"detail": ...}`` under /api/ and as
  the site's own page elsewhere (templates 503.html). Nothing else is taken for one: a bug stays a 500;
- any other error under /api/: ``500`` as ``{"detail": ...}``, not Django's HTML page. Django still
  logs it, with its traceback, and sends its got_request_exception signal.

The middleware answers what a view raised, and logs one warning when an outage begins (not one per
request). :func:`server_error`, Django's handler500, answers the rest, such as an error in a middleware
(the session saved after the view), where Django has already logged it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.template import loader

from config.outages import REDIS_DOWN, Outage, is_outage

#: Seconds a client is asked to wait before trying again: a restart of PostgreSQL or Redis takes a few.
RETRY_AFTER = 5

AWAY = Outage("the database (or Redis, where a request needs it)", "requests answer 503 with Retry-After")


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def unavailable(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """The 503 for an outage: JSON under /api/, the site's page elsewhere, with Retry-After either way."""
    what = "the club's queue and cache" if isinstance(exc, REDIS_DOWN) else "the club's database"
    response: HttpResponse
    if is_api(request):
        detail = f"The service is briefly unavailable: {what} cannot be reached. Try again in {RETRY_AFTER} seconds."
        response = JsonResponse({"detail": detail}, status=503)
    else:
        # Rendered without the request: its context processors would ask the database who is signed in.
        page = loader.render_to_string("503.html", {"retry_after": RETRY_AFTER})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


class ServiceUnavailableMiddleware:
    """Answers 503 for an outage a view raised (DRF's views included: their handler leaves these to us)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if response.status_code < 500:
            AWAY.succeeded()  # logs once, if an outage had been logged
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_outage(exception):
            return None  # a bug: Django logs it and answers 500 (server_error)
        AWAY.failed(exception)
        response = unavailable(request, exception)
        # Django logs every 5xx answer at ERROR; the outage has had its one warning (AWAY), and a line for
        # each request while it lasts would bury it. _has_been_logged is how Django marks one it logged.
        response._has_been_logged = True  # type: ignore[attr-defined]
        return response


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's handler500: called while the error is being handled, so sys.exc_info() names it."""
    exc = sys.exc_info()[1]
    if exc is not None and is_outage(exc):
        return unavailable(request, exc)
    if is_api(request):
        detail = "Server error: something went wrong on our side. It has been logged; please try again later."
        return JsonResponse({"detail": detail}, status=500)
    return HttpResponse(loader.render_to_string("500.html"), status=500)
