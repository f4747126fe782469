"""docs/training.md, "Environments", says what the code does: its layout tables are the encoder's own, its
action table matches the spaces, and its examples run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.env import aec_env, encoder_for
from engine.env.__main__ import main
from engine.games import get_game

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "training.md").read_text()
DEFAULTS = [("war", 2, 4), ("1923", 2, 188), ("banter", 2, 606), ("punk", 4, 101)]


@pytest.mark.parametrize(("game", "seats", "size"), DEFAULTS)
def test_each_layout_table_is_the_encoders_own(game: str, seats: int, size: int) -> None:
    module = get_game(game)
    encoder = encoder_for(module, module.parse_options(None, seats), seats)
    assert encoder.size == size
    assert f"({size} slots):\n\n{encoder.table()}\n" in DOC


def test_the_action_counts_in_the_table_are_the_spaces() -> None:
    assert len(aec_env("banter").table.actions) == 118
    assert [len(aec_env("punk", seats).table.actions) for seats in (3, 4, 5, 6, 7)] == [21, 28, 40, 54, 70]
    assert aec_env("war").table.actions.labels == ("WAIT",)


def test_the_examples_run(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text("def act(turn):\n    return turn.legal_actions[0]\n")
    examples = re.findall(r"```python\n(.*?)```", DOC[DOC.index("## Environments") :], re.S)
    assert len(examples) == 3
    for example in examples:
        subprocess.run([sys.executable, "-c", example], cwd=tmp_path, check=True, env={"PYTHONPATH": str(ROOT)})


def test_the_command_prints_a_rulesets_spaces_and_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["punk", "--players", "3", "--option", "dummy=true"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("punk, 3 seats (dummy=True, target=21)\nagents: seat_0, seat_1\nactions (21):\n  0: AC\n")
    assert "observation: 78 float32 slots" in out
    assert main(["punk", "--players", "2"]) == 2
    assert capsys.readouterr().err == "error: punk takes 3 to 10 seats, not 2\n"
    assert main(["punk", "--option", "dummy=maybe"]) == 2
    assert capsys.readouterr().err == "error: option 'dummy': expected true or false, got 'maybe'\n"
