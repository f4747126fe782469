"""ENGINE_GAMES (docs/deploy.md): games added outside the engine are checked when a process starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def manage(engine_games: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ENGINE_GAMES": engine_games, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    return subprocess.run(
        [sys.executable, "manage.py", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("highcard", "ENGINE_GAMES: 'highcard' is not name=rules.module or name=rules.module:bots.module"),
        ("highcard=tests.engine.nowhere", "ENGINE_GAMES: game 'highcard': cannot import tests.engine.nowhere"),
        ("High Card=tests.engine.high_card", "ENGINE_GAMES: game name 'High Card': use 1 to 10 lower-case letters"),
        ("cards=tests.engine.high_card", "ENGINE_GAMES: game 'cards': tests.engine.high_card names itself 'highcard'"),
        ("highcard=engine.cards", "ENGINE_GAMES: game 'highcard': engine.cards lacks DECISIONS, MAX_PLAYERS"),
        ("war=tests.engine.high_card", "ENGINE_GAMES: game 'war' is already registered, to engine.games.war"),
        (
            "highcard=tests.engine.broken.raises_on_import",
            "ENGINE_GAMES: game 'highcard': importing tests.engine.broken.raises_on_import failed: "
            "RuntimeError: a bug in the game module",
        ),
        (
            "highcard=tests.engine.broken.profile_missing",
            "ENGINE_GAMES: game 'highcard': tests.engine.broken.profile_missing has a PROFILE that is not an "
            "engine.games.profile.LeagueProfile",
        ),
        (
            "highcard=tests.engine.high_card:engine.cards",
            "ENGINE_GAMES: game 'highcard': engine.cards has no BOTS mapping of bot names to factories",
        ),
    ],
)
def test_a_bad_entry_stops_the_process_with_one_clear_line(value: str, message: str) -> None:
    checked = manage(value, "check")
    assert checked.returncode == 2
    assert checked.stderr.startswith(f"configuration error: {message}"), checked.stderr
    assert "Traceback" not in checked.stderr


def test_a_good_entry_adds_the_game_after_the_engine_s_own() -> None:
    shown = manage(
        "highcard=tests.engine.high_card", "shell", "-c", "from engine.games import game_names; print(game_names())"
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1] == "('war', '1923', 'banter', 'punk', 'highcard')"
