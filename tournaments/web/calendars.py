"""Calendars: a person's private feed and its page (get, copy, renew or turn off the address), and a club's
public feed.

A calendar app fetches a feed with no sign-in: the person's address carries its own secret
(tournaments/calendar_tokens.py), shown on their own calendar page and nowhere else. An unknown or replaced
address is a plain 404, the same answer as an address that never existed.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from config.throttles import calendar_feed_wait
from tournaments.calendar_selectors import calendar_feed_owner, calendar_token_of, club_calendar, person_calendar
from tournaments.calendars import club_feed, person_feed, webcal_address
from tournaments.services.calendar_feeds import calendar_feed_renew, calendar_feed_revoke
from tournaments.web.clubs import club_of, me

#: How long a fetched feed may be kept by the app or a proxy: a match paired now shows within minutes.
FEED_MAX_AGE = 300


def _ics(body: bytes, filename: str, *, private: bool) -> HttpResponse:
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = f"{'private' if private else 'public'}, max-age={FEED_MAX_AGE}"
    if private:
        # A private address must never turn up in a search engine.
        response["X-Robots-Tag"] = "noindex, nofollow"
    return response


def _too_often(request: HttpRequest) -> HttpResponse | None:
    seconds = calendar_feed_wait(request)
    if seconds is None:
        return None
    response = HttpResponse(
        f"This calendar was fetched too often from your address. Try again in {seconds} seconds.\n",
        status=429,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(seconds)
    return response


@require_safe
def person_feed_view(request: HttpRequest, token: str) -> HttpResponse:
    if (refused := _too_often(request)) is not None:
        return refused
    player = calendar_feed_owner(token=token)
    if player is None:
        raise Http404("no calendar at this address")
    now = timezone.now()
    body = person_feed(
        player=player, calendar=person_calendar(player=player, now=now), link=request.build_absolute_uri, now=now
    )
    return _ics(body, "card-club.ics", private=True)


@require_safe
def club_feed_view(request: HttpRequest, slug: str) -> HttpResponse:
    if (refused := _too_often(request)) is not None:
        return refused
    club = club_of(slug)
    now = timezone.now()
    body = club_feed(calendar=club_calendar(club=club, now=now), link=request.build_absolute_uri, now=now)
    return _ics(body, f"{club.slug}.ics", private=False)


@never_cache
@login_required
def calendar_page(request: HttpRequest) -> HttpResponse:
    """The person's own address, with Copy, "Make a new link" and "Turn it off"; never cached, as it holds
    the address's secret."""
    token = calendar_token_of(player=me(request))
    address = request.build_absolute_uri(reverse("site:calendar-feed", args=[token])) if token else ""
    context = {
        "address": address,
        "webcal": webcal_address(address) if address else "",
    }
    return render(request, "site/calendars/calendar.html", context)


@login_required
@require_POST
def calendar_renew(request: HttpRequest) -> HttpResponse:
    had = calendar_token_of(player=me(request)) is not None
    calendar_feed_renew(player=me(request))
    messages.success(
        request,
        "Here is your new calendar link. The old one no longer works: subscribe again with this one."
        if had
        else "Here is your calendar link: add it to your calendar app.",
    )
    return redirect("site:calendar")


@login_required
@require_POST
def calendar_turn_off(request: HttpRequest) -> HttpResponse:
    if calendar_feed_revoke(player=me(request)):
        messages.success(request, "Your calendar link is turned off: calendar apps get nothing from it any more.")
    return redirect("site:calendar")


urlpatterns: list[URLPattern] = [
    path("calendar/", calendar_page, name="calendar"),
    path("calendar/new/", calendar_renew, name="calendar-renew"),
    path("calendar/off/", calendar_turn_off, name="calendar-off"),
    path("calendar/<str:token>.ics", person_feed_view, name="calendar-feed"),
    path("clubs/<slug:slug>/calendar.ics", club_feed_view, name="club-calendar"),
]
