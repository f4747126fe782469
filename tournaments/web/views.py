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
from league.selectors import player_of_user
from tournaments.competition_results import competition_results
from tournaments.competition_sheets import (
    head_to_head_lines,
    rating_chart_axis,
    standings_lines,
    standings_order_note,
    top_rating_chart,
)
from tournaments.formats.registry import UnknownFormat, format_of
from tournaments.models import Competition, Match
from tournaments.web.entering import entry_box
from tournaments.web.transcripts import takes_transcripts


class SignInView(ThrottledLoginView):
    template_name = "play/login.html"
    redirect_authenticated_user = True
    # Without a ?next=, a person signing in lands on the front page's dashboard of what needs them.
    next_page = "site:home"


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
            "matches_page": reverse("site:matches"),
            # A match of games played with real cards has no live table: its page leads to the transcripts.
            "transcripts_url": reverse("site:match-transcripts", args=[match.pk]) if takes_transcripts(match) else "",
        },
    )


# Open to everyone, as the API's standings are: what a club pins on its noticeboard.
def competition_sheet(request: HttpRequest, competition_id: int) -> HttpResponse:
    competition = get_object_or_404(Competition.objects.select_related("club"), pk=competition_id)
    context: dict[str, object] = {"competition": competition, "missing_game": ""}
    try:
        # The format's part needs no game: it shows even where the game is missing.
        format = format_of(competition)
        context.update(
            format=format,
            entry=entry_box(competition, player_of_user(request.user)),
            format_part=format.page_part(competition, admin=False, request=request),
        )
        labels, lines = standings_lines(competition)
        chart = top_rating_chart(competition, lines)
        context.update(
            tiebreak_labels=labels,
            standings_order=standings_order_note(competition, labels),
            standing_lines=lines,
            rating_chart=chart.lines,
            chart_lines=chart.cut_to,
            rating_chart_axis=rating_chart_axis(competition),
            head_to_head=head_to_head_lines(competition),
            results=competition_results(competition, request.GET.get("results")),
        )
    except UnknownGame as exc:
        context["missing_game"] = f"{exc}: this server does not have that game"
    except UnknownFormat as exc:
        context["missing_game"] = str(exc)
    return render(request, "play/competition.html", context)
