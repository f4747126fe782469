"""Request rates (docs/deploy.md, "Request rates"): DRF's throttles, counted in the shared cache.

Each class is one scope of settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]. The rate is read
per request, not once at import as DRF's own classes do, so a changed setting takes effect at once.
A throttled request gets 429 with Retry-After (DRF's Throttled).

Rates fail open: while the cache cannot be reached nothing is counted and every request is let
through (config/cache.py logs that once), as losing Redis must not stop the club playing.
"""

from __future__ import annotations

import hashlib
import math
import time
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from django.contrib import messages
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from config.cache import CacheUnavailable

if TYPE_CHECKING:
    # Only for the hints: rest_framework.views reads DEFAULT_THROTTLE_CLASSES, this module, when it loads.
    from rest_framework.views import APIView

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class _Throttle(BaseThrottle):
    """A fixed window per scope and client, counted with the cache's atomic increment.

    DRF's SimpleRateThrottle reads a list of times, appends and writes it back: requests racing in
    parallel each read the same list, and a burst of 16 at a time got far more than the rate.
    """

    scope = ""

    def __init__(self) -> None:
        self._wait = 0.0

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        raise NotImplementedError

    def _window(self, request: Request, view: APIView | None) -> _Window | None:
        """This request's counter, or None if the scope has no rate or does not count this request."""
        # Rates are "N/period" strings or None; djangorestframework-stubs types this setting's values as numbers.
        rate = cast("str | None", api_settings.DEFAULT_THROTTLE_RATES.get(self.scope))
        ident = self.get_cache_key(request, view) if rate else None
        if rate is None or ident is None:
            return None
        count, _, period = rate.partition("/")
        seconds = _PERIODS[period[0]]
        now = time.time()
        window = int(now // seconds)
        return _Window(f"throttle:{self.scope}:{ident}:{window}", int(count), seconds, (window + 1) * seconds - now)

    def allow_request(self, request: Request, view: APIView | None) -> bool:
        counter = self._window(request, view)
        if counter is None:
            return True
        try:
            made = counter.count()
        except CacheUnavailable:
            return True  # fail open: the cache logged that it is away
        if made <= counter.limit:
            return True
        self._wait = counter.left
        return False

    def wait(self) -> float | None:
        return self._wait


class _Window:
    """One scope's counter for one client in the current fixed window."""

    def __init__(self, key: str, limit: int, seconds: int, left: float) -> None:
        self.key, self.limit, self.seconds, self.left = key, limit, seconds, left

    def count(self) -> int:
        """Count one more; the number counted in this window. CacheUnavailable if the cache is away."""
        # The window's number is in the key, so a counter is never read after its window; the margin
        # keeps it alive for a request that computed the window just before the boundary.
        cache.add(self.key, 0, timeout=self.seconds + 60)
        try:
            return cache.incr(self.key)
        except ValueError:  # evicted between add and incr
            cache.add(self.key, 1, timeout=self.seconds + 60)
            return 1


class AnonymousReadThrottle(_Throttle):
    """Reads by anyone not signed in, per client address."""

    scope = "anon_read"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        if request.user.is_authenticated or request.method not in SAFE_METHODS:
            return None
        return self.get_ident(request)


class UserWriteThrottle(_Throttle):
    """Writes by a signed-in user, per user: every POST, PATCH, PUT and DELETE of the API but moves at live
    tables (MoveRefusedThrottle)."""

    scope = "user_write"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        if not request.user.is_authenticated or request.method in SAFE_METHODS:
            return None
        return str(request.user.pk)


class MoveRefusedThrottle(_Throttle):
    """Refused and replayed moves at live tables, per user (``POST /api/matches/{id}/moves/``).

    A legal move is never refused by a rate: a fast game of Banter is hundreds of moves in a few minutes,
    and the general write rate cut one off half-way (issue 21, finding 11). So nothing is checked before a
    move: the move is made, and only an answer that took nothing counts, once it is known (:meth:`refused`):
    a move refused as illegal, stale, out of turn, at a table the caller is not seated at, or at no match,
    and a ``client_move_id`` replayed (answered again, and a loop of them would cost the database for
    nothing). Past the rate, those answers, and only those, become 429 until the window ends.
    """

    scope = "move_refused"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        if not request.user.is_authenticated or request.method in SAFE_METHODS:
            return None
        return str(request.user.pk)

    def allow_request(self, request: Request, view: APIView | None) -> bool:
        # Listed on the view (so the schema says a move may get 429) but never consulted before a move.
        return True

    def refused(self, request: Request, view: APIView | None) -> float | None:
        """Count one refused or replayed move: the seconds to wait if it is past the rate, else None."""
        return None if super().allow_request(request, view) else self.wait()


class BotVersionThrottle(_Throttle):
    """New bot versions, per user: each upload or URL starts a validation match on a worker."""

    scope = "bot_version"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        return str(request.user.pk) if request.user.is_authenticated else self.get_ident(request)


class TrainingDataThrottle(_Throttle):
    """Downloads of a bot's training data, per user: each replays every game it sends, about a millisecond of a
    web worker's CPU a game, so a loop of whole downloads would hold workers for minutes at a time."""

    scope = "training_data"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        return str(request.user.pk) if request.user.is_authenticated else None


class LoginAddressThrottle(_Throttle):
    """Sign-in attempts from one client address, whatever the username (guessing across accounts)."""

    scope = "login"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        return self.get_ident(request)


class LoginUsernameThrottle(_Throttle):
    """Sign-in attempts at one username, from any address (guessing one account's password)."""

    scope = "login_username"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        username = _submitted_username(request)
        # Neither case, nor surrounding spaces, nor a look-alike that sign-in folds to the same name
        # (Django's username field applies NFKC: "ａlice" signs in as "alice") makes another account
        # to guess at. Hashed, as the username may be any text and of any length.
        folded = unicodedata.normalize("NFKC", username).strip().lower()
        return hashlib.sha256(folded.encode()).hexdigest() if username else None


def _submitted_username(request: Request) -> str:
    data = request.data
    if not isinstance(data, dict):  # a JSON body that is not an object: the view answers 400
        return ""
    value = data.get("username")
    # DRF's CharField takes a number as its text: {"username": 12345} is an attempt at user "12345".
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else ""


LOGIN_THROTTLES = (LoginAddressThrottle, LoginUsernameThrottle)


class RegisterThrottle(_Throttle):
    """Sign-ups from one client address (``POST /api/auth/register/`` and the /accounts/signup/ page):
    accounts made in bulk, and usernames probed for whether they are taken."""

    scope = "register"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        return self.get_ident(request)


def sign_up_wait(request: HttpRequest) -> int | None:
    """Counts a sign-up page's attempt under the register rate: None if allowed, else the seconds to wait."""
    throttle = RegisterThrottle()
    if throttle.allow_request(Request(request), None):
        return None
    return max(1, math.ceil(throttle.wait() or 0.0))


class CalendarFeedThrottle(_Throttle):
    """Fetches of one calendar feed from one client address. A calendar app asks every quarter hour or so; a
    loop, or a script walking tokens, is cut off without costing the database a feed each time."""

    scope = "calendar"

    def get_cache_key(self, request: Request, view: APIView | None) -> str | None:
        ident = self.get_ident(request)
        # Hashed: the path of a person's feed holds their private token, which must not sit in the cache's keys.
        return hashlib.sha256(f"{ident} {request.path}".encode()).hexdigest()


def calendar_feed_wait(request: HttpRequest) -> int | None:
    """Counts one fetch of a calendar feed under the calendar rate: None if allowed, else the seconds to wait."""
    throttle = CalendarFeedThrottle()
    if throttle.allow_request(Request(request), None):
        return None
    return max(1, math.ceil(throttle.wait() or 0.0))


class ThrottledLoginView(LoginView):
    """Django's login form (the web table's and the browsable API's) under the API's login rates.

    A throttled attempt is not checked at all: the form comes back with status 429, Retry-After,
    ``retry_after`` in the context and the error among the form's own.
    """

    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        seconds = sign_in_wait(request)
        if seconds is None:
            return super().post(request, *args, **kwargs)
        # Unbound, so that the password is never checked: binding would authenticate when the errors are read.
        form = self.get_form_class()(request, initial={"username": request.POST.get("username", "")})
        form.cleaned_data = {}  # what add_error expects of a form that was cleaned
        form.add_error(None, f"Too many sign-in attempts. Try again in {seconds} seconds.")
        response = self.render_to_response(self.get_context_data(form=form, retry_after=seconds))
        response.status_code = 429
        response["Retry-After"] = str(seconds)
        return response


def sign_in_wait(request: HttpRequest) -> int | None:
    """Counts a sign-in form's attempt under the login rates: None if allowed, else the seconds to wait."""
    drf_request = Request(request, parsers=[FormParser(), MultiPartParser()])
    throttles = [cls() for cls in LOGIN_THROTTLES]
    waits = [throttle.wait() or 0.0 for throttle in throttles if not throttle.allow_request(drf_request, None)]
    return max(1, math.ceil(max(waits))) if waits else None


def throttled_admin_login(login: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The admin site's own sign-in (``AdminSite.login``) under the login rates.

    Organisers and superusers sign in there, the accounts most worth guessing. A throttled attempt is
    not checked: the sign-in page comes back with the message, status 429 and Retry-After.
    """

    def guarded(request: HttpRequest, extra_context: dict[str, object] | None = None) -> HttpResponse:
        seconds = sign_in_wait(request) if request.method == "POST" else None
        if seconds is None:
            return login(request, extra_context)
        messages.error(request, f"Too many sign-in attempts. Try again in {seconds} seconds.")
        request.method = "GET"  # the page as a fresh visit shows it: the password is never looked at
        response = login(request, extra_context)
        response.status_code = 429
        response["Retry-After"] = str(seconds)
        return response

    return guarded
