"""Migration 0007: standings rows move each game's own figures from a column per figure into the slots.

Run for real: the database is taken back to 0006, rows are written in the old shape, and the
migration is applied forwards and backwards.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tournaments", "0006_options_within_size_bounds"), ("league", "0005_club_competition_creators")]
AFTER = [("tournaments", "0007_standing_figure_slots"), ("league", "0006_game_choices_from_the_engine")]


def latest() -> list[tuple[str, str]]:
    """Every app's last migration: where the test leaves the database for the tests after it."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


#: Old figures of one row per game, as the old columns held them.
OLD = {
    "1923": {"set_points": 31, "cards_won": 140},
    "banter": {"trick_points": 87},
    "war": {"rounds_needed": 512},
    "punk": {"total_score": 23},
}
#: The same, in the slots the game's profile gives them.
SLOTS = {
    "1923": [31, 140, 0, 0],
    "banter": [87, 0, 0, 0],
    "war": [512, 0, 0, 0],
    "punk": [23, 0, 0, 0],
}


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def old_rows(apps: Any) -> dict[str, int]:
    """One standings row per game in the old shape; the row id by game."""
    player = apps.get_model("league", "Player").objects.create(
        user=apps.get_model("auth", "User").objects.create(username="old"), display_name="Old"
    )
    club = apps.get_model("league", "Club").objects.create(name="Old club", slug="old-club")
    ids = {}
    for game, figures in OLD.items():
        competition = apps.get_model("tournaments", "Competition").objects.create(
            club=club, name=f"Old {game}", game=game, created_by=player, players_per_match=2, seed=1
        )
        entrant = apps.get_model("tournaments", "Entrant").objects.create(
            competition=competition, name="E", player=player
        )
        standing = apps.get_model("tournaments", "Standing").objects.create(
            competition=competition, entrant=entrant, match_units=4, **figures
        )
        ids[game] = standing.pk
    return ids


def test_each_game_s_old_figures_land_in_its_profile_s_slots_and_come_back() -> None:
    try:
        ids = old_rows(migrate(BEFORE))
        standing = migrate(AFTER).get_model("tournaments", "Standing")
        for game, slots in SLOTS.items():
            row = standing.objects.get(pk=ids[game])
            assert [row.figure_1, row.figure_2, row.figure_3, row.figure_4] == slots, game
            assert row.match_units == 4
        standing = migrate(BEFORE).get_model("tournaments", "Standing")
        for game, figures in OLD.items():
            row = standing.objects.get(pk=ids[game])
            assert {name: getattr(row, name) for name in figures} == figures, game
    finally:
        migrate(latest())
        # The rows written here are not the test database's to keep: transaction=True flushes them.
