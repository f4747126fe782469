"""Migration 0006: rulesets stored before the size bounds (docs/records.md) are fitted into them."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps

from engine.record import Record
from engine.verify import verify
from tests.factories import CompetitionFactory, EntrantFactory, full_options
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import started
from tournaments.models import Competition, Game
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db

migration: Any = importlib.import_module("tournaments.migrations.0006_options_within_size_bounds")


def legacy(document: dict[str, Any], **old: object) -> dict[str, Any]:
    return {**document, **old}


def test_a_1923_match_played_under_the_old_default_cap_parses_plays_and_shows_again() -> None:
    competition = CompetitionFactory(game="1923", options=full_options("1923", 2, {"target_points": 30}))
    EntrantFactory.create_batch(2, competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    game = Game.objects.get(match__competition=competition)
    # As stored before the bounds: max_sets 1000, the old default, in the competition and the game.
    Competition.objects.filter(pk=competition.pk).update(options=legacy(competition.options, max_sets=1000))
    old_record = legacy(game.record, options=legacy(game.record["options"], max_sets=1000))
    Game.objects.filter(pk=game.pk).update(options=old_record["options"], record=old_record)
    # The engine refuses the old cap, so no public view can be built.
    refused = client_for().get(f"/api/games/{game.pk}/record/")
    assert refused.status_code == 400 and "max_sets" in refused.content.decode()

    migration.fit_rulesets(apps, None)

    assert Competition.objects.get(pk=competition.pk).options["max_sets"] == 300
    game = Game.objects.get(pk=game.pk)
    assert game.options["max_sets"] == game.record["options"]["max_sets"] == 300
    assert verify(Record.from_dict(game.record)).ok
    assert client_for().get(f"/api/games/{game.pk}/record/").status_code == 200


def test_only_caps_out_of_range_are_fitted_and_only_records_that_stopped_before_them() -> None:
    assert migration.fitted("1923", {"decks": 4, "max_sets": 1000}) == {"decks": 4, "max_sets": 75}
    assert migration.fitted("1923", {"decks": 24, "max_sets": 12}) == {"decks": 24, "max_sets": 12}
    assert migration.fitted("banter", {"first_lead": "seed", "max_rounds": 5000})["max_rounds"] == 1000
    assert migration.fitted("war", {"max_rounds": 10_000}) == {"max_rounds": 10_000}
    assert migration.fitted("punk", {"dummy": False, "target": 5000})["target"] == 1000
    assert migration.replays_the_same("1923", {"max_sets": 12}, {"sets": 11, "capped": False})
    assert migration.replays_the_same("1923", {"max_sets": 12}, {"sets": 12, "capped": False})
    assert not migration.replays_the_same("1923", {"max_sets": 12}, {"sets": 50, "capped": True})
    assert not migration.replays_the_same("banter", {"max_rounds": 1000}, {"rounds": 1000})
