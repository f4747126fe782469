"""A game's league profile that fails on a match's results puts the match in error, with the cause,
and writes nothing: a profile is the game's code, possibly from outside the engine (ENGINE_GAMES)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.games import get_game
from engine.games.profile import Figure
from tests.factories import CompetitionFactory, EntrantFactory
from tests.tournaments.helpers import started
from tournaments.models import Game, Match, MatchSet, Standing
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db


def _broken(result: Any, seat: int) -> int:
    raise KeyError("rounds_played")


def test_a_profile_that_raises_leaves_the_match_in_error_saying_why_and_nothing_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    war = get_game("war")
    broken = Figure("rounds_needed", "Rounds needed", higher_first=False, of_game=_broken, won_games_only=True)
    order = (*war.PROFILE.order[:2], broken)
    monkeypatch.setattr(war, "PROFILE", dataclasses.replace(war.PROFILE, order=order))
    competition = CompetitionFactory(game="war", games_per_match=3)
    EntrantFactory.create_batch(2, competition=competition)
    started(competition)

    competition_play_pending(competition=competition)

    match = Match.objects.get(competition=competition)
    assert match.status == Match.Status.ERROR
    assert match.error == ("the league profile of war could not read this match's results: KeyError: 'rounds_played'")
    assert not Game.objects.filter(match=match).exists()
    assert not MatchSet.objects.filter(match=match).exists()
    assert list(Standing.objects.filter(competition=competition).values_list("played", "games_played")) == [
        (0, 0),
        (0, 0),
    ]
