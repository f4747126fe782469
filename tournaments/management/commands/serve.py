"""``manage.py serve``: the web server and a real Celery worker (with beat) beside it, on one machine.

What `make run` ends with. The worker uses whatever broker CELERY_BROKER_URL names:
by default kombu's filesystem transport under var/, so nothing else needs to run.
"""

from __future__ import annotations

import signal
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from tournaments.worker_processes import WorkerProcess

#: How long the worker may take to finish its tasks when the server stops, before it is killed.
STOP_SECONDS = 5


class Command(BaseCommand):
    help = "Run the development web server with a Celery worker and beat beside it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2, help="worker processes playing matches")

    def handle(self, *args: Any, **options: Any) -> None:
        worker = WorkerProcess(
            "local",
            queues=f"{settings.CELERY_GAMES_QUEUE},{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_WEBHOOKS_QUEUE}",
            concurrency=options["concurrency"],
            beat=True,
            log_path=settings.VAR_DIR / "worker.log",
        )
        # SIGTERM ends the server like Ctrl-C does, so the worker is stopped on the way out. Ctrl-C itself is
        # set too: a shell without job control starts a background command with SIGINT ignored, Python then
        # leaves it ignored, and the server would outlive every Ctrl-C sent to its group.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        signal.signal(signal.SIGINT, signal.default_int_handler)
        worker.start()
        self.stdout.write(
            f"worker: {options['concurrency']} processes on {settings.CELERY_BROKER_URL.split('://')[0]} "
            f"(log: {settings.VAR_DIR / 'worker.log'})"
        )
        try:
            call_command("runserver", options["addrport"], use_reloader=False)
        finally:
            # Not a long warm shutdown: a match cut short is put back and played again (exactly-once
            # recording), and whoever pressed Ctrl-C wants their terminal back.
            self.stdout.write(f"stopping the worker (at most {STOP_SECONDS} s)")
            worker.stop(timeout=STOP_SECONDS)
