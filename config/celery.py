"""The Celery app: broker from CELERY_BROKER_URL (Redis in production, a folder by default)."""

from __future__ import annotations

import gc
import os

from celery import Celery
from celery.signals import task_prerun, worker_process_init, worker_ready

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


@task_prerun.connect
def _replace_broken_connections(task: object = None, **_: object) -> None:
    """Database connections outlive tasks (CELERY_DB_REUSE_MAX): one that broke or aged out is replaced first.

    Not in eager mode, where the task runs inside the caller's transaction.
    """
    request = getattr(task, "request", None)
    if getattr(request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@worker_process_init.connect
def _freeze_startup_objects(**_: object) -> None:
    """Move what the pool process inherited (Django, the app, the engine) out of the collector's reach.

    Those objects live as long as the process; without this, every full collection that a
    match's thousands of records trigger scans them all again.
    """
    gc.collect()
    gc.freeze()
