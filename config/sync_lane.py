"""Short requests at live tables served in one hop to the event loop's shared threads (docs/performance.md).

Under ASGI, Django serves a sync view on a thread of the request's own: each request starts a
thread (asgiref's ThreadSensitiveContext) and then hands over between it and the event loop for
the request's signals, the middleware, the view and its end, besides a task of its own waiting
for the client to go. A table read or a move is a few milliseconds of database work, and the
requests a busy live table makes most: measured under ``make bench-live``, that machinery cost
the machine more than the move did.

These paths are served here instead, by the same middleware and views as every other request,
run synchronously as a WSGI server would run them, in one hop to the loop's shared thread pool;
the database connection goes back to the pool (DATABASE_POOL) as the request ends, as it does for
any request. Everything else stays on Django's ASGI handler.

A table's events stream opens here too: who is asking and the first look at the table are a
request like the others, and the stream then runs on the event loop with nothing of the request
kept. On Django's handler each open page also kept a thread of its own and hundreds of objects of
the handler's machinery, which the garbage collector scanned for as long as the page stayed open.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import HttpRequest, HttpResponseBase
from django.urls import set_script_prefix

#: The table read, the move and the events stream (tournaments/api/urls.py: match-table, match-moves,
#: match-events), after any script prefix.
SYNC_PATHS = re.compile(r"/api/matches/\d+/(?:table|moves|events)/\Z")

#: The site's routes with these three first (config/live_urls.py).
URLCONF = "config.live_urls"

Scope = dict[str, Any]


class SyncLane(ASGIHandler):
    """Django's handler with the synchronous middleware chain, run on a shared thread per request."""

    def __init__(self) -> None:
        BaseHandler.__init__(self)
        # The chain as a WSGI server runs it: no middleware hands over to the event loop and back.
        self.load_middleware(is_async=False)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        try:
            body = await self.read_body(receive)
        except RequestAborted:  # the client went before its body arrived
            return
        response = await sync_to_async(self._respond, thread_sensitive=False)(scope, body)
        if response.streaming:
            await self._stream(response, receive, send)
        else:
            await self.send_response(response, send)

    def _respond(self, scope: Scope, body: Any) -> HttpResponseBase:
        """The whole request on this thread: its signals, middleware, view and end."""
        try:
            set_script_prefix(get_script_prefix(scope))
            signals.request_started.send(sender=self.__class__, scope=scope)
            request, refused = self.create_request(scope, body)
            response: HttpResponseBase
            if request is None:
                assert refused is not None  # Django's answer to a request it could not read (a 400)
                response = refused
            else:
                request.urlconf = URLCONF
                response = self.get_response(request)
            if response.streaming and not getattr(response, "is_async", False):
                raise RuntimeError(f"{scope['path']} answered with a blocking stream: it would hold a shared thread")
            # request_finished, and with it the database connection back to the pool, on this thread. A stream
            # holds nothing of its request (its reads take a connection each time): its request ends as it opens.
            response.close()
            if request is not None:
                _free(request, response)
            return response
        finally:
            body.close()

    async def _stream(self, response: HttpResponseBase, receive: Any, send: Any) -> None:
        """Send a stream until it ends or the client goes, as Django's handler does (ASGIHandler.handle)."""
        tasks = (
            asyncio.ensure_future(self.listen_for_disconnect(receive)),
            asyncio.ensure_future(self.send_response(response, send)),
        )
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            # The client went, the stream ended, or the server is stopping: the other has nothing left to do.
            for task in tasks:
                task.cancel()
            ended = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in ended:
            if isinstance(outcome, Exception) and not isinstance(outcome, RequestAborted):
                raise outcome


def _free(request: HttpRequest, response: HttpResponseBase) -> None:
    """Let the request's objects go as it ends, rather than at the garbage collector's next pass.

    A request refers to itself (its lazy ``user``, ``auser``, its message storage), and DRF's view and
    Request to each other and to the response: each request at a live table left some 140 objects in
    reference cycles, which only the collector frees. They filled its youngest generation twice a second
    at a busy table's pace, and those a pass found still in flight waited for a middle pass, of up to
    120 ms in which the process served nothing (docs/performance.md, "Live tables"). Called once the
    response is closed, when nothing reads the request any more; the response's own content and headers
    stay, to be sent.
    """
    context = vars(response).pop("renderer_context", None) or {}
    for part in (context.get("view"), context.get("request"), request):
        if part is not None:
            vars(part).clear()
