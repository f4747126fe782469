"""The learner's opponents, built as ``python -m engine play`` builds its bots (engine/harness.py).

An opponent is a built-in strategy by name (``python -m engine games`` lists them), a bot file run
in the sandbox (``./mybot.py`` or a ``.zip``), an HTTP bot's URL, or any object with the
:class:`~engine.agents.Agent` method ``act``. A built-in bot is made afresh for every game, with the
stream the engine gives it from the game's seed and its seat; a sandboxed or HTTP bot is started once
and kept for every game, as the server keeps one for a whole match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.agents import Agent, close_agent
from engine.bots import make_bot
from engine.harness import is_external, remote_bot
from engine.remote import RemoteBot

#: What the caller may give for one opponent.
OpponentSpec = str | Agent


class Opponents:
    """One opponent per seat of ``seats``, in order."""

    def __init__(
        self,
        specs: Sequence[OpponentSpec],
        *,
        game: str,
        seats: Sequence[int],
        players: int,
        options: Mapping[str, Any],
    ) -> None:
        self._game, self._players, self._options = game, players, dict(options)
        self._specs = dict(zip(seats, specs, strict=True))
        self._remotes: dict[int, RemoteBot] = {}
        for seat, spec in self._specs.items():
            if isinstance(spec, str) and is_external(spec):
                self._remotes[seat] = remote_bot(spec, game=game, players=players, options=self._options)
            elif isinstance(spec, str):
                # A misspelt name fails here, naming the bots there are, not at the first game.
                make_bot(spec, game=game, seat=seat, players=players, options=self._options, seed=0)
        self._agents: dict[int, Agent] = {}

    def seat_for_game(self, seed: int, game_number: int) -> None:
        """The agents of one game: built-in bots seeded from its seed, remote bots seated for it."""
        agents: dict[int, Agent] = {}
        for seat, spec in self._specs.items():
            if seat in self._remotes:
                agents[seat] = self._remotes[seat].seated(seat, game_number)
            elif isinstance(spec, str):
                agents[seat] = make_bot(
                    spec, game=self._game, seat=seat, players=self._players, options=self._options, seed=seed
                )
            else:
                agents[seat] = spec
        self._agents = agents

    def agent(self, seat: int) -> Agent:
        return self._agents[seat]

    def remote(self, seat: int) -> RemoteBot | None:
        """The sandboxed or HTTP bot at ``seat``, for its log and its failure; None for the others."""
        return self._remotes.get(seat)

    def close(self) -> None:
        for bot in self._remotes.values():
            bot.close()
        for spec in self._specs.values():
            if not isinstance(spec, str):
                close_agent(spec)
