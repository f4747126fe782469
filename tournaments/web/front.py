"""The front page: what the club site is for a visitor, and what needs a signed-in member."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path

from league.models import Club, game_choices
from league.selectors import player_of_user
from tournaments.dashboard_selectors import club_count, clubs_to_browse, competitions_to_follow, dashboard_of
from tournaments.formats.registry import UnknownFormat, get_format
from tournaments.web.club_forms import joining_words

#: How many clubs and competitions the front door lists; /clubs/ lists every club.
LISTED = 12


@dataclass(frozen=True)
class ClubLine:
    club: Club
    joining: str


def home_page(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        player = player_of_user(request.user)
        name = player.display_name if player is not None else request.user.get_username()
        return render(request, "site/front/dashboard.html", {"dashboard": dashboard_of(player=player), "name": name})
    return render(
        request,
        "site/front/welcome.html",
        {
            "games": _games_in_words(),
            "clubs": [ClubLine(club, joining_words(club.joining)) for club in clubs_to_browse(limit=LISTED)],
            "club_count": club_count(),
            "competitions": [(c, _format_label(c.format)) for c in competitions_to_follow(limit=LISTED)],
        },
    )


def _games_in_words() -> str:
    """ "War, 1923, Banter and Punk": every game this server has, as the engine registers them."""
    labels = [label for _, label in game_choices()]
    return " and ".join([", ".join(labels[:-1]), labels[-1]]) if len(labels) > 1 else "".join(labels)


def _format_label(key: str) -> str:
    try:
        return get_format(key).label
    except UnknownFormat:
        return ""


urlpatterns: list[URLPattern] = [
    path("", home_page, name="home"),
]
