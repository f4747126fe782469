"""/api/matches/{id}/transcripts/: games played with real cards, submitted, verified, confirmed or disputed.

Who sees what: a match's transcripts, their records and their audit trail are for the
match's people (and the owners of its bots), the competition's referees and its
organisers; anyone else logged in gets a 403. The disputes of a competition
(/api/tournaments/{id}/disputes/) are for its organisers and referees.
The rules are the services' (tournaments/services/transcripts.py); these views only
read the request and map the services' refusals: 400 bad input, 403 not yours,
404 no such transcript, 409 not in a state that allows it.
"""

from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from config.api_input import JSONInput, JSONObjectField, JSONParser
from config.schema import errors
from league.api.identity import viewing_player
from league.models import Player
from tournaments.api.scoping import CompetitionScoped, MatchScoped, schema_only
from tournaments.models import Transcript, TranscriptEvent
from tournaments.services.transcripts import (
    competition_disputes,
    match_transcripts,
    transcript_accept,
    transcript_confirm,
    transcript_dispute,
    transcript_settler,
    transcript_submit,
    transcript_viewer,
    transcript_void,
)

#: An uploaded record larger than this is refused before it is parsed (a long 1923 match is well under).
MAX_UPLOAD_BYTES = 5 * 1024 * 1024


# --- Shapes ---------------------------------------------------------------------------------------


class TranscriptEventSerializer(serializers.ModelSerializer[TranscriptEvent]):
    actor_name = serializers.SerializerMethodField()

    class Meta:
        model = TranscriptEvent
        fields = ["actor", "actor_name", "action", "from_status", "to_status", "note", "at"]

    def get_actor_name(self, event: TranscriptEvent) -> str:
        """The person who made the change; "verifier" for the engine's own check."""
        return event.actor.display_name if event.actor is not None else "verifier"


