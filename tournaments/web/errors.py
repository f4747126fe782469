"""The site's own pages for a page that is not there (404) and one a person may not see (403).

Django's handlers cover these when DEBUG is off. With DEBUG on (the default ``make run``, for developers)
Django answers an unknown address with its debug page, which lists every route: not a page for a
visitor. ``SitePagesMiddleware`` answers such 404s with the site's own page instead, whatever DEBUG says.
The API keeps its JSON answers and the admin site its own pages.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template import loader

#: Addresses whose 404s are someone else's: the API answers JSON, the admin site and static files their own.
OWN_ANSWERS = ("/api/", "/admin/", "/static/")


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's handler404, and the middleware's page for any other 404 of the site."""
    response = HttpResponse(loader.render_to_string("404.html", request=request), status=404)
    response.site_page = True  # type: ignore[attr-defined]  # so the middleware leaves it alone
    return response


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's handler403: the refusal's reason, if it gave one a person can read."""
    reason = str(exception) if exception is not None and str(exception) else ""
    page = loader.render_to_string("403.html", {"reason": reason}, request=request)
    return HttpResponse(page, status=403)


class SitePagesMiddleware:
    """Puts the site's 404 page in place of Django's debug page (or a bare 404) for the site's addresses.

    Outermost but the security middleware, so that CommonMiddleware has already tried ``/clubs`` as
    ``/clubs/`` (its redirect is not a 404) before this looks at the answer.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if (
            response.status_code == 404
            and not getattr(response, "site_page", False)
            and not request.path_info.startswith(OWN_ANSWERS)
        ):
            return page_not_found(request)
        return response
