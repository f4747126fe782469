"""The Gymnasium environment: one learner's seat against chosen opponents (docs/training.md, "Environments").

Every ``step`` is one of the learner's decisions; the opponents' decisions in between are made by
their bots through the engine's own referee, so an episode is one whole game and its record is the
engine's. The reward is the learner's score rate when the game ends (1 a win, ½ a draw, 0 a loss
between two), 0 before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from engine.agents import AgentFailure
from engine.env.opponents import Opponents, OpponentSpec
from engine.env.seeds import whole_seed
from engine.env.spaces import action_space, observation_space
from engine.env.table import Table, TableError, TableRecords
from engine.errors import PlayerCountError
from engine.games import get_game, seats_for


class CardGameEnv(TableRecords, gymnasium.Env[dict[str, Any], np.int64]):
    metadata = {"render_modes": []}

    def __init__(
        self,
        game: str,
        opponents: Sequence[OpponentSpec] = ("random",),
        *,
        seat: int = 0,
        players: int | None = None,
        **options: object,
    ) -> None:
        if isinstance(opponents, str):
            # "random,counter" as the command line writes it.
            opponents = [name.strip() for name in opponents.split(",")]
        module = get_game(game)
        seats = seats_for(module, len(opponents) + 1, options) if players is None else players
        self.table = Table(game, seats, options)
        people = self.table.people
        if seat not in people:
            raise PlayerCountError(f"seat {seat} is not a person's seat at this table: choose one of {list(people)}")
        if len(opponents) != len(people) - 1:
            raise PlayerCountError(
                f"{module.NAME} with {seats} seats has {len(people) - 1} opponent seat(s), not {len(opponents)}"
            )
        self.seat = seat
        self.opponent_seats = tuple(other for other in people if other != seat)
        self.opponents = Opponents(
            opponents, game=module.NAME, seats=self.opponent_seats, players=seats, options=self.table.options
        )
        self.observation_space: spaces.Dict = observation_space(self.table)
        self.action_space: spaces.Discrete = action_space(self.table)
        self._games = 0
        #: The end of the current game has been returned by step(): the next step needs a reset.
        self._ended = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a new game: ``seed`` is the engine's seed; without one, the next of the environment's
        generator. ``options={"deal": {...}}`` starts from an explicit deal."""
        given = None if seed is None else whole_seed(seed)
        super().reset(seed=given)
        game_seed = given if given is not None else int(self.np_random.integers(0, 2**63 - 1))
        self.table.deal(game_seed, (options or {}).get("deal"))
        self.opponents.seat_for_game(game_seed, self._games)
        self._games += 1
        self._play_opponents()
        self._ended = False
        return self.table.encoded(self.seat), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        table = self.table
        if self._ended:
            raise TableError("the game is over: call reset() for a new one")
        # A game already over here was ended by the opponents before the learner's first decision (one that
        # could not start forfeits at once): this step only reports the end, whatever the action.
        if not table.is_over() and self.seat in table.awaiting():
            table.play(self.seat, action)
        self._play_opponents()
        over = self._ended = table.is_over()
        reward = table.rewards()[self.seat] if over else 0.0
        return table.encoded(self.seat), reward, over, False, self._info()

    def close(self) -> None:
        """Stops the sandboxed and HTTP opponents."""
        self.opponents.close()

    def _play_opponents(self) -> None:
        """The opponents' decisions until the learner must decide or the game ends."""
        table = self.table
        while not table.is_over():
            others = [seat for seat in table.awaiting() if seat != self.seat]
            if not others:
                return
            for seat in others:
                if table.actions.placeholder:
                    # Nobody is asked anything in a game without decisions (War): each seat only waits.
                    table.play(seat, 0)
                    continue
                try:
                    action: object = self.opponents.agent(seat).act(table.observation(seat), table.legal_actions(seat))
                except AgentFailure as failure:
                    table.forfeit(seat, failure.cause, failure.detail)
                    return
                table.submit_text(seat, action)
                if table.is_over():
                    return

    def _info(self) -> dict[str, Any]:
        table = self.table
        info: dict[str, Any] = {
            "observation": table.observation(self.seat),
            "legal_actions": table.legal_actions(self.seat),
            "action_mask": table.actions.mask(table.legal_actions(self.seat)),
        }
        if table.is_over():
            info["result"] = table.live.result().to_json()
        return info
