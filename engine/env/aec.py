"""The PettingZoo AEC environment: one person's seat decides at a time (docs/training.md, "Environments").

A simultaneous step (Punk's trick, a 1923 tick) is asked seat by seat, ascending; a seat's choice stays
hidden until every seat of the step has chosen, exactly as at a live table (engine/referee.py), so
an agent never sees another's choice for the same step.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv

from engine.env.seeds import SeedStream
from engine.env.spaces import action_space, observation_space
from engine.env.table import Table, TableRecords, agent_name


class CardGameAEC(TableRecords, AECEnv):  # type: ignore[misc]
    metadata = {"name": "cardclub_aec_v0", "render_modes": [], "is_parallelizable": True}

    def __init__(self, game: str, players: int | None = None, **options: object) -> None:
        super().__init__()
        self.table = Table(game, players, options)
        self._seat_of = {agent_name(seat): seat for seat in self.table.people}
        self.possible_agents: list[str] = list(self._seat_of)
        self._observation_space = observation_space(self.table)
        self._action_space = action_space(self.table)
        self._seeds = SeedStream()
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: ``seed`` is the engine's seed (the deal ``python -m engine play --seed`` gives);
        without one, the next seed of the environment's own stream. ``options={"deal": {...}}`` starts
        from an explicit deal; other keys are ignored (PettingZoo's own checks pass some)."""
        self.table.deal(self._seeds.next(seed), (options or {}).get("deal"))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._refresh()

    def observe(self, agent: str) -> dict[str, Any]:
        return self.table.encoded(self._seat_of[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.table.play(self._seat_of[agent], action)
        self._cumulative_rewards[agent] = 0.0
        self._refresh()
        self._accumulate_rewards()

    def close(self) -> None:
        """Nothing outside this process is held."""

    def render(self) -> None:
        """No picture: the raw observation is in ``infos[agent]["observation"]``."""

    def _refresh(self) -> None:
        """After a deal or a move: who acts next, each agent's raw view, and the rewards at the end."""
        table = self.table
        for agent in self.agents:
            seat = self._seat_of[agent]
            self.infos[agent] = {"observation": table.observation(seat), "legal_actions": table.legal_actions(seat)}
        if table.is_over():
            rewards = table.rewards()
            self.rewards = {agent: rewards[self._seat_of[agent]] for agent in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = agent_name(table.awaiting()[0])
