"""The PettingZoo parallel environment: every seat that decides in a step sends its action at once.

Made for games whose seats decide together (Punk's tricks, 1923's ticks, where ``to_act`` names
several seats), and offered for every game: in a step, only the seats the game asks have a mask with
ones, and the actions of the others are ignored (a locked 1923 seat, the seat not on turn in Banter).
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo import ParallelEnv

from engine.env.seeds import SeedStream
from engine.env.spaces import action_space, observation_space
from engine.env.table import Table, TableError, TableRecords, agent_name


class CardGameParallel(TableRecords, ParallelEnv):  # type: ignore[misc]
    metadata = {"name": "cardclub_parallel_v0", "render_modes": []}

    def __init__(self, game: str, players: int | None = None, **options: object) -> None:
        self.table = Table(game, players, options)
        self._seat_of = {agent_name(seat): seat for seat in self.table.people}
        self.possible_agents: list[str] = list(self._seat_of)
        self.agents: list[str] = []
        self._observation_space = observation_space(self.table)
        self._action_space = action_space(self.table)
        self._seeds = SeedStream()

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """As the AEC environment's reset: ``seed`` is the engine's, ``options={"deal": ...}`` an explicit deal."""
        self.table.deal(self._seeds.next(seed), (options or {}).get("deal"))
        self.agents = list(self.possible_agents)
        return self._observations(), self._infos()

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        table = self.table
        if table.is_over():
            raise TableError("the game is over: call reset() for a new one")
        missing = [agent_name(seat) for seat in table.awaiting() if agent_name(seat) not in actions]
        if missing:
            raise TableError(f"{', '.join(missing)} must act in this step")
        for seat in table.awaiting():
            table.play(seat, actions[agent_name(seat)])
            if table.is_over():
                break  # a forfeit ends the game before the other seats' choices count
        observations, infos = self._observations(), self._infos()
        over = table.is_over()
        by_seat = table.rewards()
        rewards = {agent: by_seat[self._seat_of[agent]] for agent in self.agents}
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def close(self) -> None:
        """Nothing outside this process is held."""

    def render(self) -> None:
        """No picture: the raw observation is in each agent's info."""

    def _observations(self) -> dict[str, Any]:
        return {agent: self.table.encoded(self._seat_of[agent]) for agent in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        table = self.table
        return {
            agent: {"observation": table.observation(seat), "legal_actions": table.legal_actions(seat)}
            for agent, seat in self._seat_of.items()
            if agent in self.agents
        }
