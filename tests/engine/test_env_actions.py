"""Each game's fixed action space (``all_actions``, docs/engine-interface.md): every action ``legal_actions``
lists in play is in it, it lists each action once, and it is the same list every time it is asked."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from engine.bots import RandomBot
from engine.bots.context import BotContext
from engine.games import Game, GameRegistrationError, get_game, register_game, unregister_game
from engine.rng import bot_rng
from engine.runner import play_game
from tests.engine import high_card as high_card_rules

#: (game, seats, options, games): rulesets whose random games together list every action of the space.
RULESETS = [
    ("war", 2, {}, 20),
    ("1923", 2, {"mode": "set"}, 150),
    ("1923", 5, {"mode": "set", "decks": 1}, 40),
    ("banter", 2, {}, 300),
    ("punk", 3, {"dummy": True}, 150),
    ("punk", 4, {}, 150),
    ("punk", 10, {}, 30),
    ("highcard", 3, {"hand_size": 13}, 100),
]


@pytest.fixture(autouse=True)
def high_card() -> Iterator[None]:
    register_game("highcard", "tests.engine.high_card")
    yield
    unregister_game("highcard")


class Listing:
    """A random bot that notes every legal action it is offered."""

    def __init__(self, seen: set[str], context: BotContext) -> None:
        self.seen = seen
        self.bot = RandomBot(context)

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        self.seen.update(legal_actions)
        return self.bot.act(observation, legal_actions)


def offered(game: Game, players: int, options: dict[str, Any], games: int) -> set[str]:
    parsed = game.parse_options(options, players)
    auto = game.auto_seats(parsed, players)
    seen: set[str] = set()
    for seed in range(games):
        agents = [
            None if seat in auto else Listing(seen, BotContext(game.NAME, seat, players, parsed, bot_rng(seed, seat)))
            for seat in range(players)
        ]
        record = play_game(game.NAME, agents=agents, seed=seed, options=options)
        assert record.forfeit is None
    return seen


@pytest.mark.parametrize(("name", "players", "options", "games"), RULESETS)
def test_every_legal_action_met_in_random_games_is_in_the_space(
    name: str, players: int, options: dict[str, Any], games: int
) -> None:
    game = get_game(name)
    space = game.all_actions(game.parse_options(options, players), players)
    seen = offered(game, players, options, games)
    assert seen <= set(space), sorted(seen - set(space))[:10]
    # The space is no wider than play needs: these many games offer every action of it.
    assert seen == set(space)


@pytest.mark.parametrize(("name", "players", "options", "games"), RULESETS)
def test_the_space_lists_each_action_once_in_the_same_order_every_time(
    name: str, players: int, options: dict[str, Any], games: int
) -> None:
    game = get_game(name)
    parsed = game.parse_options(options, players)
    space = game.all_actions(parsed, players)
    assert len(space) == len(set(space))
    assert space == game.all_actions(game.parse_options(options, players), players)
    assert all(isinstance(action, str) for action in space)


def test_the_documented_orders() -> None:
    """docs/training.md's table: indices a learner may hard-code."""
    assert get_game("war").all_actions(get_game("war").parse_options(None, 2), 2) == []
    assert get_game("1923").all_actions({}, 2) == ["DRAW", "LOCK"]
    banter = get_game("banter").all_actions({}, 2)
    assert len(banter) == 118
    assert banter[:3] == ["STOP", "SPEND AH", "SPEND 2H"]
    assert (banter[13], banter[14], banter[66], banter[117]) == ("SPEND KH", "BIN AC", "PLAY AC", "PLAY KS")
    punk = get_game("punk")
    assert punk.all_actions(punk.parse_options(None, 4), 4)[:8] == ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "AD"]
    assert len(punk.all_actions(punk.parse_options(None, 10), 10)) == 130


def test_a_game_without_all_actions_is_refused_at_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    spaceless = ModuleType("tests.engine.spaceless_high_card")
    spaceless.__dict__.update({k: v for k, v in vars(high_card_rules).items() if k[:2] != "__" and k != "all_actions"})
    spaceless.NAME = "spaceless"
    monkeypatch.setitem(sys.modules, spaceless.__name__, spaceless)
    with pytest.raises(GameRegistrationError, match=r"tests\.engine\.spaceless_high_card lacks all_actions"):
        register_game("spaceless", spaceless.__name__)
