"""An organiser's pages for a competition: a new one of any game and format from its format's settings, entrants,
start with an order set by hand, cancel, retry, disputes.

Views only read the request and call the services the API calls (services/competitions.py, services/play.py,
services/transcripts.py); whatever those refuse is shown on the form or as a message in their words.
"""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from engine.games import game_names, get_game
from league.models import Club, Player
from league.selectors import club_role, player_of_user
from tournaments.formats.registry import UnknownFormat, format_keys, format_of, get_format
from tournaments.models import Competition, Entrant, Match, Transcript
from tournaments.selectors import competition_organiser
from tournaments.services.competitions import (
    competition_cancel,
    competition_create,
    competition_start,
    competition_update,
    entrant_join,
    entrant_withdraw,
)
from tournaments.services.play import competition_play_now, match_retry
from tournaments.services.transcripts import transcript_accept, transcript_void
from tournaments.web.competition_forms import (
    ChooseForm,
    NewCompetitionForm,
    change_form,
    fixed_facts,
    new_competition_form,
)
from tournaments.web.entrant_forms import AddBotForm, AddMemberForm, order_rows, start_order
from tournaments.web.manage_reads import disputes_of, entrants_of, failed_matches, waiting_for_workers
from tournaments.web.refusals import call_for_message

STATUS_WORDS: dict[str, str] = {
    Competition.Status.OPEN: "Open for entries",
    Competition.Status.RUNNING: "Under way",
    Competition.Status.FINISHED: "Finished",
    Competition.Status.CANCELLED: "Cancelled",
}


def _player(request: HttpRequest) -> Player:
    player = player_of_user(request.user)
    if player is None:
        raise PermissionDenied("Only members of a club organise its competitions.")
    return player


# --- A new competition --------------------------------------------------------------------------------------


