"""Exports of a competition (docs/exports.md): every game as JSON lines, and the whole competition as one
document another instance imports. Both stream: a competition of a hundred thousand games is never one
string in memory, and its games are read a chunk at a time (tournaments/game_exports.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.schema import errors
from league.api.identity import viewing_player
from league.models import Club, Membership
from league.selectors import club_role
from tournaments.api.format_serializers import CompetitionSerializer, any_format
from tournaments.api.games import revealed
from tournaments.api.renderers import CSVErrorsAsJSON, JSONLinesRenderer
from tournaments.api.serializers import RecordQuerySerializer
from tournaments.competition_export import competition_document
from tournaments.fields import encode_compact
from tournaments.game_exports import competition_game_chunks
from tournaments.models import Competition, Game, Match
from tournaments.public_records import proof_of, public_game_records
from tournaments.selectors import competition_list, competition_organiser
from tournaments.services.competition_import import CompetitionFileError, competition_import


def _filename(competition: Competition, what: str) -> str:
    return f"{slugify(competition.name)[:60] or 'competition'}-{competition.pk}-{what}"


def _attachment(body: Iterator[bytes], content_type: str, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _organiser_only(request: Request, competition: Competition) -> None:
    player = viewing_player(request)
    if player is None:
        raise NotAuthenticated("sign in as one of the competition's organisers")
    if not competition_organiser(competition=competition, player=player):
        raise PermissionDenied("only the competition's organisers may have this")


def _identity(game: Game) -> bytes:
    """The first keys of a game's line: which game it is, where it was played and who sat where."""
    return (
        f'{{"game":{game.pk},"match":{game.match_id},"round":{game.match.round.number},'
        f'"match_number":{game.match.number},"number":{game.number},"seating":{encode_compact(game.seating)},'
    ).encode()


def _tail(game: Game, proof: tuple[int, str] | None) -> bytes:
    shown = revealed(game, *proof) if proof else {}
    return b"".join(b"," + encode_compact(k).encode() + b":" + encode_compact(v).encode() for k, v in shown.items())


def _one_line(text: str) -> bytes:
    """JSON that no reader splits: U+2028 and U+2029 are line breaks to some (Python's splitlines), so they
    are written escaped, as the public records are."""
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode()


def public_lines(competition: Competition) -> Iterator[bytes]:
    """One line per game of a done match: its public record as ``GET /api/games/{id}/record/`` serves it
    (with the seed, salt and commitment a done live match reveals to everyone), built from the cache."""
    for chunk in competition_game_chunks(competition, with_records=False):
        records = public_game_records(chunk, lambda game: game.match.status == Match.Status.DONE)
        yield b"".join(
            _identity(game) + b'"visibility":"public","record":' + public.text + _tail(game, public.proof) + b"}\n"
            for game, public in zip(chunk, records, strict=True)
        )


def private_lines(competition: Competition) -> Iterator[bytes]:
    """One line per game: its stored record, seed and deal included (a finished competition's, for its
    organisers)."""
    for chunk in competition_game_chunks(competition, with_records=True):
        yield b"".join(
            _identity(game)
            + b'"visibility":"private","record":'
            + _one_line(encode_compact(game.record))
            + _tail(game, proof_of(game.record))
            + b"}\n"
            for game in chunk
        )


class CompetitionGamesExportView(CSVErrorsAsJSON):
    permission_classes = [AllowAny]
    renderer_classes = [JSONLinesRenderer, JSONRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "view",
                str,
                enum=["public", "private"],
                description="public (the default): each game's public record; private: the stored records, "
                "seeds included, for the competition's organisers once it is finished",
            ),
            # JSON lines only: DRF's ?format= has nothing to choose here.
            OpenApiParameter("format", exclude=True),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                OpenApiTypes.STR,
                description="one JSON object a line per game of a done match, in match order: `game`, `match`, "
                "`round`, `match_number`, `number`, `seating` (entrant ids by seat), `visibility`, `record`, "
                "and for a done live match's game the revealed `seed`, `salt` and `commitment`",
            )
        },
        filters=False,
        operation_id="tournaments_games_export",
    )
    @errors(add=[403])
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        """Every game of the competition as JSON lines, streamed. Nothing of a match still in play is in it
        (DESIGN.md, "Seeds stay secret until the end"); the private records only for the competition's
        organisers and only once it is finished."""
        query = RecordQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        competition = get_object_or_404(Competition, pk=pk)
        if query.validated_data.get("view", "public") == "private":
            if competition.status != Competition.Status.FINISHED:
                raise PermissionDenied("the private records are shown once the competition is finished")
            _organiser_only(request, competition)
            lines = private_lines(competition)
        else:
            lines = public_lines(competition)
        return _attachment(lines, "application/x-ndjson", _filename(competition, "games.jsonl"))


class CompetitionExportView(CSVErrorsAsJSON):
    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer]

    @extend_schema(
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT,
                description='`{"format": "cardclub-competition", "version": 1, "competition", "entrants", '
                '"rounds", "games"}` (docs/exports.md), for `manage.py import_competition` on another instance',
            )
        },
        filters=False,
    )
    @errors(add=[403])
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        """The whole competition as one JSON document another instance imports, for its organisers, finished
        or not: settings, entrants, rounds, matches and every done match's games with their stored records.
        A match not done is listed without its seed or games; challenges, live tables and transcripts are
        left out."""
        competition = get_object_or_404(Competition, pk=pk)
        _organiser_only(request, competition)
        return _attachment(
            competition_document(competition), "application/json", _filename(competition, "competition.json")
        )


#: The largest file the API imports; a larger one goes through ``manage.py import_competition``.
MAX_IMPORT_BYTES = 64 * 1024 * 1024


class CompetitionImportSerializer(serializers.Serializer[Any]):
    club = serializers.PrimaryKeyRelatedField(queryset=Club.objects.all(), help_text="the club that will hold it")
    file = serializers.FileField(help_text="the JSON document GET /api/tournaments/{id}/export/ gave")


class CompetitionImportView(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(request={"multipart/form-data": CompetitionImportSerializer}, responses={201: any_format("output")})
    @errors(add=[403])
    def post(self, request: Request) -> Response:
        """Recreate a competition exported by another instance (or this one) in a club the caller organises,
        as ``manage.py import_competition`` does (docs/exports.md): its standings are computed again from its
        games. A file that is not an export, or of a newer version, is a 400 on ``file`` saying why."""
        data = CompetitionImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        club: Club = data.validated_data["club"]
        if club_role(club=club, player=viewing_player(request)) != Membership.Role.ORGANISER:
            raise PermissionDenied("only the club's organisers import competitions into it")
        upload = data.validated_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise ValidationError(
                {"file": [f"larger than {MAX_IMPORT_BYTES // 2**20} MB: use manage.py import_competition"]}
            )
        try:
            document = json.loads(upload.read().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ValidationError({"file": ["not a JSON file: not a competition export"]}) from None
        try:
            competition = competition_import(document=document, club=club)
        except CompetitionFileError as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        shown = CompetitionSerializer(competition_list().get(pk=competition.pk)).data
        return Response(shown, status=status.HTTP_201_CREATED)
