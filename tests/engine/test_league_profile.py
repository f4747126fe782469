"""Each game's league profile (engine/games/profile.py): checked shape, and figures and breakdowns that
agree with the game's own result (RULES.md's standings orders)."""

from __future__ import annotations

import pytest

from engine.bots import seat_agents
from engine.games import game_names, get_game, missing_members
from engine.games.profile import (
    GAMES_WON,
    MATCH_POINTS,
    MAX_FIGURES,
    Figure,
    LeagueProfile,
    Race,
    Row,
    SetTable,
    race_rows,
)
from engine.runner import play_game

ORDERS = {
    "war": ["match_points", "games_won", "rounds_needed"],
    "1923": ["match_points", "set_points", "cards_won"],
    "banter": ["match_points", "trick_points"],
    "punk": ["match_points", "total_score"],
}


def finished(name: str, seed: int = 3) -> dict[str, object]:
    people = 3 if name == "punk" else 2
    # A 1923 match to 100 points runs to several sets.
    options = {"mode": "match", "target_points": 100} if name == "1923" else {}
    record = play_game(name, agents=seat_agents(name, ["random"] * people, options, seed), seed=seed, options=options)
    assert record.result is not None
    return record.result


@pytest.mark.parametrize("name", ["war", "1923", "banter", "punk"])
def test_the_standings_order_is_the_one_rules_md_gives(name: str) -> None:
    profile = get_game(name).PROFILE
    assert [f.key for f in profile.order] == ORDERS[name]
    assert [f.key for f in profile.order if not f.higher_first] == (["rounds_needed"] if name == "war" else [])
    assert len(profile.own_figures) <= MAX_FIGURES


@pytest.mark.parametrize("name", game_names())
def test_a_game_s_figures_come_from_its_result(name: str) -> None:
    result = finished(name)
    profile = get_game(name).PROFILE
    for seat in range(len(result["ranks"])):  # type: ignore[arg-type]
        values = profile.figures_of_game(result, seat)
        assert all(isinstance(v, int) for v in values)
        assert len(values) == len(profile.own_figures)
    if name == "1923":
        assert profile.figures_of_game(result, 1) == [result["points"][1], result["cards"][1]]  # type: ignore[index]
    if name == "war":
        winner = result["winner"]
        for seat in (0, 1):
            assert profile.figures_of_game(result, seat) == [result["rounds"] if seat == winner else 0]


def test_1923_breaks_down_into_its_set_table() -> None:
    result = finished("1923")
    breakdown = get_game("1923").PROFILE.breakdown
    assert isinstance(breakdown, SetTable)
    rows = breakdown.rows(result)
    table = result["set_table"]
    assert len(rows) == len(table) > 1  # type: ignore[arg-type]
    for row, original in zip(rows, table, strict=True):  # type: ignore[call-overload]
        assert [cell["points"] for cell in row.cells] == original["points"]
        assert [cell["aces"] for cell in row.cells] == original["aces"]
        assert {key for cell in row.cells for key in cell} == {c.key for c in breakdown.columns}


def test_banter_breaks_down_into_its_race_to_40() -> None:
    result = finished("banter")
    breakdown = get_game("banter").PROFILE.breakdown
    assert isinstance(breakdown, Race) and breakdown.target == 40
    rows = breakdown.rows(result)
    assert [[cell["total"] for cell in row.cells] for row in rows] == result["race"]
    assert sum(row.cells[0]["points"] for row in rows) == result["race"][-1][0]  # type: ignore[index]
    assert [n for n, row in enumerate(rows, start=1) if row.marked] == result["play_on_rounds"]


def test_race_rows_take_each_round_s_points_from_the_running_totals() -> None:
    assert race_rows([[20, 18], [40, 40], [46, 43]], marked=[3]) == [
        Row([{"points": 20, "total": 20}, {"points": 18, "total": 18}]),
        Row([{"points": 20, "total": 40}, {"points": 22, "total": 40}]),
        Row([{"points": 6, "total": 46}, {"points": 3, "total": 43}], marked=True),
    ]
    assert race_rows([]) == []


def test_a_profile_refuses_a_figure_twice_a_figure_without_its_source_and_too_many_figures() -> None:
    own = [Figure(f"f{n}", f"F{n}", of_game=lambda result, seat: 0) for n in range(MAX_FIGURES + 1)]
    with pytest.raises(ValueError, match="appears twice"):
        LeagueProfile(label="X", order=(MATCH_POINTS, MATCH_POINTS))
    with pytest.raises(ValueError, match="needs of_game"):
        LeagueProfile(label="X", order=(MATCH_POINTS, Figure("tricks", "Tricks")))
    with pytest.raises(ValueError, match="needs of_game"):
        LeagueProfile(label="X", order=(Figure("games_won", "Won", of_game=lambda result, seat: 1),))
    with pytest.raises(ValueError, match=f"at most {MAX_FIGURES}"):
        LeagueProfile(label="X", order=(MATCH_POINTS, *own))
    assert LeagueProfile(label="X", order=(MATCH_POINTS, GAMES_WON, *own[:MAX_FIGURES])).own_figures == tuple(
        own[:MAX_FIGURES]
    )


@pytest.mark.parametrize("name", game_names())
def test_every_game_module_has_every_member_the_registry_checks(name: str) -> None:
    assert missing_members(get_game(name)) == []  # type: ignore[arg-type]
