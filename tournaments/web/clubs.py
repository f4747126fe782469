"""Clubs: the list, a club's page, and joining (a Join button, a request, an invitation link) and leaving.

Every write is a service of league.joining / league.personal_invitations / league.services, the ones the API
calls; what they refuse is shown in their words (tournaments/web/refusals.py).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from league.club_selectors import ROLL_SHOWN, club_by_slug, club_roll, standing_with
from league.joining import club_join, club_remove_member, invitation_accept, invitation_problem, join_request_withdraw
from league.models import Club, Invitation, JoinRequest, Membership, PersonalInvitation, Player
from league.personal_invitations import personal_invitation_accept, personal_invitation_decline
from league.selectors import club_list, player_of_user
from league.services import club_create, player_for_user
from tournaments.calendars import webcal_address
from tournaments.club_competitions import club_competitions
from tournaments.web.club_forms import ClubCreateForm, JoinRequestForm, as_a, joining_words, role_words
from tournaments.web.refusals import call_for_form, call_for_message


def club_of(slug: str) -> Club:
    return get_object_or_404(club_by_slug(slug))


def me(request: HttpRequest) -> Player:
    """The signed-in person's player, made on first use as the API makes it (accounts made by hand have none)."""
    return player_for_user(user=request.user)  # type: ignore[arg-type]  # login_required: a real user


def to_club(club: Club) -> HttpResponseRedirect:
    return redirect("site:club", club.slug)


def clubs(request: HttpRequest) -> HttpResponse:
    rows = [(club, joining_words(club.joining)) for club in club_list()]
    return render(request, "site/clubs/list.html", {"rows": rows})


@login_required
def club_new(request: HttpRequest) -> HttpResponse:
    form = ClubCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        club = call_for_form(
            form,
            lambda: club_create(
                name=data["name"],
                slug=data["slug"],
                organiser=me(request),
                joining=data["joining"],
                competition_creators=data["competition_creators"],
            ),
        )
        if club is not None:
            messages.success(request, f"You have made {club.name}, and you are its organiser.")
            return to_club(club)
    return render(request, "site/clubs/new.html", {"form": form})


def club_page(request: HttpRequest, slug: str, join_form: JoinRequestForm | None = None) -> HttpResponse:
    club = club_of(slug)
    player = player_of_user(request.user)
    standing = standing_with(club=club, player=player)
    offers = [(offer, as_a(offer.role)) for offer in standing.invitations]
    role = standing.membership.role if standing.membership else None
    roll = list(club_roll(club=club, limit=ROLL_SHOWN))
    calendar_address = request.build_absolute_uri(reverse("site:club-calendar", args=[club.slug]))
    member_count = len(roll) if len(roll) < ROLL_SHOWN else club.memberships.count()
    context = {
        "club": club,
        "joining_words": joining_words(club.joining),
        "standing": standing,
        "offers": offers,
        "role": role,
        "role_words": as_a(role) if role else "",
        "is_organiser": role == Membership.Role.ORGANISER,
        "can_create": club.lets_create_competitions(role),
        "roll": [(membership, role_words(membership.role)) for membership in roll],
        "member_count": member_count,
        "more_members": member_count - len(roll),
        "competitions": club_competitions(club=club),
        # The club's public calendar feed, for people to subscribe to (tournaments/web/calendars.py).
        "calendar_address": calendar_address,
        "calendar_webcal": webcal_address(calendar_address),
        "join_form": join_form or JoinRequestForm(),
        "waiting_requests": (
            club.join_requests.filter(status=JoinRequest.Status.PENDING).count()
            if role == Membership.Role.ORGANISER
            else 0
        ),
    }
    return render(request, "site/clubs/club.html", context, status=400 if join_form else 200)


