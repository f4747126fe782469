"""Pages of the web table, and each competition's public page. They hold no game logic and read no
seat's view themselves: the browser asks the live API for the table, as any other client would."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie

from config.throttles import ThrottledLoginView
from engine.games import UnknownGame
from tournaments.competition_sheets import (
    head_to_head_lines,
    rating_chart,
    rating_chart_axis,
    standings_lines,
    standings_order_note,
)
from tournaments.ladder_selectors import challenge_ladder, challenge_lines, rating_ladder_progress
from tournaments.models import Competition, Match
from tournaments.pairing import CHALLENGE_LADDER, RATING_LADDER
from tournaments.services.separation import separation_page
from tournaments.web.bracket_page import bracket_page


class SignInView(ThrottledLoginView):
    template_name = "play/login.html"
    redirect_authenticated_user = True
    # Without a ?next=, a person signing in wants their matches, not settings.LOGIN_REDIRECT_URL's profile page.
    next_page = "play:matches"


@login_required
@ensure_csrf_cookie
def my_matches(request: HttpRequest) -> HttpResponse:
    return render(request, "play/matches.html", {"matches_url": reverse("player-me-matches")})


# Not login_required: a public table can be watched by anyone, and the API says who sees what
# (a spectator's view, or 403 while the competition hides live tables).
@ensure_csrf_cookie
def match_table(request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_object_or_404(Match.objects.select_related("competition"), pk=match_id)
    return render(
        request,
        "play/table.html",
        {
            "match": match,
            "competition": match.competition,
            "table_url": reverse("match-table", args=[match.pk]),
            "moves_url": reverse("match-moves", args=[match.pk]),
            "events_url": reverse("match-events", args=[match.pk]),
            "matches_page": reverse("play:matches"),
        },
    )


#: The challenges a public ladder page lists, newest first; the API pages through them all.
CHALLENGES_ON_PUBLIC_PAGE = 20


# Open to everyone, as the API's standings are: what a club pins on its noticeboard.
def competition_sheet(request: HttpRequest, competition_id: int) -> HttpResponse:
    competition = get_object_or_404(Competition.objects.select_related("club"), pk=competition_id)
    context: dict[str, object] = {
        "competition": competition,
        "missing_game": "",
        **ladder_sheet(competition),
        **separation_page(competition),
        # Like the ladder's part, the bracket needs no game: it shows even where the game is missing.
        **bracket_page(competition),
    }
    try:
        labels, lines = standings_lines(competition)
        context.update(
            tiebreak_labels=labels,
            standings_order=standings_order_note(competition, labels),
            standing_lines=lines,
            rating_chart=rating_chart(competition),
            rating_chart_axis=rating_chart_axis(competition),
            head_to_head=head_to_head_lines(competition),
        )
    except UnknownGame as exc:
        context["missing_game"] = str(exc)
    return render(request, "play/competition.html", context)


def ladder_sheet(competition: Competition) -> dict[str, object]:
    """A ladder's own part of its public page; it needs no game, so it shows even where the game is missing."""
    if competition.format == CHALLENGE_LADDER:
        return {
            "challenge_ladder": challenge_ladder(competition),
            "challenge_history": challenge_lines(competition, limit=CHALLENGES_ON_PUBLIC_PAGE),
            "challenges_on_page": CHALLENGES_ON_PUBLIC_PAGE,
        }
    if competition.format == RATING_LADDER:
        return {"rating_ladder": rating_ladder_progress(competition)}
    return {}
