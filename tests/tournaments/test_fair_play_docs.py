"""docs/fair-play.md works as written: its Python runs on a real API answer, and its command accepts the result."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

from engine.cards import standard_deck
from engine.cli import main
from engine.rng import Rng
from tests.league.test_api_support import client_for
from tests.tournaments.test_seed_secrecy import finish_live_match, mixed_competition, seats_people

DOC = Path(__file__).resolve().parents[2] / "docs" / "fair-play.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def run_block(code: str, where: Path) -> str:
    out = io.StringIO()
    here = Path.cwd()
    os.chdir(where)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(DOC), "exec"), {})
    finally:
        os.chdir(here)
    return out.getvalue()


@pytest.mark.django_db
def test_the_hand_check_and_the_verify_command_work_on_a_real_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    competition = mixed_competition()
    match = next(m for m in competition.matches.all() if seats_people(m))
    game, _ = finish_live_match(match)
    response = client_for().get(f"/api/games/{game.pk}/record/")
    (tmp_path / "response.json").write_bytes(response.content)
    check, _ = python_blocks()
    assert run_block(check, tmp_path) == "commitment holds\n"

    published = match.commitments[0]
    assert main(["verify", str(tmp_path / "record.json"), "--commitment", published]) == 0
    assert capsys.readouterr().out == "valid: war, 1 steps, result confirmed, dealt from the committed seed\n"
    # The documented command's other answers, as the document words them.
    assert "invalid: commitment: sha256 of salt and seed is X, not HEX" in DOC.read_text()

    # A tampered seed no longer gives the commitment.
    record = json.loads((tmp_path / "record.json").read_text())
    record["seed"] += 1
    (tmp_path / "record.json").write_text(json.dumps(record))
    answer = json.loads(response.content)
    answer["seed"] += 1
    (tmp_path / "response.json").write_text(json.dumps(answer))
    assert run_block(check, tmp_path).startswith("no: sha256 of salt and seed is ")


def test_the_plain_python_war_deal_is_the_engine_s(tmp_path: Path) -> None:
    _, deal = python_blocks()
    seed = int(re.search(r"seed = (\d+)", deal).group(1))  # type: ignore[union-attr]
    deck = standard_deck()
    Rng(seed).shuffle(deck)
    assert run_block(deal, tmp_path) == (
        f"P1 holds {deck[0::2]} and plays {deck[50]} first\nP2 holds {deck[1::2]} and plays {deck[51]} first\n"
    )
