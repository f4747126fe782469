"""A person's public page: their clubs, results, rating history and head to head.

Anyone may read it, as anyone may read standings: it shows finished matches and what the standings show,
never an e-mail address or a table still being played.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path

from league.models import Player
from tournaments.competition_sheets import points_over_time
from tournaments.person_selectors import (
    head_to_head_of,
    memberships_of,
    rating_histories_of,
    ratings_of,
    results_of,
)

#: How many of a person's latest results the page lists.
RESULTS_SHOWN = 20


def person_page(request: HttpRequest, username: str) -> HttpResponse:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise Http404("no such player")
    # An account made outside sign-up (createsuperuser) has no player profile until its first use.
    player = Player.objects.filter(user=user).first()
    context: dict[str, Any] = {
        "username": user.get_username(),
        "name": player.display_name if player is not None else user.get_username(),
        "is_me": request.user.is_authenticated and request.user.pk == user.pk,
        "results_shown": RESULTS_SHOWN,
    }
    if player is not None:
        context.update(
            memberships=list(memberships_of(player=player)),
            results=results_of(player=player, limit=RESULTS_SHOWN),
            ratings=ratings_of(player=player),
            rating_chart=[
                {"name": h.entrant.competition.name, "points": points_over_time(h.entrant.competition, h)}
                for h in rating_histories_of(player=player)
            ],
            head_to_head=head_to_head_of(player=player),
        )
    return render(request, "site/people/person.html", context)


urlpatterns: list[URLPattern] = [
    path("players/<str:username>/", person_page, name="person"),
]
