"""Golden records: fixed deals and seeds whose records must not change by a single byte.

A change here means the rules, the deal order or the record format changed:
regenerate with ``UPDATE_GOLDEN=1 pytest tests/engine/test_golden.py`` only
when that change is intended, and say so in the commit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.bots import seat_agents
from engine.record import Record
from engine.runner import play_game
from engine.verify import verify

GOLDEN = Path(__file__).parent / "golden"
SUIT_MAJOR = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]

CASES: dict[str, dict[str, Any]] = {
    "war-suit-major": {"game": "war", "bots": [], "seed": 0, "deal": {"deck": SUIT_MAJOR}},
    "war-seed-1": {"game": "war", "bots": [], "seed": 1},
    "1923-set-seed-5": {"game": "1923", "bots": ["counter", "random"], "seed": 5, "options": {"mode": "set"}},
    "1923-match-three": {
        "game": "1923",
        "bots": ["random", "counter", "random"],
        "seed": 11,
        "options": {"target_points": 30},
    },
    "banter-seed-3": {"game": "banter", "bots": ["upgrader", "random"], "seed": 3},
    "punk-four": {"game": "punk", "bots": ["tracker", "random", "random", "random"], "seed": 8},
    "punk-dummy": {"game": "punk", "bots": ["tracker", "random"], "seed": 9, "options": {"dummy": True}},
}


def play_case(case: dict[str, Any]) -> Record:
    options = case.get("options", {})
    agents = seat_agents(case["game"], case["bots"], options, case["seed"]) if case["bots"] else [None, None]
    return play_game(case["game"], agents=agents, seed=case["seed"], options=options, deal=case.get("deal"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_record_is_reproduced_byte_for_byte(name: str) -> None:
    path = GOLDEN / f"{name}.json"
    record = play_case(CASES[name])
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(record.to_json(indent=1) + "\n")
    stored = Record.from_json(path.read_text())
    assert record.to_json() == stored.to_json()
    assert verify(stored).ok


def test_war_golden_keeps_the_check_figures() -> None:
    stored = json.loads((GOLDEN / "war-suit-major.json").read_text())
    assert (stored["result"]["winner"], stored["result"]["rounds"], stored["result"]["wars"]) == (1, 680, 51)
