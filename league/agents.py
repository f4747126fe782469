"""The engine agent for a bot version: built-in strategies in process, uploads in the sandbox, HTTP bots remote.

Every table that seats bot versions (a match, a validation game, a live table)
gets its agents from :class:`VersionBots`.

Limits and clocks come from settings (config/settings/base.py, "Bots outside
the worker"), so every worker of a deployment plays by the same clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from engine.agents import Agent
from engine.bots import make_bot
from engine.clock import TimeControl
from engine.http_bot import HttpBot
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


@dataclass(frozen=True)
class BotReport:
    """How one external bot fared while a :class:`VersionBots` held it: what its BotRun keeps."""

    failure: str
    detail: str
    log: str
    start_ms: float | None


class VersionBots:
    """The engine agents of the bot versions at one table, by participant index.

    Serves a whole match (tournaments/services/play.py), one validation game
    (league/validation.py) or one run of a live table's bot decisions
    (tournaments/services/live_bots.py). A built-in strategy is made afresh for
    every agent asked of it: it is cheap, and its random stream is the seed given.
    An uploaded or HTTP version is one :class:`RemoteBot`, made on first use and
    kept until :meth:`close`: its sandbox (or connection) is started once and
    lives through every game this object serves, and is closed whatever happens,
    so a failing match never leaves a bot process behind on the worker.
    """

    def __init__(
        self,
        versions: Mapping[int, BotVersion],
        *,
        game: str,
        players: int,
        options: Mapping[str, object],
        before_remote_move: Callable[[], None] | None = None,
    ) -> None:
        """``before_remote_move`` runs before each move of an external bot (a match's heartbeat)."""
        self.versions = versions
        self.game = game
        self.players = players
        self.options = options
        self.before_remote_move = before_remote_move
        #: External bots made so far, by participant index.
        self._remote: dict[int, RemoteBot] = {}

    def agent(self, who: int, *, seat: int, game_number: int, seed: int) -> Agent:
        """Participant ``who`` at ``seat`` of game ``game_number``; ``seed`` feeds a built-in strategy only."""
        version = self.versions[who]
        if version.kind == BotVersion.Kind.BUILTIN:
            return make_bot(
                version.strategy, game=self.game, seat=seat, players=self.players, options=self.options, seed=seed
            )
        seated = self.remote(who).seated(seat, game_number)
        return seated if self.before_remote_move is None else _HookedSeat(seated, self.before_remote_move)

    def remote(self, who: int) -> RemoteBot:
        """The external bot of participant ``who``, made (not started) on first use; ValueError for a built-in."""
        if who not in self._remote:
            self._remote[who] = _remote_bot(
                self.versions[who], game=self.game, players=self.players, options=self.options
            )
        return self._remote[who]

    def make_remote_bots(self) -> None:
        """Make every external bot now, unstarted: a malformed URL fails before the first game is played,
        and every external participant has a report even if none is played."""
        for who, version in self.versions.items():
            if version.kind != BotVersion.Kind.BUILTIN:
                self.remote(who)

    def reports(self) -> dict[int, BotReport]:
        """How each external bot made so far fared, by participant index."""
        return {
            who: BotReport(
                failure=bot.failure.cause if bot.failure else "",
                detail=bot.failure.detail if bot.failure else "",
                log=bot.owner_log(),
                start_ms=None if bot.start_seconds is None else bot.start_seconds * 1000,
            )
            for who, bot in self._remote.items()
        }

    def close(self) -> None:
        for bot in self._remote.values():
            bot.close()

    def __enter__(self) -> VersionBots:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _remote_bot(version: BotVersion, *, game: str, players: int, options: Mapping[str, object]) -> RemoteBot:
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
        return HttpBot(
            url=version.url,
            game=game,
            players=players,
            options=options,
            time_control=http_time_control(),
            allow_private=settings.BOT_HTTP_ALLOW_PRIVATE,
        )
    raise ValueError(f"{version} is a {version.kind} version: it plays in process")


class _HookedSeat:
    """An external bot's seat that calls a hook before each of its moves.

    A match keeps its heartbeat going this way: one game against a slow bot can
    outlast the reaper's grace, and a match that looked dead would be played a
    second time by another worker.
    """

    def __init__(self, agent: Agent, before_move: Callable[[], None]) -> None:
        self.agent = agent
        self.before_move = before_move

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        self.before_move()
        return self.agent.act(observation, legal_actions)
