"""The Celery app: broker from CELERY_BROKER_URL (Redis in production, a folder by default)."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("cardclub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
def _announce_ready(**_: object) -> None:
    """Tell whoever started this worker (tests, drills, benchmarks) that it consumes now, broker or not."""
    path = os.environ.get("CARDCLUB_WORKER_READY_FILE")
    if path:
        with open(path, "w") as ready:
            ready.write(str(os.getpid()))
