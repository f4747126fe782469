"""``python -m engine``: play, verify, bench and clear errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
SUIT_MAJOR = " ".join(rank + suit for suit in "CDHS" for rank in "23456789TJQKA")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_war_with_a_deck_prints_the_json_record(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "war", "--deck", SUIT_MAJOR, "--json")
    record = json.loads(out)
    assert code == 0
    assert (record["result"]["winner"], record["result"]["rounds"], record["result"]["wars"]) == (1, 680, 51)


def test_play_accepts_lower_case_and_ten_for_t(capsys: pytest.CaptureFixture[str]) -> None:
    deck = SUIT_MAJOR.lower().replace("t", "10")
    code, out, _ = run(capsys, "play", "war", "--deck", deck, "--json")
    assert code == 0 and json.loads(out)["deal"]["deck"][8] == "TC"


def test_play_then_verify_round_trips_and_a_tampered_record_names_its_step(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    assert run(capsys, "play", "punk", "--bots", "random,random,random", "--seed", "7", "--out", str(path))[0] == 0
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 0 and out.startswith("valid")
    record = json.loads(path.read_text())
    record["actions"][1][0] = record["actions"][0][0]  # a card seat 0 already played
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "verify", str(path))
    assert code == 1
    assert err.startswith("invalid: step 1: seat 0") and err.count("\n") == 1


def test_verify_rejects_a_changed_result(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    run(capsys, "play", "war", "--seed", "3", "--out", str(path))
    record = json.loads(path.read_text())
    record["result"]["rounds"] += 1
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "verify", str(path))
    assert code == 1 and "rounds" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "war", "--deck", "2C 3C"], "expected 52 cards, got 2"),
        (["play", "war", "--deck", SUIT_MAJOR.replace("2C", "1C")], "malformed card '1C'"),
        (["play", "war", "--option", "max_rounds=lots"], "max_rounds"),
        (["play", "war", "--option", "colour=red"], "unknown option"),
        (["play", "war", "--bots", "random,random"], "war has no decisions"),
        (["play", "punk", "--bots", "random,random"], "punk takes"),
        (["play", "punk", "--bots", "random,genius,random"], "unknown bot 'genius'"),
        (["play", "banter"], "--bots is required"),
        (["play", "1923", "--bots", "random,random", "--deck", SUIT_MAJOR], "--deck is for war"),
        (["play", "war", "--seed", "-4"], "must not be negative"),
        (["play", "war", "--deal", "/nonexistent.json"], "No such file"),
        (["verify", "/nonexistent.json"], "No such file"),
        (["bench", "war", "--games", "0"], "positive"),
    ],
)
def test_bad_arguments_exit_2_with_one_clear_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    try:
        code, _, err = run(capsys, *argv)
    except SystemExit as exit_:
        code, err = int(str(exit_.code)), capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_verify_calls_malformed_json_invalid(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    code, _, err = run(capsys, "verify", str(path))
    assert code == 1 and "not valid JSON" in err


def test_bench_prints_a_rate_with_records_kept(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "war", "--games", "50", "--quiet")
    assert code == 0 and "games/s on one core" in out and "records kept: 50" in out


def test_module_entry_point_reports_errors_without_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "play", "war", "--deck", "XX"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == "error: --deck: card 1: malformed card 'XX': expected rank (A 2-9 T J Q K) then suit (C D H S U-Z)"
    )


def _committed_record(tmp_path: Path, *, seed: int = 11, salt: str | None = "9f" * 16) -> tuple[Path, str]:
    """A real game written with a salt, as a live match's record is revealed, and its commitment."""
    from engine.fairness import commitment
    from engine.runner import play_game

    record = play_game("war", agents=[None, None], seed=seed)
    record.salt = salt
    path = tmp_path / "game.json"
    path.write_text(record.to_json())
    return path, commitment(seed, salt or "")


def test_verify_with_the_published_commitment_is_valid(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path, published = _committed_record(tmp_path)
    code, out, err = run(capsys, "verify", str(path), "--commitment", published)
    assert (code, err) == (0, "")
    assert out == "valid: war, 1 steps, result confirmed, dealt from the committed seed\n"
    # Upper case is the same digest.
    assert run(capsys, "verify", str(path), "--commitment", published.upper())[0] == 0


def test_verify_names_a_commitment_the_seed_and_salt_do_not_give(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, published = _committed_record(tmp_path)
    other = "0" * 64
    code, out, err = run(capsys, "verify", str(path), "--commitment", other)
    assert (code, out) == (1, "")
    assert err == f"invalid: commitment: sha256 of salt and seed is {published}, not {other}\n"


def test_verify_refuses_a_commitment_check_without_a_salt(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path, published = _committed_record(tmp_path, salt=None)
    code, _, err = run(capsys, "verify", str(path), "--commitment", published)
    assert code == 1 and err == "invalid: commitment: the record reveals no salt\n"


def test_verify_refuses_a_commitment_check_of_an_explicit_deal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "dealt.json"
    assert run(capsys, "play", "war", "--deck", SUIT_MAJOR, "--out", str(path))[0] == 0
    record = json.loads(path.read_text())
    record["salt"] = "ab"
    path.write_text(json.dumps(record))
    from engine.fairness import commitment

    code, _, err = run(capsys, "verify", str(path), "--commitment", commitment(record["seed"], "ab"))
    assert code == 1
    assert err == "invalid: commitment: the record has an explicit deal, which the committed seed does not fix\n"


def test_a_broken_replay_is_reported_before_the_commitment(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path, published = _committed_record(tmp_path)
    record = json.loads(path.read_text())
    record["result"]["rounds"] += 1
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "verify", str(path), "--commitment", published)
    assert code == 1 and err.startswith("invalid: result: stated rounds") and err.count("\n") == 1


@pytest.mark.parametrize("bad", ["abc", "g" * 64, "0" * 63, "0" * 65, ""])
def test_a_commitment_that_is_not_64_hex_digits_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: str
) -> None:
    path, _ = _committed_record(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["verify", str(path), "--commitment", bad])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "argument --commitment: expected 64 hex digits (a SHA-256 digest)" in err
    assert err.count("\n") == 1 and "Traceback" not in err
