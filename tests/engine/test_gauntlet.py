"""``python -m engine gauntlet``: what it prints, how it plays (duplicate deals, seats swapped, stopped by the test), a
bot file in the sandbox, an HTTP opponent, and one-line errors with exit code 2. That its verdict is the server's:
tests/tournaments/test_offline_gauntlet.py."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine import sdk
from engine.cli import main
from engine.gauntlet import GauntletPlan, contender, play_pairing
from engine.intervals import wilson_interval
from engine.progress import Progress
from engine.sprt import DEFAULTS, SprtSettings
from tests.engine.sandbox_support import needs_sandbox


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["gauntlet", *argv])
    except SystemExit as exit_:  # argparse's own refusals exit from inside the parser
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def rows(out: str) -> dict[str, list[str]]:
    """The table's rows by their first cell: games, won, drew, lost, score, the interval and the verdict."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("opponent "))
    table = {}
    for line in lines[start + 1 :]:
        name, games, won, drew, lost, score, low, _, high, *verdict = line.split()
        table[name] = [games, won, drew, lost, score, low, high, " ".join(verdict)]
    return table


def plan(candidate: str, game: str, *opponents: str, seed: int = 7, **settings: Any) -> GauntletPlan:
    return GauntletPlan(
        game=game,
        candidate=contender(candidate, game),
        opponents=tuple(contender(o, game) for o in opponents),
        settings=SprtSettings(**{"elo0": DEFAULTS.elo0, "elo1": DEFAULTS.elo1, **settings}),
        seed=seed,
    )


def test_the_report_has_a_row_per_opponent_and_overall_with_the_tests_verdicts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "counter", "--game", "1923", "--vs", "random,counter", "--seed", "7", "--games", "60")
    assert code == 0
    head = out.splitlines()[:2]
    assert head[0] == (
        "counter against random, counter at 1923 (options: defaults), seed 7, 2 games a match with duplicate deals"
    )
    assert (
        head[1]
        == "test: H0 an edge of 0 Elo, H1 an edge of 50 Elo, alpha 0.05, beta 0.05, at most 60 games an opponent"
    )
    table = rows(out)
    assert list(table) == ["random", "counter", "overall"]
    # Against random the test decides early; against itself every deal is won once from each seat: the cap.
    assert table["random"][:4] == ["24", "24", "0", "0"]
    assert table["random"][7].startswith("stronger: an edge of 50 Elo fits better than 0 (H1); LLR 3.19")
    assert table["counter"][:5] == ["60", "30", "0", "30", "50.0%"]
    assert table["counter"][7].startswith("undecided after 60 games (the cap)")
    assert table["overall"][:4] == ["84", "54", "0", "30"]
    low, high = wilson_interval(54, 84)
    assert table["overall"][4:7] == [f"{54 / 84:.1%}", f"{low:.1%}", f"{high:.1%}"]
    # The progress line went to stderr, and ended on every game played (the early stop shrank the total).
    assert err.strip().splitlines()[-1].startswith("84/84 games")


def test_quiet_prints_no_progress_and_vs_may_be_repeated(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "upgrader", "--game", "banter", "--vs", "random", "--vs", "upgrader,random", "--seed", "1", "--quiet"
    )
    assert code == 0 and err == ""
    assert out.startswith("upgrader against random, upgrader, random at banter")
    assert rows(out)["random"][7].startswith("stronger")


def test_each_deal_is_played_from_both_seats_and_seats_swap_every_round() -> None:
    pairing = play_pairing(plan("random", "1923", "random", max_games=12), contender("random", "1923"))
    games = pairing.games
    assert len(games) == 12 and pairing.verdict.decision == "cap"
    for first, second in zip(games[::2], games[1::2], strict=True):
        # One match: one deal, the candidate in each seat once.
        assert first.round_number == second.round_number and first.seed == second.seed
        assert {first.seat, second.seat} == {0, 1}
    # Round 1 starts with the candidate in the first seat, round 2 with the opponent: as the server swaps them.
    assert [(g.round_number, g.seat) for g in games[:4]] == [(1, 0), (1, 1), (2, 1), (2, 0)]
    assert len({g.seed for g in games}) == 6
    # The same seed plays the same games; another seed other deals.
    again = play_pairing(plan("random", "1923", "random", max_games=12), contender("random", "1923"))
    assert again.games == games
    other = play_pairing(plan("random", "1923", "random", seed=8, max_games=12), contender("random", "1923"))
    assert {g.seed for g in other.games}.isdisjoint(g.seed for g in games)


def test_the_test_stops_between_matches_as_the_servers_does() -> None:
    # Counter beats random every game: the bound is crossed after 24 games, a whole number of matches.
    pairing = play_pairing(plan("counter", "1923", "random", max_games=400), contender("random", "1923"))
    assert pairing.verdict.decision == "H1" and len(pairing.games) == 24
    # With 4 games a match the test looks only after every 4th game: a cap of 10 is passed at 12, not cut short,
    # as the server plays whole rounds.
    four = replace(plan("random", "1923", "random", max_games=10), games_per_match=4)
    capped = play_pairing(four, contender("random", "1923"))
    assert len(capped.games) == 12 and capped.verdict.decision == "cap"


