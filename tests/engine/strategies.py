"""Hypothesis strategies for whole games: a game, its seats, options, bots and seed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from engine.bots import bot_names
from engine.games import seats_for


@dataclass(frozen=True)
class Setup:
    game: str
    bots: tuple[str, ...]
    options: dict[str, Any]
    seed: int

    @property
    def seats(self) -> int:
        from engine.games import get_game

        return seats_for(get_game(self.game), len(self.bots), self.options)


def _people(game: str, options: dict[str, Any]) -> st.SearchStrategy[int]:
    if game == "1923":
        return st.integers(2, 5)
    if game == "punk":
        return st.just(2) if options.get("dummy") else st.integers(3, 7)
    return st.just(2)


def _options(game: str) -> st.SearchStrategy[dict[str, Any]]:
    if game == "1923":
        return st.fixed_dictionaries(
            {"mode": st.sampled_from(["set", "match"])},
            optional={
                "target_points": st.integers(5, 40),
                "tiebreak_exhausted": st.sampled_from(["war", "dead"]),
                "losers_score_cards": st.booleans(),
            },
        )
    if game == "banter":
        return st.fixed_dictionaries({}, optional={"first_lead": st.sampled_from(["seed", "0", "1"])})
    if game == "punk":
        return st.fixed_dictionaries({}, optional={"dummy": st.booleans(), "target": st.integers(5, 40)})
    return st.fixed_dictionaries({}, optional={"max_rounds": st.integers(1, 400)})


@st.composite
def setups(draw: st.DrawFn, game: str) -> Setup:
    options = draw(_options(game))
    people = draw(_people(game, options))
    names = bot_names(game)
    bots = tuple(draw(st.sampled_from(names)) for _ in range(people)) if names else ()
    seed = draw(st.integers(0, 2**63))
    return Setup(game=game, bots=bots, options=options, seed=seed)
