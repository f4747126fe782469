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
# A live-table node holds every open page's stream and the tables' snapshots: some 150,000 objects the
# collector scans at about a microsecond each. At Python's thresholds (700, 10, 10) a young pass ran every
# 700 containers made, found most of the requests in flight still alive and promoted them, and a full pass
# followed every few seconds: pauses of 100-150 ms in which no move was served, and a quarter of the
# workers' CPU (docs/performance.md, "Live tables"). Young passes every 10,000, a middle pass every 50 of
# them, a full one every 20 of those (some minutes apart at a busy table's pace): cycles are still collected.
gc.set_threshold(10_000, 50, 20)