#: Crashes on its third decision of every game; says so on stderr first.
CRASHER = """import sys


def act(turn):
    print("deciding", turn.decision, file=sys.stderr)
    if turn.decision == 2:
        1 / 0
    return turn.legal_actions[0]
"""


@needs_sandbox
def test_a_bot_file_plays_in_the_sandbox_and_its_forfeits_and_log_are_shown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text(CRASHER)
    code, out, err = run(capsys, str(bot), "--game", "1923", "--vs", "random", "--seed", "3", "--quiet")
    assert code == 0
    row = rows(out)["random"]
    assert row[1] == "0" and row[7].startswith("not 50 Elo stronger")
    games = int(row[0])
    # It crashes in the first game of each match and is out for the rest of that match, as on the server: every
    # game is its forfeit.
    assert f"{bot} forfeited against random: crash {games}\n" in err
    assert "\n  the first: round 1, game 0, seed " in err
    assert "ZeroDivisionError" in err and "deciding 2" in err


@pytest.fixture
def http_opponent() -> Iterator[str]:
    """An HTTP bot on 127.0.0.1 (the SDK's own server) that plays the last legal action."""
    server = sdk.make_http_server(lambda turn: turn.legal_actions[-1], port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_an_http_bot_can_be_an_opponent(capsys: pytest.CaptureFixture[str], http_opponent: str) -> None:
    code, out, _ = run(
        capsys, "counter", "--game", "1923", "--vs", http_opponent, "--seed", "5", "--games", "20", "--quiet"
    )
    assert code == 0
    row = rows(out)[http_opponent]
    assert row[0] == "20" and sum(map(int, row[1:4])) == 20


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["counter", "--game", "1923", "--vs", "nope"],
            "error: unknown bot 'nope' for 1923: choose one of counter, random",
        ),
        (["./missing.py", "--game", "1923", "--vs", "random"], "error: bot ./missing.py: No such file or directory"),
        (["notes.txt", "--game", "1923", "--vs", "random"], "error: notes.txt: upload a .py file or a .zip"),
        (["counter", "--game", "chess", "--vs", "random"], "error: unknown game 'chess'"),
        (["random", "--game", "war", "--vs", "random"], "error: war asks its players nothing"),
        (["random", "--game", "punk", "--vs", "random"], "error: punk seats 3 to 10: two players cannot play it"),
        (["counter", "--game", "1923", "--vs", "random,"], "error: --vs 'random,': an empty opponent name"),
        (
            ["counter", "--game", "1923", "--vs", "random", "--alpha", "0.7"],
            "error: --alpha: must be between 0 and 0.5",
        ),
        (["counter", "--game", "1923", "--vs", "random", "--elo1", "-5"], "error: --elo1: must be greater than elo0"),
        (["counter", "--game", "1923", "--vs", "random", "--elo0", "5000"], "error: --elo0: must be between -2000"),
        (["counter", "--game", "1923", "--vs", "random", "--beta", "inf"], "argument --beta: expected a finite number"),
        (
            ["counter", "--game", "1923", "--vs", "random", "--games", "0"],
            "argument --games: expected a positive number",
        ),
        (["counter", "--game", "1923", "--vs", "random", "--games-per-match", "3"], "error: --games-per-match 3:"),
        (["counter", "--game", "1923", "--vs", "random", "--option", "foo=1"], "error: option 'foo': unknown option"),
        (["counter", "--game", "1923"], "error: name the opponents with --vs, --vs-ladder or both"),
        (["counter", "--vs", "random"], "error: --game is required"),
        (
            ["counter", "--vs-ladder", "http://127.0.0.1:9/clubs/3/"],
            "error: --vs-ladder 'http://127.0.0.1:9/clubs/3/': give",
        ),
        (
            ["counter", "--vs-ladder", "http://127.0.0.1:9/competitions/3/", "--top", "51"],
            "error: --top 51: at most 50",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_interruption_shows_the_games_so_far(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Progress.update

    def interrupted(self: Progress, done: int) -> None:
        real(self, done)
        if done >= 30:
            raise KeyboardInterrupt

    monkeypatch.setattr(Progress, "update", interrupted)
    code, out, err = run(capsys, "counter", "--game", "1923", "--vs", "random,counter", "--seed", "7", "--quiet")
    assert code == 130
    # Random's test had decided after 24 games; counter's was stopped after its first 6.
    assert [(name, row[0], row[7].split(";")[0]) for name, row in rows(out).items()] == [
        ("random", "24", "stronger: an edge of 50 Elo fits better than 0 (H1)"),
        ("counter", "6", "undecided after 6 games"),
        ("overall", "30", "stronger: an edge of 50 Elo fits better than 0 (H1)"),
    ]
    assert err == "interrupted: each verdict is where its test stood\n"
