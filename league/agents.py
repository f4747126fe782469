"""The engine agent for a bot version: built-in strategies in process, uploads in the sandbox, HTTP bots remote.

Limits and clocks come from settings (config/settings/base.py, "Bots outside
the worker"), so every worker of a deployment plays by the same clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from django.conf import settings

from engine.clock import TimeControl
from engine.remote import RemoteBot
from engine.sandbox import BotCode, SandboxedBot, SandboxLimits
from league.models import BotVersion


def sandbox_time_control() -> TimeControl:
    return TimeControl(
        move_ms=settings.BOT_MOVE_MS,
        bank_ms=settings.BOT_BANK_MS,
        wall_ms=settings.BOT_WALL_MS,
        start_ms=settings.BOT_START_MS,
    )


def http_time_control() -> TimeControl:
    return TimeControl(
        move_ms=settings.BOT_HTTP_MOVE_MS,
        bank_ms=settings.BOT_HTTP_BANK_MS,
        wall_ms=settings.BOT_WALL_MS,
        start_ms=max(settings.BOT_HTTP_MOVE_MS, 2000),
    )


def sandbox_limits() -> SandboxLimits:
    return SandboxLimits(
        memory_mb=settings.BOT_MEMORY_MB,
        cpu_seconds=settings.BOT_CPU_SECONDS,
        processes=settings.BOT_PROCESSES,
        log_bytes=settings.BOT_LOG_BYTES,
    )


def stored_code(version: BotVersion) -> BotCode:
    return BotCode(filename=version.filename, content=bytes(version.source), entry=version.entry, sha256=version.sha256)


def remote_bot(version: BotVersion, *, game: str, players: int, options: Mapping[str, object]) -> RemoteBot:
    """An upload or HTTP version as a bot for one match; the caller starts and closes it."""
    if version.kind == BotVersion.Kind.UPLOAD:
        return SandboxedBot(
            code=stored_code(version),
            cache_dir=Path(settings.BOT_CACHE_DIR),
            game=game,
            players=players,
            options=options,
            time_control=sandbox_time_control(),
            limits=sandbox_limits(),
            python=settings.BOT_SANDBOX_PYTHON,
        )
    if version.kind == BotVersion.Kind.HTTP:
        from engine.http_bot import HttpBot

        return HttpBot(
            url=version.url,
            game=game,
            players=players,
            options=options,
            time_control=http_time_control(),
            allow_private=settings.BOT_HTTP_ALLOW_PRIVATE,
        )
    raise ValueError(f"{version} is a {version.kind} version: it plays in process")
