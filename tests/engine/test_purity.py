"""The engine stays pure Python: no Django, no service code (DESIGN.md, "Dependencies point one way")."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = ("django", "rest_framework", "celery", "league", "tournaments", "config")


def test_no_engine_module_imports_django_or_the_service() -> None:
    offenders = []
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_importing_every_game_loads_no_django() -> None:
    code = (
        "import sys\n"
        "from engine.games import game_names, get_game\n"
        "import engine.cli, engine.bots\n"
        "[get_game(g) for g in game_names()]\n"
        "engine.bots.bot_names('punk')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'celery')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ENGINE.parent)
    assert out.stdout.strip() == "[]"
