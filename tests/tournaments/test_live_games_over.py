"""A live table's games over, kept per match in each process and read again only for the games that ended since."""

from __future__ import annotations

import random

import pytest

from tests.tournaments.live_support import live_match, pick
from tournaments import live_selectors
from tournaments.live_selectors import Viewer, live_table, table_snapshot
from tournaments.models import Match
from tournaments.services.live import live_move

pytestmark = pytest.mark.django_db


def test_every_version_shows_the_games_over_as_a_fresh_read_does() -> None:
    match, players = live_match("1923", options={"mode": "set"}, games=3)
    rng = random.Random(3)
    seen_over = set()
    for step in range(2000):
        match.refresh_from_db()
        snapshot = table_snapshot(match.pk)
        fresh = live_selectors._finished(match.pk, snapshot.participants)
        assert snapshot.finished == fresh[: len(snapshot.finished)] and len(snapshot.finished) == len(fresh)
        seen_over.add(len(fresh))
        if match.status != Match.Status.LIVE:
            break
        for index, player in enumerate(players):
            table = live_table(snapshot=table_snapshot(match.pk), viewer=Viewer(index))
            if table["legal_actions"]:
                live_move(
                    match_id=match.pk,
                    player=player,
                    action=pick(table, rng),
                    version=table["version"],
                    client_move_id=f"m{step}-{index}",
                )
    assert match.status == Match.Status.DONE
    assert seen_over == {0, 1, 2, 3}  # each game's end was read as it came