@login_required
@require_POST
def club_join_view(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_of(slug)
    form = JoinRequestForm(request.POST)
    if not form.is_valid():
        return club_page(request, slug, join_form=form)
    joined = call_for_message(request, lambda: club_join(club=club, player=me(request), note=form.cleaned_data["note"]))
    if joined is not None and joined.membership is not None:
        messages.success(request, f"Welcome to {club.name}: you are a member.")
    elif joined is not None:
        messages.success(request, "Your request is on its way to the club's organisers.")
    return to_club(club)


@login_required
def club_leave(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_of(slug)
    standing = standing_with(club=club, player=player_of_user(request.user))
    if standing.membership is None:
        messages.info(request, f"You are not a member of {club.name}.")
        return to_club(club)
    if request.method == "POST":

        def leave() -> bool:
            club_remove_member(club=club, player=me(request))
            return True

        left = call_for_message(request, leave, done=f"You have left {club.name}.")
        return to_club(club) if left else redirect("site:club-leave", club.slug)
    organiser = standing.membership.role == Membership.Role.ORGANISER
    return render(request, "site/clubs/leave.html", {"club": club, "organiser": organiser})


@login_required
@require_POST
def request_withdraw(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_of(slug)
    pending = get_object_or_404(
        JoinRequest, club=club, player__user_id=request.user.pk, status=JoinRequest.Status.PENDING
    )
    call_for_message(
        request, lambda: join_request_withdraw(join_request=pending), done="You have withdrawn your request."
    )
    return to_club(club)


@login_required
@require_POST
def personal_invitation_answer(request: HttpRequest, slug: str, invitation_id: int, answer: str) -> HttpResponse:
    club = club_of(slug)
    # Only the invited person finds it: anyone else's is a 404, as in the API.
    offer = get_object_or_404(PersonalInvitation, pk=invitation_id, club=club, player__user_id=request.user.pk)
    if answer == "accept":
        call_for_message(
            request,
            lambda: personal_invitation_accept(invitation=offer, player=me(request)),
            done=f"Welcome to {club.name}: you are a member.",
        )
    elif answer == "decline":
        call_for_message(
            request,
            lambda: personal_invitation_decline(invitation=offer, player=me(request)),
            done=f"You have declined the invitation to {club.name}.",
        )
    else:
        raise Http404("no such answer")
    return to_club(club)


def invitation(request: HttpRequest, code: str) -> HttpResponse:
    """An invitation link: a signed-in person joins with one click; a visitor signs up (or in) and comes back."""
    offer = get_object_or_404(Invitation.objects.select_related("club"), code=code)
    club = offer.club
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('site:login')}?{urlencode({'next': request.path})}")
        joined = call_for_message(
            request,
            lambda: invitation_accept(code=code, player=me(request)),
            done=f"Welcome to {club.name}: you are a member.",
        )
        return to_club(club) if joined is not None else redirect("site:invitation", code)
    player = player_of_user(request.user)
    member = player is not None and Membership.objects.filter(club=club, player=player).exists()
    back = urlencode({"next": request.path})
    context = {
        "club": club,
        "offer": offer,
        "role_words": as_a(offer.role),
        "problem": invitation_problem(offer),
        "member": member,
        "sign_up": f"{reverse('account_signup')}?{back}",
        "sign_in": f"{reverse('site:login')}?{back}",
    }
    return render(request, "site/clubs/invitation.html", context)


urlpatterns: list[URLPattern] = [
    path("clubs/", clubs, name="clubs"),
    path("clubs/new/", club_new, name="club-new"),
    path("clubs/<slug:slug>/", club_page, name="club"),
    path("clubs/<slug:slug>/join/", club_join_view, name="club-join"),
    path("clubs/<slug:slug>/leave/", club_leave, name="club-leave"),
    path("clubs/<slug:slug>/request/withdraw/", request_withdraw, name="club-request-withdraw"),
    path(
        "clubs/<slug:slug>/offers/<int:invitation_id>/<str:answer>/",
        personal_invitation_answer,
        name="club-offer-answer",
    ),
    path("invitations/<str:code>/", invitation, name="invitation"),
]
