"""The training extra stays optional: only engine/env imports PettingZoo, Gymnasium or NumPy, and nothing
imports engine/env, so the service installs and runs without them (pyproject.toml, ``train``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ("engine", "league", "tournaments", "config")
TRAINING = ("pettingzoo", "gymnasium", "numpy")


def imported(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_only_engine_env_imports_the_training_extra_and_nothing_imports_engine_env() -> None:
    offenders = []
    for package in SERVICE:
        for path in (ROOT / package).rglob("*.py"):
            if path.is_relative_to(ROOT / "engine" / "env"):
                continue
            for name in imported(path):
                if name.split(".")[0] in TRAINING or name == "engine.env" or name.startswith("engine.env."):
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_the_engine_and_the_service_load_none_of_it() -> None:
    code = (
        "import sys, django\n"
        "import engine.cli, engine.bots, engine.harness, engine.verify\n"
        "django.setup()\n"
        # Every view, serializer and service the site serves, and the workers' tasks.
        "import config.urls, config.celery, tournaments.tasks\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {TRAINING!r} or m.startswith('engine.env')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "[]"
