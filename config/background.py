"""Handing work to the Celery workers: the one way services enqueue, and how a reaper tells a task was lost.

Services name a task instead of importing it. The task modules import the services (DESIGN.md,
"Thin tasks"), so a service that imported its task back would close an import cycle. The names
are the tasks' own (``<module>.<function>``, as CELERY_TASK_ROUTES spells them).

This lives in config, beside the Celery app, because league and tournaments both enqueue and both
may depend on config, while league may not depend on tournaments.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, cast

from celery import Task
from django.db import transaction
from kombu.exceptions import ChannelError
from kombu.exceptions import OperationalError as KombuOperationalError

from config.celery import app
from config.outages import REDIS_DOWN, Outage

if TYPE_CHECKING:
    from kombu.transport.virtual import Channel as VirtualChannel

log = logging.getLogger(__name__)


def enqueue_on_commit(task_name: str, *args: object, queue: str) -> None:
    """Send the task ``task_name`` with ``args`` to ``queue`` once the current transaction commits."""
    # robust: a broker that is down must neither undo the commit nor stop the callbacks after this
    # one; the database still says the work is waiting, and a reaper re-sends it.
    transaction.on_commit(partial(send_now, task_name, args, queue=queue), robust=True)


#: What a send raises when the broker cannot be reached (kombu wraps most of Redis's own errors).
_UNREACHABLE: tuple[type[BaseException], ...] = (KombuOperationalError, *REDIS_DOWN)
#: Sends while the broker is away: the rows say what waits, and the sweeps send it again (docs/deploy.md).
#: After a failure, sends are skipped for a few seconds: a Redis that takes connections and never answers
#: holds a send for two socket timeouts, which a request would otherwise wait out on every send.
SENDING = Outage(
    "the broker (CELERY_BROKER_URL)",
    "tasks are not sent; beat's sweeps send again what the database says waits once it is back",
    skip_seconds=5.0,
)


def send_now(task_name: str, args: tuple[object, ...], *, queue: str) -> None:
    """Send the task at once; in eager mode (the unit tests) run it inline instead.

    A broker that cannot be reached loses the send, with a warning (one, not one per send): this runs
    after a commit, on a request that must be answered, and every task is a nudge whose work a sweep
    finds again (reap_matches, reap_validations, enforce_live_clocks). CELERY_TASK_PUBLISH_RETRY_POLICY
    and the broker's socket timeouts (config/settings/base.py) bound one attempt; after a failed one the
    sends of the next few seconds are not attempted at all (SENDING.skipping).
    """
    if app.conf.task_always_eager:
        # send_task ignores task_always_eager and would post to a broker the unit tests do not run;
        # the registered task's apply_async honours it.
        registered_task(task_name).apply_async(args, queue=queue)
        return
    SENDING.call(lambda: app.send_task(task_name, args=args, queue=queue), None, unreachable=_UNREACHABLE)


def registered_task(task_name: str) -> Task[..., object]:
    """The app's task of that name, importing the apps' task modules first if nothing has yet."""
    if task_name not in app.tasks:
        # A web process never imports a task module itself; this runs Celery's autodiscovery.
        app.loader.import_default_modules()
    return cast("Task[..., object]", app.tasks[task_name])


def queue_depth(queue: str) -> int | None:
    """Messages waiting in a broker queue, or None if the broker cannot say."""
    try:
        with app.connection_for_write() as connection:
            # Redis and the embedded filesystem broker are both kombu virtual transports; StdChannel has no queues.
            channel = cast("VirtualChannel", connection.default_channel)
            return int(channel.queue_declare(queue=queue, passive=True).message_count)
    except ChannelError:
        # Redis drops an empty list, so "no such queue" just means nothing is waiting.
        return 0
    except Exception:
        # Any other broker trouble only means "unknown": the reaper then re-sends to be safe.
        log.warning("could not read the depth of queue %s", queue, exc_info=True)
        return None


def queue_lost_some(queue: str, *, waiting: int) -> bool:
    """Whether the broker lost tasks of ``waiting`` items the database says were sent to ``queue`` long ago.

    Long queues are normal: only when the broker holds fewer messages than there are such items were
    some lost (a restarted Redis keeps nothing). Re-sending them all is safe, as every task claims its
    row first, so a duplicate does nothing.
    """
    if not waiting:
        return False
    depth = queue_depth(queue)
    return depth is None or depth < waiting
