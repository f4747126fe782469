"""An organiser's pages for their club, with no staff rights: its settings, members and roles, invitation
links and personal invitations, join requests. (A new club is tournaments/web/clubs.py's form.)

Only the club's organisers open these pages, as only they may make these calls in the API; everyone else
gets the site's 403 page. The services check again under the club's lock (an organiser demoted a moment
ago is refused there, in its words).
"""

from __future__ import annotations

from typing import TypeVar

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from league.club_selectors import (
    club_roll,
    open_invitation_links,
    pending_join_requests,
    pending_personal_invitations,
)
from league.joining import (
    club_remove_member,
    club_set_role,
    invitation_create,
    invitation_revoke,
    join_request_decide,
)
from league.models import Club, Invitation, JoinRequest, Membership, PersonalInvitation
from league.personal_invitations import club_invite, personal_invitation_withdraw
from league.selectors import club_role, player_of_user
from league.services import club_update
from tournaments.web.club_forms import (
    ClubSettingsForm,
    InvitationLinkForm,
    PersonalInvitationForm,
    RoleForm,
    as_a,
    role_words,
)
from tournaments.web.clubs import club_of, me
from tournaments.web.refusals import call_for_form, call_for_message

M = TypeVar("M", bound=Model)

#: Rows on one page of the members and requests lists: a club of hundreds is read a page at a time.
PAGE_SIZE = 50


def page_of(request: HttpRequest, rows: QuerySet[M]) -> Page[M]:
    """The page of ``rows`` the address asks for (?page=); a page past the end or not a number gives the last
    or the first, never an error."""
    return Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))


def organised_club(request: HttpRequest, slug: str) -> Club:
    """The club of the address, if the signed-in person organises it; the site's 403 page otherwise."""
    club = club_of(slug)
    if club_role(club=club, player=player_of_user(request.user)) != Membership.Role.ORGANISER:
        raise PermissionDenied(f"Only the organisers of {club.name} may open this page.")
    return club