class TranscriptSerializer(serializers.ModelSerializer[Transcript]):
    submitted_by_name = serializers.CharField(source="submitted_by.display_name", read_only=True)
    confirmed_by = serializers.SerializerMethodField()
    events = TranscriptEventSerializer(many=True, read_only=True)

    class Meta:
        model = Transcript
        fields = [
            "number",
            "match",
            "game_number",
            "submitted_by",
            "submitted_by_name",
            "status",
            "reason",
            "confirmed_by",
            "record",
            "events",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_confirmed_by(self, transcript: Transcript) -> list[int]:
        """The entrants who have confirmed it (the submitter's confirmation is implied, not listed)."""
        return sorted(c.entrant_id for c in transcript.confirmations.all())


class TranscriptSubmitSerializer(JSONInput[Any]):
    game_number = serializers.IntegerField(help_text="Which game of the match, from 0")
    record = JSONObjectField(help_text="The game in the engine's record format (docs/records.md)")


class TranscriptUploadSerializer(serializers.Serializer[Any]):
    game_number = serializers.IntegerField(help_text="Which game of the match, from 0")
    file = serializers.FileField(help_text="A JSON file holding the record (docs/records.md)")


class DisputeSerializer(JSONInput[Any]):
    note = serializers.CharField(help_text="What is wrong with the transcript")


class VoidSerializer(JSONInput[Any]):
    reason = serializers.CharField(help_text="Why the transcript is void")


class AcceptSerializer(JSONInput[Any]):
    note = serializers.CharField(required=False, allow_blank=True, default="")


# --- Views ----------------------------------------------------------------------------------------


def _caller(request: Request) -> Player:
    player = viewing_player(request)
    if player is None:
        # Nobody without a player profile plays, referees or organises anything.
        raise PermissionDenied("you take no part in this match")
    return player


def _uploaded_record(request: Request) -> object:
    upload = request.FILES["file"]
    if upload.size is not None and upload.size > MAX_UPLOAD_BYTES:
        raise ValidationError({"file": [f"larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB"]})
    try:
        return json.loads(upload.read())
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError({"file": [f"not valid JSON: {exc}"]}) from None
    except RecursionError:
        # As config.api_input.JSONParser does for a JSON body: json gives up about a thousand levels down.
        raise ValidationError({"file": ["not valid JSON: nested too deeply"]}) from None


class TranscriptViewSet(MatchScoped, viewsets.GenericViewSet[Transcript]):
    """The transcripts of one match, by number, with their audit trails."""

    serializer_class = TranscriptSerializer
    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser, MultiPartParser, FormParser]
    pagination_class = None
    lookup_field = "number"
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Transcript]:
        if schema_only(self):
            return Transcript.objects.none()
        return match_transcripts(match=self.match)

    def _viewable(self) -> Player:
        player = _caller(self.request)
        if not transcript_viewer(match=self.match, player=player):
            raise PermissionDenied("only the match's participants, referees and organisers see its transcripts")
        return player

    def _transcript(self) -> Transcript:
        return get_object_or_404(self.get_queryset(), number=self.kwargs["number"])

    def _shown(self, transcript: Transcript, code: int = status.HTTP_200_OK) -> Response:
        fresh = match_transcripts(match=self.match).get(pk=transcript.pk)
        return Response(TranscriptSerializer(fresh).data, status=code)

    @extend_schema(responses=TranscriptSerializer(many=True))
    @errors(add=[403])
    def list(self, request: Request, **kwargs: Any) -> Response:
        self._viewable()
        return Response(TranscriptSerializer(self.get_queryset(), many=True).data)

    @extend_schema(responses=TranscriptSerializer)
    @errors(add=[403])
    def retrieve(self, request: Request, **kwargs: Any) -> Response:
        self._viewable()
        return Response(TranscriptSerializer(self._transcript()).data)

    @extend_schema(
        request={"application/json": TranscriptSubmitSerializer, "multipart/form-data": TranscriptUploadSerializer},
        responses={201: TranscriptSerializer},
    )
    @errors(add=[409])
    def create(self, request: Request, **kwargs: Any) -> Response:
        """Submit a game's record (JSON ``{"game_number", "record"}`` or a ``file`` upload); a worker verifies it."""
        player = _caller(request)
        if "file" in request.FILES:
            data: serializers.Serializer[Any] = TranscriptUploadSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            record = _uploaded_record(request)
        else:
            data = TranscriptSubmitSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            record = data.validated_data["record"]
        transcript = transcript_submit(
            match=self.match, player=player, game_number=data.validated_data["game_number"], record=record
        )
        return self._shown(transcript, status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=TranscriptSerializer)
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, **kwargs: Any) -> Response:
        """A participant confirms a verified transcript; a referee or organiser confirms it for everyone."""
        player = _caller(request)
        transcript = transcript_confirm(transcript=self._transcript(), player=player)
        return self._shown(transcript)

    @extend_schema(request=DisputeSerializer, responses=TranscriptSerializer)
    @errors(add=[409])
    @action(detail=True, methods=["post"])
    def dispute(self, request: Request, **kwargs: Any) -> Response:
        """A participant disputes a verified transcript; the competition's organisers and referees settle it."""
        player = _caller(request)
        data = DisputeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        transcript = transcript_dispute(transcript=self._transcript(), player=player, note=data.validated_data["note"])
        return self._shown(transcript)

    @extend_schema(request=VoidSerializer, responses=TranscriptSerializer)
    @errors(add=[409])
    @action(detail=True, methods=["post"])
    def void(self, request: Request, **kwargs: Any) -> Response:
        """An organiser or referee voids a transcript not yet accepted; its game awaits another transcript."""
        player = _caller(request)
        data = VoidSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        transcript = transcript_void(transcript=self._transcript(), player=player, reason=data.validated_data["reason"])
        return self._shown(transcript)

    @extend_schema(request=AcceptSerializer, responses=TranscriptSerializer)
    @errors(add=[409])
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, **kwargs: Any) -> Response:
        """An organiser or referee accepts a verified or disputed transcript; a complete match is recorded."""
        player = _caller(request)
        data = AcceptSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        transcript = transcript_accept(transcript=self._transcript(), player=player, note=data.validated_data["note"])
        return self._shown(transcript)


class DisputeViewSet(CompetitionScoped, viewsets.GenericViewSet[Transcript]):
    """The competition's disputed transcripts, for its organisers and referees to void or accept."""

    serializer_class = TranscriptSerializer
    permission_classes = [IsAuthenticated]
    pagination_class = None

    def get_queryset(self) -> QuerySet[Transcript]:
        if schema_only(self):
            return Transcript.objects.none()
        return competition_disputes(competition=self.competition)

    @extend_schema(responses=TranscriptSerializer(many=True))
    @errors(add=[403])
    def list(self, request: Request, **kwargs: Any) -> Response:
        if not transcript_settler(competition=self.competition, player=_caller(request)):
            raise PermissionDenied("only the competition's organisers and referees see its disputes")
        return Response(TranscriptSerializer(self.get_queryset(), many=True).data)
