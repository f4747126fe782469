"""Live tables over HTTP: the table, moves, a stream of changes, and a person's matches (docs/live-play.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse, StreamingHttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.exceptions import APIException, NotAuthenticated, NotFound, PermissionDenied, Throttled
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_input import JSONInput, validated
from config.schema import errors
from config.throttles import MoveRefusedThrottle
from league.api.identity import acting_player, viewing_player
from league.models import Player
from tournaments.api.live_auth import PlayerTokenAuthentication
from tournaments.errors import Conflict
from tournaments.live_events import table_events, table_events_async, table_once
from tournaments.live_json import LiveJSONRenderer
from tournaments.live_selectors import (
    Snapshot,
    TableHidden,
    Viewer,
    known_snapshot,
    live_table,
    my_matches,
    table_snapshot,
    table_version,
    table_viewer,
)
from tournaments.models import Match
from tournaments.services.live import MoveOutcome, live_move
from tournaments.services.live_turns import table_seen

T = TypeVar("T")


class SeatClockSerializer(serializers.Serializer[Any]):
    move_ms = serializers.IntegerField()
    game_ms = serializers.IntegerField()


class TableSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["person", "bot", "engine"])
    acted = serializers.BooleanField(help_text="chose already in this simultaneous step (what, nobody sees)")
    clock = SeatClockSerializer(allow_null=True)


class TableSerializer(serializers.Serializer[Any]):
    """One viewer's table: a seated person's own view, or the spectator's public view."""

    match = serializers.IntegerField()
    competition = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.CharField()
    version = serializers.IntegerField(help_text="grows with every applied step and every change of the table")
    games = serializers.IntegerField()
    best_of = serializers.BooleanField(
        help_text="the match ends once one side cannot be caught (a knockout at a table of two): games is then "
        "an upper bound"
    )
    game_number = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True, help_text="the viewer's seat in this game; null: spectator")
    seats = TableSeatSerializer(many=True)
    to_act = serializers.ListField(child=serializers.IntegerField())
    awaiting = serializers.ListField(child=serializers.IntegerField(), help_text="seats still to choose")
    legal_actions = serializers.ListField(child=serializers.CharField())
    observation = serializers.JSONField(allow_null=True, help_text="exactly what this seat may see")
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    commitments = serializers.ListField(child=serializers.CharField(), help_text="SHA-256 of each game's seed")
    finished_games = serializers.JSONField()
    server_time = serializers.DateTimeField()


class MoveSerializer(JSONInput[Any]):
    action = serializers.CharField(max_length=200, help_text="one of the table's legal_actions")
    version = serializers.IntegerField(min_value=0, max_value=2**31 - 1, help_text="the table's version you saw")
    client_move_id = serializers.CharField(
        max_length=64, help_text="new for each move; a retry with the same id is applied once"
    )


def _snapshot(pk: int) -> Snapshot:
    try:
        return table_snapshot(pk)
    except Match.DoesNotExist:
        raise NotFound(f"match {pk} does not exist") from None


def _viewer(snapshot: Snapshot, player: Player | None) -> Viewer:
    try:
        return table_viewer(snapshot=snapshot, player=player)
    except TableHidden as exc:
        raise PermissionDenied(str(exc)) from None


def _etag(snapshot: Snapshot, viewer: Viewer) -> str:
    # The version changes with everything a viewer could see change; clocks are the page's to count down.
    return f'"{snapshot.match.version}-{"s" if viewer.participant is None else viewer.participant}"'


#: Token first, as the API's default list has it (a 401 names it in WWW-Authenticate), then the session.
LIVE_AUTHENTICATION: list[type[BaseAuthentication]] = [PlayerTokenAuthentication, SessionAuthentication]
#: The same JSON as every other view, written faster; the browsable page as elsewhere.
LIVE_RENDERERS: list[type[BaseRenderer]] = [LiveJSONRenderer, BrowsableAPIRenderer]


class MatchTableView(APIView):
    authentication_classes = LIVE_AUTHENTICATION
    renderer_classes = LIVE_RENDERERS
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: TableSerializer, 304: OpenApiResponse(description="unchanged since the ETag given")},
        summary="The live table as the caller may see it",
    )
    @errors(add=[403])
    def get(self, request: Request, pk: int) -> Response:
        """A seated person's own view, or the spectator's public view (403 while the competition hides live tables).

        Send the last ETag as If-None-Match to get 304 while nothing changed.
        """
        snapshot = _snapshot(pk)
        player = viewing_player(request)
        viewer = _viewer(snapshot, player)
        if player is not None and viewer.participant is not None:
            table_seen(match_id=pk, player_id=player.pk)
        etag = _etag(snapshot, viewer)
        if request.headers.get("If-None-Match") == etag:
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        return Response(live_table(snapshot=snapshot, viewer=viewer), headers={"ETag": etag})


