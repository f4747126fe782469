"""A member's buttons on a competition: enter and leave; on a challenge ladder challenge, accept, decline and
withdraw.

Each button posts here and comes back to the competition's page with a message. The person acts for
themself only (their own place in the competition); what the competition allows is the services' to say, the
same ones the API calls (tournaments/services/competitions.py, challenges.py), and their refusals are shown
in their own words. Organisers act for others from the competition's manage page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from league.models import Membership, Player
from league.selectors import player_of_user
from tournaments.formats.registry import format_of
from tournaments.ladder_selectors import plain_deadline
from tournaments.models import Challenge, ChallengeSide, Competition, Entrant
from tournaments.selectors import competition_organiser
from tournaments.services.challenges import challenge_accept, challenge_decline, challenge_issue, challenge_withdraw
from tournaments.services.competitions import entrant_join, entrant_withdraw, person_entry_refusal
from tournaments.web.refusals import call_for_message

# --- what the competition page shows about entering ----------------------------------------------------------


@dataclass(frozen=True)
class EntryBox:
    """The competition page's box about taking part, for the person looking."""

    #: Players in it now (those who left a ladder are not counted).
    players: int
    #: Whether it takes entrants now: before its start, or while a ladder runs.
    entries_open: bool
    #: Why no person may enter it whoever they are (a bots-only ladder), or "".
    refusal: str
    #: Whether its list of entrants is full.
    full: bool
    #: None for a visitor; otherwise whether they are a member of the club.
    member: bool | None
    #: Their own place in it, if they have one.
    entrant: Entrant | None
    #: Whether they may open its manage page.
    organiser: bool
    #: Whether their place is in an open challenge, which must be decided before they may leave.
    challenged: bool = False

    @property
    def can_enter(self) -> bool:
        return bool(self.member) and self.entrant is None and self.entries_open and not self.refusal and not self.full

    @property
    def can_leave(self) -> bool:
        return self.entrant is not None and self.entries_open and not self.challenged


def takes_entrants(competition: Competition) -> bool:
    """Open for entry: before the start, or while a format that takes entrants as it runs (a ladder) runs."""
    if competition.status == Competition.Status.OPEN:
        return True
    return competition.status == Competition.Status.RUNNING and format_of(competition).open_while_running


def entry_box(competition: Competition, player: Player | None) -> EntryBox:
    """What the person ``player`` (None: a visitor) may do about entering; a fixed five queries at most."""
    counts = Entrant.objects.filter(competition=competition).aggregate(
        all=Count("id"), playing=Count("id", filter=Q(left_at__isnull=True))
    )
    full = competition.max_entrants is not None and counts["all"] >= competition.max_entrants
    member = None
    entrant = None
    organiser = False
    if player is not None:
        member = Membership.objects.filter(club_id=competition.club_id, player=player).exists()
        entrant = own_entrant(competition, player)
        organiser = member and competition_organiser(competition=competition, player=player)
    return EntryBox(
        players=counts["playing"],
        entries_open=takes_entrants(competition),
        refusal=person_entry_refusal(competition),
        full=full,
        member=member,
        entrant=entrant,
        organiser=organiser,
        challenged=entrant is not None and entrant.challenge_sides.filter(open=True).exists(),
    )


def own_entrant(competition: Competition, player: Player) -> Entrant | None:
    """The person's own place in the competition (not one they have left), if any."""
    return Entrant.objects.filter(competition=competition, player=player, left_at__isnull=True).first()


# --- the buttons -----------------------------------------------------------------------------------------------

Button = Callable[[HttpRequest, Competition, Player], None]


def competition_button(button: Button) -> Callable[[HttpRequest, int], HttpResponse]:
    """A POST-only button on a competition's page: a visitor is sent to sign in and back to the page; a signed-in
    person without a player profile has no place anywhere, and is told so; either way back to the page."""

    @require_POST
    @wraps(button)
    def view(request: HttpRequest, competition_id: int) -> HttpResponse:
        competition = get_object_or_404(Competition.objects.select_related("club"), pk=competition_id)
        page = reverse("site:competition", args=[competition.pk])
        if not request.user.is_authenticated:
            return redirect_to_login(page)
        player = player_of_user(request.user)
        if player is None:
            messages.error(request, f"Join {competition.club.name} to take part.")
        else:
            button(request, competition, player)
        return redirect(page)

    return view


