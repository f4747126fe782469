"""The club pages' forms and the plain words they and the pages use for a club's settings and roles.

Forms check only the shape of what was typed; every rule (a taken address, the last organiser, an invitation's
bounds) is the service's, and its refusal lands on the form (tournaments/web/refusals.py).
"""

from __future__ import annotations

from django import forms

from league.joining import MAX_INVITATION_DAYS, MAX_INVITATION_USES
from league.models import Club, Membership

#: How a club admits members, in a few words for the list of clubs.
JOINING_SHORT: dict[str, str] = {
    Club.Joining.OPEN: "Anyone can join",
    Club.Joining.REQUEST: "Ask to join",
    Club.Joining.INVITATION: "By invitation only",
}

JOINING_CHOICES = [
    (Club.Joining.OPEN, "Anyone can join: a Join button makes them a member at once"),
    (Club.Joining.REQUEST, "People ask to join, and an organiser accepts or declines"),
    (Club.Joining.INVITATION, "By invitation only: people join with a link an organiser gives them"),
]

CREATORS_CHOICES = [
    (Club.CompetitionCreators.ORGANISERS, "Organisers only"),
    (Club.CompetitionCreators.MEMBERS, "Any member"),
]

#: A role in a club, as a page names it.
ROLE_WORDS: dict[str, str] = {
    Membership.Role.MEMBER: "Member",
    Membership.Role.REFEREE: "Referee",
    Membership.Role.ORGANISER: "Organiser",
}


def joining_words(joining: str) -> str:
    return JOINING_SHORT.get(joining, joining)


def role_words(role: str) -> str:
    return ROLE_WORDS.get(role, role)


def as_a(role: str) -> str:
    """The role in a sentence: "a member", "an organiser"."""
    words = role_words(role).lower()
    return f"an {words}" if words[:1] in "aeiou" else f"a {words}"


ROLE_CHOICES = [
    (Membership.Role.MEMBER, "Member: plays and enters competitions"),
    (Membership.Role.REFEREE, "Referee: also confirms transcripts and settles disputes"),
    (Membership.Role.ORGANISER, "Organiser: runs the club, its members and its competitions"),
]


class ClubSettingsForm(forms.Form):
    name = forms.CharField(label="Club name", max_length=120)
    joining = forms.ChoiceField(
        label="How people join", choices=JOINING_CHOICES, widget=forms.RadioSelect, initial=Club.Joining.INVITATION
    )
    competition_creators = forms.ChoiceField(
        label="Who may create competitions",
        choices=CREATORS_CHOICES,
        widget=forms.RadioSelect,
        initial=Club.CompetitionCreators.ORGANISERS,
    )


class ClubCreateForm(ClubSettingsForm):
    slug = forms.SlugField(
        label="Web address",
        max_length=60,
        help_text="The end of the club's address on this site: letters, digits and hyphens, like chess-friends.",
    )
    field_order = ["name", "slug", "joining", "competition_creators"]


class JoinRequestForm(forms.Form):
    note = forms.CharField(
        label="A note for the organisers (optional)",
        max_length=300,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Say who you are or who told you about the club.",
    )


class InvitationLinkForm(forms.Form):
    max_uses = forms.IntegerField(
        label="How many people may use it",
        min_value=1,
        max_value=MAX_INVITATION_USES,
        initial=1,
    )
    days = forms.IntegerField(label="Days it lasts", min_value=1, max_value=MAX_INVITATION_DAYS, initial=7)
    role = forms.ChoiceField(label="They join as", choices=ROLE_CHOICES, initial=Membership.Role.MEMBER)


class PersonalInvitationForm(forms.Form):
    username = forms.CharField(label="Their user name", max_length=150)
    role = forms.ChoiceField(label="Invite them as", choices=ROLE_CHOICES, initial=Membership.Role.MEMBER)


class RoleForm(forms.Form):
    # One per member on a page of them: short words (what each role may do is said once, above the list).
    role = forms.ChoiceField(label="Role", choices=list(ROLE_WORDS.items()))
