"""The worked example (examples/train_1923.py, issue 26): NumPy alone trains a 1923 bot that clearly beats
``random``, the bot it writes runs in the server's sandbox, and the script uploads it through the API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from engine.cli import main as engine_main
from examples.train_1923 import TablePolicy, UploadFailed, bot_source, evaluate, main, train, upload
from league.models import BotVersion
from tests.engine.sandbox_support import needs_sandbox
from tests.factories import BotFactory

#: Seconds of training in the test: a fifth of the documented minute, enough to be far above random.
TRAINING_SECONDS = 12


@pytest.fixture(scope="module")
def trained() -> TablePolicy:
    policy = TablePolicy()
    assert train(policy, seconds=TRAINING_SECONDS, seed=5) > 1000
    return policy


@pytest.mark.bench
def test_the_trained_bot_beats_random_with_an_interval_that_excludes_a_half(trained: TablePolicy) -> None:
    checked = evaluate(trained.greedy(), sets=1000, seed=99)
    low, high = checked.interval
    assert checked.sets == 1000
    assert low > 0.5, f"score rate {checked.score_rate:.3f}, interval {low:.3f}-{high:.3f}"


def test_an_untrained_table_is_no_better_than_drawing_every_time() -> None:
    """The evaluation can fail: a table that learned nothing draws on every tick and loses to random."""
    checked = evaluate(TablePolicy().greedy(), sets=400, seed=99)
    assert checked.interval[1] < 0.5, checked


@needs_sandbox
def test_the_written_bot_plays_in_the_sandbox_as_the_policy_does(
    trained: TablePolicy, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "trained.py"
    bot.write_text(bot_source(trained.greedy()))
    assert engine_main(["play", "1923", "--bots", f"{bot},random", "--option", "mode=set", "--seed", "8"]) == 0
    out = capsys.readouterr().out
    assert "forfeit" not in out.split("record:")[0], out


@pytest.mark.django_db(transaction=True)
def test_the_script_uploads_its_bot_as_a_new_version(live_server: Any, tmp_path: Path) -> None:
    bot = BotFactory(game="1923")
    token = Token.objects.create(user=bot.owner.user).key
    out = tmp_path / "trained.py"
    upload_to = ["--server", live_server.url, "--token", token, "--bot", str(bot.pk)]
    code = main(["--seconds", "1", "--eval-sets", "20", "--out", str(out), *upload_to])
    assert code == 0
    version = BotVersion.objects.get(bot=bot)
    assert version.kind == BotVersion.Kind.UPLOAD and bytes(version.source).decode() == out.read_text()


@pytest.mark.django_db(transaction=True)
def test_a_refused_upload_says_why(live_server: Any) -> None:
    bot = BotFactory(game="1923")
    with pytest.raises(UploadFailed, match=r"refused the upload \(401\)"):
        upload("def act(turn):\n    return turn.legal_actions[0]\n", server=live_server.url, token="wrong", bot=bot.pk)
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_an_unreachable_server_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "trained.py"
    upload_to = ["--server", "http://127.0.0.1:9", "--token", "t", "--bot", "1"]
    code = main(["--seconds", "0.2", "--eval-sets", "10", "--out", str(out), *upload_to])
    assert code == 1 and out.exists()
    assert capsys.readouterr().err.startswith("error: the server at http://127.0.0.1:9 cannot be reached")


def test_an_unknown_opponent_is_refused_before_any_training(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--eval-against", "nobody"])
    assert stopped.value.code == 2
    assert "no built-in 1923 bot 'nobody'; there are counter, random" in capsys.readouterr().err