class MatchMoveView(APIView):
    authentication_classes = LIVE_AUTHENTICATION
    renderer_classes = LIVE_RENDERERS
    permission_classes = [IsAuthenticated]
    # Not the general write rate: a legal move is never refused by a rate. Refused and replayed moves are
    # counted once answered, and only they turn into 429 past the rate (config/throttles.py).
    throttle_classes = [MoveRefusedThrottle]

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        if 400 <= response.status_code < 500 and not isinstance(exc, Throttled):
            # A refusal changed nothing (a move out of time forfeited, which the table shows), so past the
            # rate its answer may become a 429 instead.
            wait = MoveRefusedThrottle().refused(self.request, self)
            if wait is not None:
                return super().handle_exception(Throttled(wait))
        return response

    @extend_schema(request=MoveSerializer, responses={200: TableSerializer}, summary="Make a move at a live table")
    @errors(add=[409])
    def post(self, request: Request, pk: int) -> Response:
        """One decision of the caller's seat. 400: illegal (the engine's reason); 409: stale version, out of turn,
        or out of time (the seat then forfeited); 403: not seated at this match. Nothing changes on an error.
        """
        move = validated(MoveSerializer(data=request.data))
        player = acting_player(request)
        moved = live_move(match_id=pk, player=player, **move)
        if moved.outcome is MoveOutcome.TIMED_OUT:
            raise Conflict("your time for this decision ran out before the move arrived: the seat forfeited the game")
        kept = None if moved.version is None else known_snapshot(pk, moved.version)
        # The table as the move left it (a later move may have come since: its own answer shows that one).
        snapshot = _snapshot(pk) if kept is None else kept
        viewer = _viewer(snapshot, player)
        headers = {"ETag": _etag(snapshot, viewer)}
        if moved.outcome is MoveOutcome.REPLAYED:
            wait = MoveRefusedThrottle().refused(request, self)
            if wait is not None:
                self.throttled(request, wait)  # a loop of replays, answered 429 as refusals are
            headers["Idempotent-Replayed"] = "true"
        return Response(live_table(snapshot=snapshot, viewer=viewer), headers=headers)


class MyMatchSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    competition = serializers.JSONField()
    status = serializers.CharField()
    round = serializers.IntegerField()
    game_number = serializers.IntegerField(allow_null=True)
    participants = serializers.JSONField()
    my_seat = serializers.IntegerField()
    to_act = serializers.ListField(child=serializers.IntegerField())
    my_turn = serializers.BooleanField()
    my_deadline = serializers.DateTimeField(
        allow_null=True, help_text="while it is the caller's turn: when their time for this decision runs out"
    )
    version = serializers.IntegerField()
    table_url = serializers.CharField()
    play_url = serializers.CharField()


class MyMatchesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: MyMatchSerializer(many=True)}, summary="The caller's live and pending matches")
    def get(self, request: Request) -> Response:
        """Where the caller plays: each live or pending match, whose turn it is, and where its table is."""
        player = viewing_player(request)
        if player is None:
            return Response([])
        return Response(my_matches(player=player))


def match_events(request: HttpRequest, pk: int) -> HttpResponseBase:
    """Server-sent events: ``event: table`` with the caller's table now and after every change.

    Authenticated like the API (the session, or ``Authorization: Token ...``).
    """
    asgi = isinstance(request, ASGIRequest)
    # Under an ASGI server the stream's reads run on the event loop's shared threads (config/sync_lane.py opens
    # it on one), and the connection the opening used goes back at once: on a thread of the request's own it
    # would otherwise be held for as long as the page stays open.
    opened = _released(_events_open, asgi)(request, pk)
    if isinstance(opened, HttpResponse):
        return opened
    match_id, viewer = opened

    def build(last: int, nudged: int | None) -> tuple[int, dict[str, Any] | None] | None:
        if nudged is not None and nudged <= last:
            return last, None  # a nudge for a version already sent: nothing to read
        try:
            if nudged is None and table_version(match_id) == last:
                return last, None
            snapshot = table_snapshot(match_id)
        except Match.DoesNotExist:
            return None  # the match was deleted while the page watched it: the stream ends
        return snapshot.match.version, live_table(snapshot=snapshot, viewer=viewer)

    def known(last: int, nudged: int | None) -> tuple[int, dict[str, Any] | None] | None:
        if nudged is None:
            return None
        if nudged <= last:
            return last, None
        snapshot = known_snapshot(match_id, nudged)
        return None if snapshot is None else (nudged, live_table(snapshot=snapshot, viewer=viewer))

    if asgi:
        stream: Any = table_events_async(match_id, _released(build, True), known, _released(_snapshot_read, True))
    elif request.META.get("wsgi.multithread"):
        stream = table_events(match_id, build)
    else:
        # A worker that serves one request at a time (gunicorn's sync workers) is never held by a page.
        stream = table_once(build)
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    # Proxies such as nginx would otherwise hold the events back in their buffers.
    response["X-Accel-Buffering"] = "no"
    return response


def _snapshot_read(match_id: int) -> int | None:
    """Read the match into this process's snapshots, for every page of it a nudge woke: the version read, or None
    if the match is gone."""
    try:
        return table_snapshot(match_id).match.version
    except Match.DoesNotExist:
        return None


def _released(work: Callable[..., T], shared_thread: bool) -> Callable[..., T]:
    """``work``, giving its database connection back afterwards when it ran on a shared thread: to the
    pool (DATABASE_POOL, as docs/deploy.md runs an ASGI server), or closed without one, so that no
    connection is left to a thread that serves no request."""
    if not shared_thread:
        return work

    def run(*args: Any) -> T:
        try:
            return work(*args)
        finally:
            connection.close()

    return run


def _events_open(request: HttpRequest, pk: int) -> tuple[int, Viewer] | HttpResponse:
    """Who is asking, and whether they may watch: the match and its viewer, or the refusal to send."""
    drf_request = Request(request, authenticators=[cls() for cls in LIVE_AUTHENTICATION])
    try:
        player = viewing_player(drf_request)
    except APIException as exc:
        return JsonResponse({"detail": str(exc.detail)}, status=exc.status_code)
    try:
        snapshot = table_snapshot(pk)
    except Match.DoesNotExist:
        return JsonResponse({"detail": f"match {pk} does not exist"}, status=404)
    try:
        return pk, table_viewer(snapshot=snapshot, player=player)
    except TableHidden as exc:
        status_code = 401 if player is None and not drf_request.user.is_authenticated else 403
        return JsonResponse(
            {"detail": str(exc if status_code == 403 else NotAuthenticated.default_detail)}, status=status_code
        )
