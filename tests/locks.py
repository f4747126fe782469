"""Holding a row lock in another transaction, as a concurrent writer would, while a test's code runs."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def held_elsewhere(lock: Callable[[], object]) -> Iterator[None]:
    """While the block runs, another thread's open transaction holds what ``lock`` locks (PostgreSQL)."""
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():
                lock()
                held.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(10), "the other transaction never got its lock"
        yield
    finally:
        release.set()
        thread.join(10)
