"""Formats kept outside this package: a club's own, or a test's (tests/tournaments/gauntlet.py).

As ``ENGINE_GAMES`` names the games kept outside the engine, ``COMPETITION_FORMATS`` names the modules of
these formats, comma-separated, in the environment of every process that serves or plays their
competitions (web, workers, beat): each module's ``FORMATS`` are registered when the app is ready, after the
built-in ones. A bad entry stops the process at its start with one line, not a recording later.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

from tournaments.formats.base import Format
from tournaments.formats.registry import register

FORMATS_VARIABLE = "COMPETITION_FORMATS"


def outside_modules(environ: Mapping[str, str]) -> list[str]:
    return [name for name in (part.strip() for part in environ.get(FORMATS_VARIABLE, "").split(",")) if name]


def register_outside_formats(environ: Mapping[str, str] = os.environ) -> list[Format]:
    """Register the ``FORMATS`` of each module ``COMPETITION_FORMATS`` names; ImproperlyConfigured says what
    is wrong with an entry."""
    registered: list[Format] = []
    for name in outside_modules(environ):
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise ImproperlyConfigured(f"{FORMATS_VARIABLE}: cannot import {name!r}: {exc}") from None
        formats = getattr(module, "FORMATS", None)
        if not isinstance(formats, tuple | list) or not formats:
            raise ImproperlyConfigured(f"{FORMATS_VARIABLE}: {name} has no FORMATS, the formats it adds")
        for format in formats:
            try:
                registered.append(register(format))
            except ValueError as exc:
                raise ImproperlyConfigured(f"{FORMATS_VARIABLE}: {name}: {exc}") from None
    return registered
