"""Transcripts of games played with real cards: organisers read them with their audit trail, and void or accept.

The actions call the same services as the API (tournaments/services/transcripts.py), as the
organiser's own player: a refusal (a participant settling their own match, a transcript
already settled) becomes an error message for that transcript, and the others still go.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from league.admin.permissions import can_organise, own_player
from league.admin.service_errors import service_error_text
from league.models import Player
from tournaments.admin.figures import shown_game_number
from tournaments.admin.scope import MatchPartAdmin, ReadOnlyInline
from tournaments.admin.titles import TitledPages, transcript_title
from tournaments.models import Transcript, TranscriptEvent
from tournaments.services.transcripts import TranscriptConflict, transcript_accept, transcript_void


class TranscriptEventInline(ReadOnlyInline[TranscriptEvent, Transcript]):
    model = TranscriptEvent
    fields = ("at", "actor", "action", "from_status", "to_status", "note")
    readonly_fields = fields
    verbose_name = "audit event"

    def get_queryset(self, request: HttpRequest) -> QuerySet[TranscriptEvent]:
        return super().get_queryset(request).select_related("actor")


def _settle(
    model_admin: admin.ModelAdmin[Transcript],
    request: HttpRequest,
    queryset: QuerySet[Transcript],
    settle: Callable[[Transcript, Player], Transcript],
    done: str,
) -> None:
    player = own_player(request)
    if player is None:
        model_admin.message_user(request, "you need a player profile to settle transcripts", messages.ERROR)
        return
    settled = 0
    for transcript in queryset.order_by("match_id", "number"):
        try:
            settle(transcript, player)
        except ValidationError as error:
            model_admin.message_user(request, f"{transcript}: {service_error_text(error)}", messages.ERROR)
        except (PermissionDenied, TranscriptConflict) as error:
            model_admin.message_user(request, f"{transcript}: {error}", messages.ERROR)
        else:
            settled += 1
    if settled:
        model_admin.message_user(request, f"{done} {settled} transcript(s).", messages.SUCCESS)


@admin.action(description="Void the selected transcripts", permissions=["settle"])
def void_transcripts(
    model_admin: admin.ModelAdmin[Transcript], request: HttpRequest, queryset: QuerySet[Transcript]
) -> None:
    def void(transcript: Transcript, player: Player) -> Transcript:
        return transcript_void(
            transcript=transcript, player=player, reason=f"voided by {player.display_name} in the admin site"
        )

    _settle(model_admin, request, queryset, void, "Voided")


@admin.action(description="Accept the selected transcripts", permissions=["settle"])
def accept_transcripts(
    model_admin: admin.ModelAdmin[Transcript], request: HttpRequest, queryset: QuerySet[Transcript]
) -> None:
    def accept(transcript: Transcript, player: Player) -> Transcript:
        return transcript_accept(transcript=transcript, player=player, note="accepted in the admin site")

    _settle(model_admin, request, queryset, accept, "Accepted")


@admin.register(Transcript)
class TranscriptAdmin(TitledPages[Transcript], MatchPartAdmin[Transcript]):
    list_display = ["title", "competition", "game_shown", "submitted_by", "status", "reason", "updated_at"]
    list_filter = ["status", "match__competition__game", ("match__competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["match__competition__name", "submitted_by__display_name"]
    list_select_related = ["match__competition", "submitted_by"]
    ordering = ["-updated_at", "-id"]
    fields = ("match", "number", "game_shown", "submitted_by", "status", "reason", "created_at", "record_shown")
    readonly_fields = fields
    inlines = [TranscriptEventInline]
    actions = [void_transcripts, accept_transcripts]

    def object_title(self, obj: Transcript) -> str:
        return transcript_title(obj)

    @admin.display(description="Game", ordering="game_number")
    def game_shown(self, transcript: Transcript) -> int:
        return shown_game_number(transcript.game_number)

    @admin.display(description="Competition", ordering="match__competition__name")
    def competition(self, transcript: Transcript) -> str:
        return str(transcript.match.competition)

    @admin.display(description="Record")
    def record_shown(self, transcript: Transcript) -> str:
        return format_html("<pre>{}</pre>", json.dumps(transcript.record, indent=1, sort_keys=True))

    def has_settle_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)
