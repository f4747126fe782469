"""Rating history (issue 13, "Seeing it"): each entrant's rating after every rated match, in the API."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps

from league.ratings import DEFAULT_MU, DEFAULT_SIGMA
from tests.factories import CompetitionFactory, EntrantFactory
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import started
from tournaments.models import Competition, MatchParticipant, Standing
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db

migration: Any = importlib.import_module("tournaments.migrations.0008_rating_after_each_match")


def played(game: str = "punk", entrants: int = 5, players: int = 3) -> Competition:
    competition = CompetitionFactory(game=game, players_per_match=players, games_per_match=2)
    EntrantFactory.create_batch(entrants, competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    return competition


def history(competition: Competition) -> list[dict[str, Any]]:
    response = client_for().get(f"/api/tournaments/{competition.pk}/ratings/history/")
    assert response.status_code == 200
    body: list[dict[str, Any]] = response.json()
    return body


def test_each_entrant_has_a_point_per_match_ending_at_its_standing() -> None:
    competition = played()
    rows = history(competition)
    assert len(rows) == 5
    for row in rows:
        standing = Standing.objects.get(entrant_id=row["entrant"]["id"])
        points = row["points"]
        assert len(points) == standing.played > 0
        assert [(p["round"], p["match"]) for p in points] == sorted((p["round"], p["match"]) for p in points)
        last = points[-1]
        assert (last["mu"], last["sigma"]) == pytest.approx((standing.mu, standing.sigma))
        assert last["ordinal"] == pytest.approx(standing.ordinal)
        # Every rated match made the entrant's rating more certain.
        sigmas = [DEFAULT_SIGMA] + [p["sigma"] for p in points]
        assert sigmas == sorted(sigmas, reverse=True)
    assert any(p["mu"] != DEFAULT_MU for row in rows for p in row["points"])


def test_a_competition_not_yet_played_has_entrants_without_points() -> None:
    competition = CompetitionFactory()
    EntrantFactory.create_batch(2, competition=competition)
    assert [row["points"] for row in history(competition)] == [[], []]


def test_the_migration_replays_the_history_the_recording_wrote() -> None:
    competition = played(game="war", entrants=4, players=2)
    recorded = list(MatchParticipant.objects.order_by("id").values_list("mu_after", "sigma_after"))
    assert all(mu is not None for mu, _ in recorded)
    MatchParticipant.objects.update(mu_after=None, sigma_after=None)
    migration.replay_history(apps, None)
    replayed = list(MatchParticipant.objects.order_by("id").values_list("mu_after", "sigma_after"))
    assert [v for pair in replayed for v in pair] == pytest.approx([v for pair in recorded for v in pair])
    assert competition.matches.count() == 6