@login_required
def competition_new(request: HttpRequest, slug: str) -> HttpResponse:
    """Step 1 (no game and format yet, or a choice to change): choose them; step 2: name and settings."""
    club = get_object_or_404(Club, slug=slug)
    player = _player(request)
    if not club.lets_create_competitions(club_role(club=club, player=player)):
        raise PermissionDenied(f"Only the organisers of {club.name} create its competitions.")
    source = request.POST if request.method == "POST" else request.GET
    game, key = source.get("game", ""), source.get("format", "")
    if game not in game_names() or key not in format_keys() or "change" in request.GET:
        return render(request, "site/organise/new_choose.html", {"club": club, "form": _choose_form(request)})
    format = get_format(key)
    form = new_competition_form(format, game, club_id=club.pk, data=request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        created = _create(form, club=club, player=player)
        if created is not None:
            messages.success(request, f"{created.name} is ready. Add the players, then start it.")
            return redirect("site:competition-manage", created.pk)
    context = {
        "club": club,
        "form": form,
        "format": format,
        "game_label": get_game(game).PROFILE.label,
        "game": game,
    }
    return render(request, "site/organise/new_settings.html", context)


def _choose_form(request: HttpRequest) -> ChooseForm:
    """Step 1: blank; with the last choice ticked when the person comes back to change it; with what is missing
    marked when they went on without choosing."""
    if "change" in request.GET:
        return ChooseForm(initial={"game": request.GET.get("game"), "format": request.GET.get("format")})
    if {"game", "format"} & set(request.GET):
        chosen = ChooseForm(data=request.GET)
        chosen.full_clean()
        return chosen
    return ChooseForm()


def _create(form: NewCompetitionForm, *, club: Club, player: Player) -> Competition | None:
    return form.submit(
        lambda: competition_create(
            club=club,
            created_by=player,
            name=form.cleaned_data["name"],
            game=form.game,
            format=form.competition_format.key,
            options=form.rules(),
            settings=form.settings(),
        )
    )


# --- Managing one competition -------------------------------------------------------------------------------


def _organised(request: HttpRequest, competition_id: int) -> tuple[Competition, Player]:
    competition = get_object_or_404(Competition.objects.select_related("club"), pk=competition_id)
    player = _player(request)
    if not competition_organiser(competition=competition, player=player):
        raise PermissionDenied(f"Only the organisers of {competition.club.name} manage its competitions.")
    return competition, player


def _back(competition: Competition, part: str = "") -> HttpResponse:
    return redirect(reverse("site:competition-manage", args=[competition.pk]) + (f"#{part}" if part else ""))


@login_required
def competition_manage(request: HttpRequest, competition_id: int) -> HttpResponse:
    competition, _ = _organised(request, competition_id)
    try:
        format = format_of(competition)
    except UnknownFormat:
        raise PermissionDenied(
            "This server does not have this competition's format: it cannot be managed here."
        ) from None
    form = change_form(competition, format, data=request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        changes = form.changes()
        if not any(changes.values()):
            messages.info(request, "Nothing was changed.")
            return _back(competition, "settings")
        if form.submit(lambda: competition_update(competition=competition, **changes)) is not None:
            messages.success(request, "Saved the changes.")
            return _back(competition, "settings")
    entrants = entrants_of(competition)
    order = start_order(entrants, request.GET.get("order", "")) if format.start_order else []
    context = {
        "competition": competition,
        "format": format,
        "status_words": STATUS_WORDS.get(competition.status, competition.status),
        "game_label": get_game(competition.game).PROFILE.label,
        "form": form,
        "fixed": fixed_facts(competition, format, form),
        "entrants": entrants,
        "add_member": AddMemberForm(competition=competition),
        "add_bot": AddBotForm(competition=competition),
        "order": order_rows(order),
        "order_ids": ",".join(str(entrant.pk) for entrant in order),
        "failed": failed_matches(competition),
        "waiting": waiting_for_workers(competition) if competition.status == Competition.Status.RUNNING else None,
        "disputes": disputes_of(competition),
        "is_open": competition.status == Competition.Status.OPEN,
        "takes_entrants": competition.status == Competition.Status.OPEN
        or (format.open_while_running and competition.status == Competition.Status.RUNNING),
        "may_cancel": competition.status in (Competition.Status.OPEN, Competition.Status.RUNNING),
    }
    return render(request, "site/organise/manage.html", context)


@login_required
@require_POST
def entrant_add(request: HttpRequest, competition_id: int) -> HttpResponse:
    competition, _ = _organised(request, competition_id)
    member, bot = (
        AddMemberForm(request.POST, competition=competition),
        AddBotForm(request.POST, competition=competition),
    )
    if "player" in request.POST and member.is_valid():
        person = member.cleaned_data["player"]
        call_for_message(
            request, lambda: entrant_join(competition=competition, player=person), done=f"Added {person.display_name}."
        )
    elif "bot_version" in request.POST and bot.is_valid():
        version = bot.cleaned_data["bot_version"]
        call_for_message(
            request,
            lambda: entrant_join(competition=competition, bot_version=version),
            done=f"Added {version.bot.name} v{version.number}.",
        )
    else:
        messages.error(request, "Choose a member or a bot to add: that one cannot be added (any more).")
    return _back(competition, "players")


@login_required
@require_POST
def entrant_remove(request: HttpRequest, competition_id: int, entrant_id: int) -> HttpResponse:
    competition, _ = _organised(request, competition_id)
    entrant = get_object_or_404(Entrant, pk=entrant_id, competition=competition)
    call_for_message(request, lambda: entrant_withdraw(entrant=entrant), done=f"Removed {entrant.name}.")
    return _back(competition, "players")


@login_required
@require_POST
def start(request: HttpRequest, competition_id: int) -> HttpResponse:
    competition, _ = _organised(request, competition_id)
    order = None
    if "order" in request.POST:
        try:
            order = [int(part) for part in request.POST["order"].split(",") if part]
        except ValueError:
            messages.error(request, "The order sent could not be read: set it again.")
            return _back(competition, "start")
    started = call_for_message(
        request, lambda: competition_start(competition=competition, order=order), done="Started. Good luck to all!"
    )
    return _back(competition, "" if started else "start")


@login_required
def cancel(request: HttpRequest, competition_id: int) -> HttpResponse:
    """A confirmation first: cancelling cannot be undone."""
    competition, _ = _organised(request, competition_id)
    if request.method != "POST":
        return render(request, "site/organise/cancel.html", {"competition": competition})
    call_for_message(
        request,
        lambda: competition_cancel(competition=competition),
        done=f"{competition.name} is cancelled. Results already recorded stay.",
    )
    return _back(competition)


@login_required
@require_POST
def retry(request: HttpRequest, competition_id: int) -> HttpResponse:
    """Send one failed match (``match``), or every one, back to be played."""
    competition, _ = _organised(request, competition_id)
    failed = Match.objects.filter(competition=competition, status=Match.Status.ERROR).order_by("id")
    if "match" in request.POST:
        failed = failed.filter(pk=request.POST["match"] if request.POST["match"].isdigit() else 0)
    matches = list(failed)
    if not matches:
        messages.error(request, "No match is waiting to be tried again.")
    # Each through the service on its own: one refused (tried again meanwhile) says why, the others still go.
    retried = [m for m in matches if call_for_message(request, partial(match_retry, match=m)) is not None]
    if retried:
        messages.success(request, f"{len(retried)} match{'es' if len(retried) != 1 else ''} will be played again.")
    return _back(competition, "failed")


@login_required
@require_POST
def resend(request: HttpRequest, competition_id: int) -> HttpResponse:
    """Send the bots' matches still waiting for a worker again (a broker may have lost them)."""
    competition, _ = _organised(request, competition_id)
    sent = call_for_message(request, lambda: competition_play_now(competition=competition))
    if sent is not None:
        messages.success(request, f"Sent {sent} match{'es' if sent != 1 else ''} to be played again.")
    return _back(competition, "waiting")


@login_required
@require_POST
def settle(request: HttpRequest, competition_id: int, transcript_id: int, decision: str) -> HttpResponse:
    """Accept a transcript (the others of its game are set aside), or set one aside, giving a reason."""
    competition, player = _organised(request, competition_id)
    transcript = get_object_or_404(Transcript, pk=transcript_id, match__competition=competition)
    note = request.POST.get("note", "")
    if decision == "accept":
        call_for_message(
            request,
            lambda: transcript_accept(transcript=transcript, player=player, note=note),
            done=f"Accepted {transcript.submitted_by.display_name}'s version of game {transcript.game_number + 1}.",
        )
    else:
        call_for_message(
            request,
            lambda: transcript_void(transcript=transcript, player=player, reason=note),
            done=f"Set aside {transcript.submitted_by.display_name}'s version of game {transcript.game_number + 1}.",
        )
    return _back(competition, "disputes")


urlpatterns: list[URLPattern] = [
    path("clubs/<slug:slug>/competitions/new/", competition_new, name="competition-new"),
    path("competitions/<int:competition_id>/manage/", competition_manage, name="competition-manage"),
    path("competitions/<int:competition_id>/manage/players/", entrant_add, name="competition-entrant-add"),
    path(
        "competitions/<int:competition_id>/manage/players/<int:entrant_id>/remove/",
        entrant_remove,
        name="competition-entrant-remove",
    ),
    path("competitions/<int:competition_id>/manage/start/", start, name="competition-start"),
    path("competitions/<int:competition_id>/manage/cancel/", cancel, name="competition-cancel"),
    path("competitions/<int:competition_id>/manage/retry/", retry, name="competition-retry"),
    path("competitions/<int:competition_id>/manage/resend/", resend, name="competition-resend"),
    path(
        "competitions/<int:competition_id>/manage/transcripts/<int:transcript_id>/<str:decision>/",
        settle,
        name="competition-settle",
    ),
]
