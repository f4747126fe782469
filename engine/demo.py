"""A short demo of all four games: what the README's run command shows before the service starts."""

from __future__ import annotations

import json

from engine.bots import bot_names, seat_agents
from engine.record import Record
from engine.runner import play_game
from engine.verify import verify

#: (game, bots, options): each strategy bot, where the game has one, against random.
DEMO_GAMES: list[tuple[str, list[str], dict[str, object]]] = [
    ("war", [], {}),
    ("1923", ["counter", "random", "random"], {"mode": "match", "target_points": 40}),
    ("banter", ["upgrader", "random"], {}),
    ("punk", ["tracker", "random", "random", "random"], {}),
]


def run_demo(seed: int = 2026) -> list[Record]:
    records = []
    for game, bots, options in DEMO_GAMES:
        available = set(bot_names(game))
        bots = [b if b in available else "random" for b in bots]
        agents = seat_agents(game, bots, options, seed) if bots else [None, None]
        record = play_game(game, agents=agents, seed=seed, options=options)
        records.append(record)
        result = record.result or {}
        players = bots or ["P1", "P2"]
        winners = [players[w] + f" (seat {w})" for w in result.get("winners", [])]
        outcome = "draw" if not winners else ("winner " if len(winners) == 1 else "shared win ") + ", ".join(winners)
        print(f"{game:>6}: {' vs '.join(players)} -> {outcome}; scores {result.get('scores')}")
        figures = {
            k: v
            for k, v in result.items()
            if k not in {"winner", "winners", "ranks", "scores", "forfeit"} and not isinstance(v, list | dict)
        }
        print(f"        {json.dumps(figures, sort_keys=True)}; {len(record.actions)} steps; verify: {verify(record)}")
    return records