@competition_button
def enter(request: HttpRequest, competition: Competition, player: Player) -> None:
    call_for_message(
        request,
        lambda: entrant_join(competition=competition, player=player),
        done=f"You are in {competition.name}.",
    )


@competition_button
def leave(request: HttpRequest, competition: Competition, player: Player) -> None:
    entrant = own_entrant(competition, player)
    if entrant is None:
        messages.error(request, f"You are not in {competition.name}.")
        return
    call_for_message(request, lambda: entrant_withdraw(entrant=entrant), done=f"You have left {competition.name}.")


class ChallengeForm(forms.Form):
    #: Left out in a game of more than two: the challenge is against the whole table directly above.
    opponent = forms.IntegerField(required=False, min_value=1)


@competition_button
def challenge(request: HttpRequest, competition: Competition, player: Player) -> None:
    form = ChallengeForm(request.POST)
    challenger = own_entrant(competition, player)
    if challenger is None:
        messages.error(request, "Enter the ladder to challenge someone on it.")
        return
    if not form.is_valid():
        messages.error(request, "Choose whom to challenge from the ladder.")
        return
    defender = None
    opponent = form.cleaned_data["opponent"]
    if opponent is not None:
        defender = Entrant.objects.filter(competition=competition, pk=opponent).first()
        if defender is None:
            messages.error(request, "That player is not on this ladder.")
            return
    issued = call_for_message(
        request,
        lambda: challenge_issue(competition=competition, challenger=challenger, defender=defender, issued_by=player),
    )
    if issued is not None:
        names = " and ".join(
            issued.sides.filter(role=ChallengeSide.Role.DEFENDER)
            .order_by("place")
            .values_list("entrant__name", flat=True)
        )
        messages.success(
            request, f"You challenged {names}: they have until {plain_deadline(issued.deadline)} to accept."
        )


@dataclass(frozen=True)
class Decision:
    """An answer to a challenge: the side that gives it, the service that applies it, and the note once done."""

    role: str
    apply: Callable[[Competition, int, Entrant], object]
    done: str


DECISIONS = {
    "accept": Decision(
        ChallengeSide.Role.DEFENDER,
        lambda competition, number, entrant: challenge_accept(competition=competition, number=number, defender=entrant),
        "You accepted the challenge: play the match from its table.",
    ),
    "decline": Decision(
        ChallengeSide.Role.DEFENDER,
        lambda competition, number, entrant: challenge_decline(
            competition=competition, number=number, defender=entrant
        ),
        "You declined the challenge, and so gave up your place to the challenger.",
    ),
    "withdraw": Decision(
        ChallengeSide.Role.CHALLENGER,
        lambda competition, number, entrant: challenge_withdraw(competition=competition, number=number),
        "You withdrew your challenge.",
    ),
}


@require_POST
def decide(request: HttpRequest, challenge_id: int, decision: str) -> HttpResponse:
    """Accept or decline a challenge made to you, or withdraw one you made."""
    answer = DECISIONS.get(decision)
    if answer is None:
        raise Http404("no such answer to a challenge")
    challenge = get_object_or_404(Challenge.objects.select_related("competition"), pk=challenge_id)
    competition = challenge.competition
    page = reverse("site:competition", args=[competition.pk])
    if not request.user.is_authenticated:
        return redirect_to_login(page)
    player = player_of_user(request.user)
    entrant = None if player is None else own_entrant(competition, player)
    if entrant is None or not challenge.sides.filter(entrant=entrant, role=answer.role).exists():
        who = "the challenged player" if answer.role == ChallengeSide.Role.DEFENDER else "the challenger"
        messages.error(request, f"Only {who} can {decision} challenge {challenge.number}.")
        return redirect(page)
    number = challenge.number
    call_for_message(request, lambda: answer.apply(competition, number, entrant), done=answer.done)
    return redirect(page)


urlpatterns: list[URLPattern] = [
    path("competitions/<int:competition_id>/enter/", enter, name="competition-enter"),
    path("competitions/<int:competition_id>/leave/", leave, name="competition-leave"),
    path("competitions/<int:competition_id>/challenges/", challenge, name="competition-challenge"),
    path("challenges/<int:challenge_id>/<str:decision>/", decide, name="challenge-decide"),
]
