"""The local harness: `python -m engine play GAME --bots ./mybot.py,random` runs a file in the server's sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.record import Record
from engine.verify import verify
from tests.engine.sandbox_support import needs_sandbox

pytestmark = needs_sandbox


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bot_file(tmp_path: Path, source: str) -> str:
    path = tmp_path / "mybot.py"
    path.write_text(source)
    return str(path)


def test_a_bot_file_plays_a_verifiable_game_and_its_prints_are_shown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bot = bot_file(tmp_path, "def act(turn):\n    print('my move', turn.decision)\n    return turn.legal_actions[0]\n")
    code, out, err = run(capsys, "play", "banter", "--bots", f"{bot},random", "--seed", "4", "--json")
    assert code == 0
    record = Record.from_dict(json.loads(out))
    assert record.forfeit is None and verify(record).ok
    assert "stderr ---" in err and "my move 0" in err


def test_an_author_sees_the_forfeit_the_server_would_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot = bot_file(tmp_path, "def act(turn):\n    return turn.legal_actions[0] if turn.decision < 3 else 'PASS'\n")
    code, out, _ = run(capsys, "play", "1923", "--bots", f"random,{bot}", "--seed", "1")
    assert code == 0
    assert "forfeit: seat 1 at move 3: illegal_action: 'PASS' is not a legal action" in out


def test_a_crash_is_shown_with_its_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot = bot_file(tmp_path, "def act(turn):\n    return 1 / 0\n")
    code, out, err = run(capsys, "play", "punk", "--bots", f"{bot},random,random", "--seed", "2")
    assert code == 0
    assert "forfeit: seat 0 at move 0: crash" in out
    assert "ZeroDivisionError" in err


def test_a_war_bot_file_is_started_and_told_it_is_never_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bot = bot_file(tmp_path, "def act(turn):\n    return turn.legal_actions[0]\n")
    code, _, err = run(capsys, "play", "war", "--bots", f"{bot},{bot}", "--seed", "3")
    assert code == 0
    assert err.count("war asks it nothing more") == 2


@pytest.mark.parametrize(
    ("bots", "fragment"),
    [
        ("./does-not-exist.py,random", "No such file or directory"),
        ("./notes.txt,random", "upload a .py file or a .zip"),
    ],
)
def test_a_bot_file_that_cannot_be_read_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bots: str, fragment: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    code, _, err = run(capsys, "play", "1923", "--bots", bots)
    assert code == 2
    assert err.startswith("error: ") and fragment in err and len(err.strip().splitlines()) == 1
