"""The service never names a game: what differs between games is the engine's to say (issue 12).

Every string literal of ``league/``, ``tournaments/`` and ``config/`` is read with ``ast`` (so a
comment or a docstring that mentions 1923's set tables is fine, and ``game == "war"`` is not),
and every quoted string of their templates and scripts with a pattern. Migrations describe
the data as it was, and the demo's data picks the games a newcomer sees; both may name games.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engine.games import game_names, get_game

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ("league", "tournaments", "config")
#: The demo's data: which games the demo club plays.
ALLOWED = {ROOT / "tournaments" / "demo.py"}
#: Every way a built-in game is written: its name and its label, compared without case.
GAME_WORDS = {word.lower() for name in game_names()[:4] for word in (name, get_game(name).PROFILE.label)}


def _service_files(*suffixes: str) -> list[Path]:
    return [
        path
        for package in SERVICE
        for path in sorted((ROOT / package).rglob("*"))
        if path.suffix in suffixes and "migrations" not in path.parts and path not in ALLOWED
    ]


def test_the_words_checked_are_the_four_games() -> None:
    assert {"war", "1923", "banter", "punk"} == GAME_WORDS


def test_no_python_string_in_the_service_names_a_game() -> None:
    offenders = []
    for path in _service_files(".py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            named = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if named and node.value.strip().lower() in GAME_WORDS:  # type: ignore[attr-defined]
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert offenders == []


def test_no_template_or_script_of_the_service_names_a_game_in_quotes_or_as_a_key() -> None:
    words = "|".join(map(re.escape, sorted(GAME_WORDS)))
    quoted = re.compile(rf"""(["'`])\s*({words})\s*\1|\b({words})\s*:""", re.IGNORECASE)
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0)!r}"
        for path in _service_files(".html", ".js", ".txt")
        for match in quoted.finditer(path.read_text())
    ]
    assert offenders == []


def test_the_check_finds_a_game_named_in_code() -> None:
    """The checks above would fail on the code they exist to keep out."""
    tree = ast.parse('if competition.game == "Banter":\n    target = 40\n')
    named = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert [value for value in named if value.strip().lower() in GAME_WORDS] == ["Banter"]
