"""GET /api/bots/{id}/training-data/: every decision a bot's versions made in their finished games, as JSON
lines, for the bot's owner only (docs/training-data.md). Streamed: a hundred thousand games are never in
memory at once (tournaments/training_data.py)."""

from __future__ import annotations

from typing import Any, NoReturn

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request

from config.schema import errors
from config.throttles import AnonymousReadThrottle, TrainingDataThrottle, UserWriteThrottle
from league.api.permissions import is_bot_owner
from league.models import Bot
from tournaments.api.renderers import CSVErrorsAsJSON, JSONLinesRenderer
from tournaments.training_data import TrainingFilter, training_lines

#: The largest id the database holds (a bigint), and the largest version number (a positive integer column):
#: a larger number is no id of anything, and would be a database error, not a 400, if it reached a query.
_MAX_ID = 2**63 - 1
_MAX_NUMBER = 2**31 - 1


class TrainingDataQuerySerializer(serializers.Serializer[Any]):
    competition = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=_MAX_ID,
        help_text="only the games of this competition (its id)",
        error_messages={
            "invalid": "give a competition's id, a whole number such as 12",
            "min_value": "a competition's id is 1 or more",
            "max_value": "no competition has so large an id",
        },
    )
    version = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=_MAX_NUMBER,
        help_text="only the games this version of the bot played (its number: 1, 2, ...)",
        error_messages={
            "invalid": "give a version's number, a whole number such as 2",
            "min_value": "versions are numbered from 1",
            "max_value": "no version has so large a number",
        },
    )
    since = serializers.DateTimeField(
        required=False,
        help_text="only the games recorded at or after this date (2026-11-28) or date and time "
        "(2026-11-28T09:30:00Z; without a zone, the server's time zone)",
        error_messages={
            "invalid": "give a date (2026-11-28) or a date and time (2026-11-28T09:30:00Z)",
            "overflow": "give a date between the years 1 and 9999",
        },
    )


def _filename(bot: Bot) -> str:
    return f"{slugify(bot.name)[:60] or 'bot'}-{bot.pk}-training-data.jsonl"


class BotTrainingDataView(CSVErrorsAsJSON):
    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONLinesRenderer, JSONRenderer]
    throttle_classes = [AnonymousReadThrottle, UserWriteThrottle, TrainingDataThrottle]

    def permission_denied(self, request: Request, message: str | None = None, code: str | None = None) -> NoReturn:
        # DRF's own words for a signed-out caller say nothing of what to sign in as.
        if request.authenticators and not request.successful_authenticator:
            raise NotAuthenticated("sign in as the bot's owner to download its training data")
        super().permission_denied(request, message, code)

    @extend_schema(
        parameters=[
            TrainingDataQuerySerializer,
            # JSON lines only: DRF's ?format= has nothing to choose here.
            OpenApiParameter("format", exclude=True),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                OpenApiTypes.STR,
                description="one JSON object a line per decision the bot's versions made in their finished "
                "games, in match order: `game`, `competition`, `match`, `game_number`, `version`, `seat`, "
                "`decision` (the seat's own, from 0), `step` (in the game's record), `observation` (what the "
                "seat was sent), `legal_actions`, `action`, and `result` (`rank`, `players`, `score_rate`, "
                "`score_rate_exact`, `score`, `forfeited`) as the game ended for that seat. See "
                "docs/training-data.md.",
            )
        },
        filters=False,
        operation_id="bots_training_data",
    )
    @errors(add=[403])
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        """Training data: every decision the bot's versions made in their finished games, from the bot's own
        seat (never a card that seat could not see), as JSON lines, streamed. The bot's owner only. War asks
        no one anything: a War bot's download is empty."""
        bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
        if not is_bot_owner(request, bot):
            raise PermissionDenied("only the bot's owner may download its training data")
        wanted = _filter(request)
        response = StreamingHttpResponse(training_lines(bot, wanted), content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="{_filename(bot)}"'
        return response


def _filter(request: Request) -> TrainingFilter:
    """The query's filters. A competition or version that does not exist keeps nothing, as a competition the
    bot never entered does and as the API's list filters do: a read is not refused for what it finds."""
    query = TrainingDataQuerySerializer(data=request.query_params.dict())
    query.is_valid(raise_exception=True)
    data = query.validated_data
    return TrainingFilter(competition_id=data.get("competition"), version=data.get("version"), since=data.get("since"))
