"""Renderers for the exports: CSV standings and JSON lines of game records (docs/exports.md)."""

from __future__ import annotations

import json
from typing import Any

from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView


class CSVRenderer(BaseRenderer):
    """Lets a client ask for ``text/csv`` (Accept, or ``?format=csv``); the view writes the CSV itself.

    Errors are answered as JSON whatever was asked (``CSVErrorsAsJSON``), as the schema says.
    """

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return data if isinstance(data, bytes) else JSONRenderer().render(data)


class CSVErrorsAsJSON(APIView):
    """A view base: an error is JSON (``{"detail": ...}``) even for a client that asked for CSV or JSON lines."""

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        # No renderer chosen yet (a ?format= no renderer has is a 404 of the negotiation itself): DRF would
        # then take the view's first, which need not be JSON.
        chosen = getattr(self.request, "accepted_renderer", None)
        if chosen is None or isinstance(chosen, (CSVRenderer, JSONLinesRenderer)):
            self.request.accepted_renderer = JSONRenderer()
            self.request.accepted_media_type = JSONRenderer.media_type
        return response


class JSONLinesRenderer(BaseRenderer):
    """JSON lines (one JSON value a line): the games export streams its own; an error is one line."""

    media_type = "application/x-ndjson"
    format = "jsonl"
    charset = None

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if data is None:
            return b""
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