@login_required
def club_settings(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    initial = {"name": club.name, "joining": club.joining, "competition_creators": club.competition_creators}
    form = ClubSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        saved = call_for_form(
            form,
            lambda: club_update(
                club=club,
                name=data["name"],
                joining=data["joining"],
                competition_creators=data["competition_creators"],
            ),
        )
        if saved is not None:
            messages.success(request, "The club's settings are saved.")
            return redirect("site:club", club.slug)
    return render(request, "site/clubs/settings.html", {"club": club, "form": form})


@login_required
def club_members(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    page = page_of(request, club_roll(club=club))
    rows = [
        (
            membership,
            role_words(membership.role),
            RoleForm(initial={"role": membership.role}, prefix=f"m{membership.pk}"),
        )
        for membership in page
    ]
    return render(request, "site/clubs/members.html", {"club": club, "rows": rows, "page": page})


def roll_entry(club: Club, membership_id: int) -> Membership:
    return get_object_or_404(Membership.objects.select_related("player"), pk=membership_id, club=club)


@login_required
@require_POST
def member_role(request: HttpRequest, slug: str, membership_id: int) -> HttpResponse:
    club = organised_club(request, slug)
    membership = roll_entry(club, membership_id)
    form = RoleForm(request.POST, prefix=f"m{membership.pk}")
    if not form.is_valid():
        messages.error(request, "Choose one of the roles offered.")
        return redirect("site:club-members", club.slug)
    role = form.cleaned_data["role"]
    call_for_message(
        request,
        lambda: club_set_role(club=club, player=membership.player, role=role, by=me(request)),
        done=f"{membership.player.display_name} is now {as_a(role)}.",
    )
    if membership.player.user_id == request.user.pk and role != Membership.Role.ORGANISER:
        # They stepped down themselves: the organisers' pages are no longer theirs.
        return redirect("site:club", club.slug)
    return redirect("site:club-members", club.slug)


@login_required
def member_remove(request: HttpRequest, slug: str, membership_id: int) -> HttpResponse:
    """A confirmation page, then the removal (the club's last organiser is refused by the service)."""
    club = organised_club(request, slug)
    membership = roll_entry(club, membership_id)
    if request.method == "POST":

        def remove() -> bool:
            club_remove_member(club=club, player=membership.player, by=me(request))
            return True

        removed = call_for_message(
            request, remove, done=f"{membership.player.display_name} is no longer a member of {club.name}."
        )
        if removed and membership.player.user_id == request.user.pk:
            return redirect("site:club", club.slug)
        return redirect("site:club-members", club.slug)
    return render(request, "site/clubs/remove_member.html", {"club": club, "membership": membership})


def invitations_page(
    request: HttpRequest,
    club: Club,
    link_form: InvitationLinkForm | None = None,
    person_form: PersonalInvitationForm | None = None,
) -> HttpResponse:
    links = [
        (link, request.build_absolute_uri(reverse("site:invitation", args=[link.code])), role_words(link.role))
        for link in open_invitation_links(club=club)
    ]
    offers = [(offer, as_a(offer.role)) for offer in pending_personal_invitations(club=club)]
    context = {
        "club": club,
        "links": links,
        "offers": offers,
        "link_form": link_form or InvitationLinkForm(prefix="link"),
        "person_form": person_form or PersonalInvitationForm(prefix="person"),
    }
    status = 400 if (link_form or person_form) else 200
    return render(request, "site/clubs/invitations.html", context, status=status)


@login_required
def club_invitations(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    if request.method != "POST":
        return invitations_page(request, club)
    form = InvitationLinkForm(request.POST, prefix="link")
    if form.is_valid():
        data = form.cleaned_data
        made = call_for_form(
            form,
            lambda: invitation_create(
                club=club, created_by=me(request), days=data["days"], max_uses=data["max_uses"], role=data["role"]
            ),
        )
        if made is not None:
            messages.success(request, "Your new invitation link is at the top of the list: copy it and send it.")
            return redirect("site:club-invitations", club.slug)
    return invitations_page(request, club, link_form=form)


@login_required
@require_POST
def invite_person(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    form = PersonalInvitationForm(request.POST, prefix="person")
    if form.is_valid():
        username = form.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username__iexact=username).select_related("player").first()
        player = getattr(user, "player", None) if user is not None else None
        if player is None:
            form.add_error("username", f"No one here has the user name {username!r}.")
        else:
            role = form.cleaned_data["role"]
            offer = call_for_form(
                form, lambda: club_invite(club=club, player=player, role=role, invited_by=me(request))
            )
            if offer is not None:
                messages.success(
                    request, f"{player.display_name} is invited: they will see it on the club's page and answer there."
                )
                return redirect("site:club-invitations", club.slug)
    return invitations_page(request, club, person_form=form)


@login_required
@require_POST
def link_withdraw(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    club = organised_club(request, slug)
    link = get_object_or_404(Invitation, pk=invitation_id, club=club)
    call_for_message(
        request, lambda: invitation_revoke(invitation=link), done="The link is withdrawn: it admits no one now."
    )
    return redirect("site:club-invitations", club.slug)


@login_required
@require_POST
def offer_withdraw(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    club = organised_club(request, slug)
    offer = get_object_or_404(PersonalInvitation.objects.select_related("player"), pk=invitation_id, club=club)
    call_for_message(
        request,
        lambda: personal_invitation_withdraw(invitation=offer),
        done=f"The invitation to {offer.player.display_name} is withdrawn.",
    )
    return redirect("site:club-invitations", club.slug)


@login_required
def club_requests(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    page = page_of(request, pending_join_requests(club=club))
    return render(request, "site/clubs/requests.html", {"club": club, "requests": page, "page": page})


@login_required
@require_POST
def request_decide(request: HttpRequest, slug: str, request_id: int, decision: str) -> HttpResponse:
    club = organised_club(request, slug)
    if decision not in ("accept", "decline"):
        raise Http404("no such decision")
    asked = get_object_or_404(JoinRequest.objects.select_related("player"), pk=request_id, club=club)
    accept = decision == "accept"
    name = asked.player.display_name
    call_for_message(
        request,
        lambda: join_request_decide(join_request=asked, organiser=me(request), accept=accept),
        done=f"{name} is now a member." if accept else f"You have declined {name}'s request.",
    )
    return redirect("site:club-requests", club.slug)


urlpatterns: list[URLPattern] = [
    path("clubs/<slug:slug>/settings/", club_settings, name="club-settings"),
    path("clubs/<slug:slug>/members/", club_members, name="club-members"),
    path("clubs/<slug:slug>/members/<int:membership_id>/role/", member_role, name="club-member-role"),
    path("clubs/<slug:slug>/members/<int:membership_id>/remove/", member_remove, name="club-member-remove"),
    path("clubs/<slug:slug>/invitations/", club_invitations, name="club-invitations"),
    path("clubs/<slug:slug>/invitations/person/", invite_person, name="club-invite-person"),
    path("clubs/<slug:slug>/invitations/<int:invitation_id>/withdraw/", link_withdraw, name="club-link-withdraw"),
    path(
        "clubs/<slug:slug>/personal-invitations/<int:invitation_id>/withdraw/",
        offer_withdraw,
        name="club-offer-withdraw",
    ),
    path("clubs/<slug:slug>/requests/", club_requests, name="club-requests"),
    path("clubs/<slug:slug>/requests/<int:request_id>/<str:decision>/", request_decide, name="club-request-decide"),
]
