"""Reading settings from the environment, with a clear error for a bad value."""

from __future__ import annotations

import os
import re

from django.core.exceptions import ImproperlyConfigured

from engine.errors import EngineError
from engine.games import game_names

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of true/false, 1/0, yes/no, on/off")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


_RATE = re.compile(r"^\d+/(s|sec|second|m|min|minute|h|hour|d|day)$")


def env_rates(name: str, defaults: dict[str, str | None]) -> dict[str, str | None]:
    """``scope=rate,...`` over the defaults: a rate is ``N/second|minute|hour|day`` (or s, m, h, d), or ``off``."""
    rates = dict(defaults)
    for item in env_list(name, []):
        scope, _, rate = item.partition("=")
        scope, rate = scope.strip(), rate.strip()
        if scope not in defaults:
            raise ImproperlyConfigured(f"{name}: unknown scope {scope!r}; the scopes are {', '.join(sorted(defaults))}")
        if rate == "off":
            rates[scope] = None
        elif _RATE.match(rate):
            rates[scope] = rate
        else:
            raise ImproperlyConfigured(f"{name}: {item!r} is not scope=N/period (second, minute, hour or day) or =off")
    return rates


def check_engine_games() -> tuple[str, ...]:
    """Every game, the engine's own and those ``ENGINE_GAMES`` registers, each imported and checked now:
    a bad entry stops the process at start with one line, not a match or a request later."""
    try:
        return game_names()
    except EngineError as exc:
        raise ImproperlyConfigured(str(exc)) from None
