"""The bots of one match: built-in strategies made per game, external bots started once for the whole match.

An uploaded bot's sandbox (or an HTTP bot's connection) lives from its first
decision to the end of the match, and is closed whatever happens, so a
failing match never leaves a bot process behind on the worker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.agents import Agent
from engine.bots import make_bot
from engine.remote import RemoteBot
from league.agents import remote_bot
from league.models import BotVersion


@dataclass(frozen=True)
class BotReport:
    failure: str
    detail: str
    log: str
    start_ms: float | None


class MatchBots:
    def __init__(
        self,
        versions: Sequence[BotVersion],
        *,
        game: str,
        seats: int,
        options: Mapping[str, object],
        heartbeat: Callable[[], None] = lambda: None,
    ) -> None:
        self.versions = versions
        self.heartbeat = heartbeat
        self.game = game
        self.seats = seats
        self.options = options
        #: External bots by participant index.
        self.remote: dict[int, RemoteBot] = {
            who: remote_bot(version, game=game, players=seats, options=options)
            for who, version in enumerate(versions)
            if version.kind != BotVersion.Kind.BUILTIN
        }

    def agent(self, who: int, *, seat: int, game_number: int, seed: int) -> Agent:
        remote = self.remote.get(who)
        if remote is not None:
            return _Beating(remote.seated(seat, game_number), self.heartbeat)
        version = self.versions[who]
        return make_bot(
            version.strategy, game=self.game, seat=seat, players=self.seats, options=self.options, seed=seed
        )

    def close(self) -> None:
        for bot in self.remote.values():
            bot.close()

    def reports(self) -> dict[int, BotReport]:
        """How each external bot fared, by participant index."""
        return {
            who: BotReport(
                failure=bot.failure.cause if bot.failure else "",
                detail=bot.failure.detail if bot.failure else "",
                log=bot.owner_log(),
                start_ms=None if bot.start_seconds is None else bot.start_seconds * 1000,
            )
            for who, bot in self.remote.items()
        }

    def __enter__(self) -> MatchBots:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Beating:
    """An external bot's seat that keeps the match's heartbeat going between its moves.

    One game against a slow bot can outlast the reaper's grace, and a match
    that looked dead would be played a second time by another worker.
    """

    def __init__(self, agent: Agent, heartbeat: Callable[[], None]) -> None:
        self.agent = agent
        self.heartbeat = heartbeat

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        self.heartbeat()
        return self.agent.act(observation, legal_actions)
