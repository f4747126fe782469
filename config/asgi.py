"""The ASGI application: what uvicorn serves, live tables and their events streams included (docs/deploy.md)."""

import gc
import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django_application = get_asgi_application()

from config.sync_lane import SYNC_PATHS, SyncLane  # noqa: E402  (Django is set up by now)

sync_lane = SyncLane()


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Live tables' reads and moves on the sync lane (config/sync_lane.py); all else on Django's ASGI handler."""
    if scope["type"] == "http" and SYNC_PATHS.search(scope["path"]):
        await sync_lane(scope, receive, send)
    else:
        await django_application(scope, receive, send)


# Everything loaded so far (Django, the URL conf, the engine) lives as long as the process: kept out of
# the collector's full passes, which otherwise scan it all again, as the pool processes do (config/celery.py).
gc.freeze()
