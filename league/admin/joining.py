"""How people came to join clubs: invitation codes, join requests and personal invitations, read-only (the API
makes and decides them: a personal invitation is answered only by the person invited)."""

from __future__ import annotations

from django.contrib import admin

from league.admin.permissions import ClubScopedAdmin
from league.joining import invitation_problem
from league.models import Invitation, JoinRequest, PersonalInvitation


@admin.register(Invitation)
class InvitationAdmin(ClubScopedAdmin[Invitation]):
    list_display = ["club", "role", "uses", "max_uses", "expires_at", "state", "created_by", "created_at"]
    list_filter = ["role", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["club__name", "created_by__display_name"]
    list_select_related = ["club", "created_by"]
    # The code is a credential: the organisers who made it have it from the API; it is not shown here.
    fields = ("club", "role", "uses", "max_uses", "expires_at", "revoked_at", "created_by", "created_at", "state")
    readonly_fields = fields

    @admin.display(description="State")
    def state(self, invitation: Invitation) -> str:
        return invitation_problem(invitation) or "admits people"


@admin.register(JoinRequest)
class JoinRequestAdmin(ClubScopedAdmin[JoinRequest]):
    list_display = ["player", "club", "status", "created_at", "decided_by", "decided_at"]
    list_filter = ["status", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["player__display_name", "club__name"]
    list_select_related = ["player", "club", "decided_by"]
    fields = ("club", "player", "note", "status", "created_at", "decided_by", "decided_at")
    readonly_fields = fields


@admin.register(PersonalInvitation)
class PersonalInvitationAdmin(ClubScopedAdmin[PersonalInvitation]):
    list_display = ["player", "club", "role", "status", "invited_by", "created_at", "decided_at"]
    list_filter = ["status", "role", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["player__display_name", "club__name"]
    list_select_related = ["player", "club", "invited_by"]
    fields = ("club", "player", "role", "status", "invited_by", "created_at", "decided_at")
    readonly_fields = fields
