"""API-wide glue: service errors become 400s with field-level messages (409s for conflicts), never 500s."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from engine.errors import EngineError
from engine.games import UnknownGame
from tournaments.errors import Conflict
from tournaments.formats.registry import UnknownFormat


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DjangoValidationError):
        detail: Any = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = serializers.ValidationError(detail)
    elif isinstance(exc, UnknownGame):
        # A stored competition of a game this process was not given (ENGINE_GAMES differs between nodes).
        exc = ConflictResponse(f"{exc}: this server does not have that game (ENGINE_GAMES, docs/deploy.md)")
    elif isinstance(exc, UnknownFormat):
        # Likewise a format module this process was not given (COMPETITION_FORMATS, docs/formats.md).
        exc = ConflictResponse(f"{exc}: a module of the competition's format is missing (COMPETITION_FORMATS)")
    elif isinstance(exc, EngineError):
        exc = serializers.ValidationError({"non_field_errors": [str(exc)]})
    elif isinstance(exc, Conflict):
        exc = ConflictResponse(str(exc))
    return drf_exception_handler(exc, context)


class ConflictResponse(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the request conflicts with the state of what it acts on"
    default_code = "conflict"
