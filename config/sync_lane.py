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
any request. Everything else, the events streams first of all, stays on Django's ASGI handler.
"""

from __future__ import annotations

import re
from typing import Any

from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import HttpResponseBase
from django.urls import set_script_prefix

#: The table read and the move (tournaments/api/urls.py: match-table, match-moves), after any script prefix.
SYNC_PATHS = re.compile(r"/api/matches/\d+/(?:table|moves)/\Z")

#: The site's routes with these two first (config/live_urls.py).
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
            if response.streaming:
                raise RuntimeError(f"{scope['path']} answered with a stream: serve it on the ASGI handler")
            # request_finished, and with it the database connection back to the pool, on this thread.
            response.close()
            return response
        finally:
            body.close()
