"""Competition services: creating, entering, starting, playing and recording, exactly once."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from engine.record import Record
from engine.verify import verify
from league.models import BotVersion
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
)
from tests.tournaments.helpers import two_bot_match
from tournaments.models import Competition, Game, Match, MatchParticipant, Standing
from tournaments.selectors import competition_standings
from tournaments.services.competitions import (
    competition_cancel,
    competition_create,
    competition_start,
    entrant_join,
)
from tournaments.services.play import (
    competition_play_pending,
    match_claim,
    match_mark_error,
    match_play,
    match_simulate,
)
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db


def ready_version(game: str = "war", strategy: str = "random") -> BotVersion:
    return BotVersionFactory(bot=BotFactory(game=game), strategy=strategy)


def test_create_validates_options_through_the_engine_and_names_the_bad_field() -> None:
    club, player = ClubFactory(), PlayerFactory()
    with pytest.raises(ValidationError) as info:
        competition_create(club=club, created_by=player, name="x", game="war", options={"max_rounds": 0})
    assert "max_rounds" in str(info.value.message_dict["options"])
    with pytest.raises(ValidationError) as info:
        competition_create(club=club, created_by=player, name="x", game="chess")
    assert "unknown game" in info.value.message_dict["game"][0]
    with pytest.raises(ValidationError) as info:
        competition_create(club=club, created_by=player, name="x", game="banter", settings={"players_per_match": 3})
    assert "players_per_match" in info.value.message_dict
    competition = competition_create(club=club, created_by=player, name="ok", game="war")
    assert competition.options == {"max_rounds": 10000}
    assert list(competition.organisers.all()) == [player]


def test_joining_refuses_duplicates_wrong_games_unready_versions_and_a_full_list() -> None:
    competition = CompetitionFactory(max_entrants=2)
    version = ready_version()
    entrant_join(competition=competition, bot_version=version)
    with pytest.raises(ValidationError, match="already joined"):
        entrant_join(competition=competition, bot_version=version)
    with pytest.raises(ValidationError, match="plays banter"):
        entrant_join(competition=competition, bot_version=ready_version("banter"))
    pending = BotVersionFactory(bot=BotFactory(game="war"), status=BotVersion.Status.PENDING)
    with pytest.raises(ValidationError, match="only ready versions"):
        entrant_join(competition=competition, bot_version=pending)
    with pytest.raises(ValidationError, match="is not a member of"):
        entrant_join(competition=competition, player=PlayerFactory())
    entrant_join(competition=competition, player=MembershipFactory(club=competition.club).player)
    with pytest.raises(ValidationError, match="full"):
        entrant_join(competition=competition, bot_version=ready_version())


def test_start_needs_enough_entrants_and_builds_a_round_robin() -> None:
    competition = CompetitionFactory()
    EntrantFactory(competition=competition)
    with pytest.raises(ValidationError, match="at least 2 entrants"):
        competition_start(competition=competition)
    for _ in range(4):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.RUNNING
    # Five entrants: 10 matches over 5 rounds (one bye a round); every pair exactly once.
    assert competition.matches.count() == 10 and competition.rounds.count() == 5
    pairs = {
        frozenset(MatchParticipant.objects.filter(match=m).values_list("entrant_id", flat=True))
        for m in competition.matches.all()
    }
    assert len(pairs) == 10
    with pytest.raises(ValidationError, match="entries are closed"):
        entrant_join(competition=competition, bot_version=ready_version())


def test_playing_a_war_round_robin_records_every_game_once_with_verifiable_records() -> None:
    competition = CompetitionFactory(games_per_match=3)
    for _ in range(4):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    assert competition_play_pending(competition=competition) == 6
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    assert Game.objects.filter(match__competition=competition).count() == 18
    for game in Game.objects.filter(match__competition=competition):
        assert verify(Record.from_dict(game.record)).ok
    rows = competition_standings(competition)
    assert sum(r.standing.played for r in rows) == 12
    assert sum(r.standing.won + r.standing.drawn + r.standing.lost for r in rows) == 12
    assert sum(r.match_points for r in rows) == 6  # one point shared out per two-player match
    assert all(r.standing.ordinal != 0 for r in rows)


def test_recording_a_match_twice_changes_nothing() -> None:
    competition = CompetitionFactory()
    for _ in range(2):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = competition.matches.get()
    result = match_simulate(match=match)
    match_record_result(match=match, result=result)
    before = list(Standing.objects.values())
    match_record_result(match=match, result=result)
    assert list(Standing.objects.values()) == before
    assert Game.objects.count() == 1


def test_recording_a_match_cancelled_meanwhile_writes_nothing() -> None:
    match = two_bot_match(3)
    result = match_simulate(match=match)
    competition_cancel(competition=match.competition)
    before = list(Standing.objects.values())
    recorded = match_record_result(match=match, result=result)
    assert recorded.status == Match.Status.CANCELLED
    assert Game.objects.count() == 0 and list(Standing.objects.values()) == before


def test_a_broken_result_is_an_error_not_taken_for_a_second_recording() -> None:
    match = two_bot_match(2)
    result = match_simulate(match=match)
    twice = dataclasses.replace(result, games=(result.games[0], result.games[0]))  # game 0 twice
    with pytest.raises(IntegrityError):
        match_record_result(match=match, result=twice)
    match.refresh_from_db()
    assert match.status == Match.Status.PENDING and Game.objects.count() == 0
    assert match_record_result(match=match, result=result).status == Match.Status.DONE


def test_a_worker_whose_match_was_taken_over_and_recorded_does_not_put_it_in_error() -> None:
    match = two_bot_match(2)
    first = match_claim(match_id=match.pk)
    assert first is not None
    # The reaper gave the match to another worker, which recorded it; then the first one fails.
    Match.objects.filter(pk=match.pk).update(status=Match.Status.PENDING)
    second = match_claim(match_id=match.pk)
    assert second is not None and second.attempts == 2
    match_record_result(match=second, result=match_simulate(match=second))
    after = match_mark_error(match=first, error="the match took longer than 840 s")
    assert (after.status, after.error) == (Match.Status.DONE, "")
    assert match_mark_error(match=second, error="boom").status == Match.Status.DONE


def test_a_claimed_match_is_not_played_by_a_second_caller() -> None:
    competition = CompetitionFactory()
    for _ in range(2):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = competition.matches.get()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    assert match_play(match_id=match.pk) is None
    assert Game.objects.count() == 0


def test_ratings_do_not_depend_on_the_order_matches_are_recorded_in() -> None:
    def run(order: str) -> list[tuple[str, float, float]]:
        competition = CompetitionFactory(seed=77)
        for name in "ABCD":
            EntrantFactory(competition=competition, name=name)
        competition_start(competition=competition)
        matches = list(competition.matches.order_by("round__number", "id"))
        results = [(m, match_simulate(match=m)) for m in matches]
        for match, result in results if order == "forward" else reversed(results):
            match_record_result(match=match, result=result)
        return sorted((s.entrant.name, s.mu, s.sigma) for s in Standing.objects.filter(competition=competition))

    assert run("forward") == run("backward")


def test_unique_constraints_refuse_a_second_game_number_and_a_second_seat() -> None:
    competition = CompetitionFactory()
    a, _ = EntrantFactory(competition=competition), EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = competition.matches.get()
    match_play(match_id=match.pk)
    game = Game.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(match=match, number=game.number, seating=[], seed=1, options={}, record={}, result={})
    with pytest.raises(IntegrityError), transaction.atomic():
        MatchParticipant.objects.create(match=match, entrant=a, seat=5)


def test_cancelling_stops_pending_matches_and_keeps_recorded_ones() -> None:
    competition = CompetitionFactory()
    for _ in range(4):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    first = competition.matches.order_by("id").first()
    assert first is not None
    match_play(match_id=first.pk)
    competition_cancel(competition=competition)
    statuses = set(competition.matches.exclude(pk=first.pk).values_list("status", flat=True))
    assert statuses == {Match.Status.CANCELLED}
    first.refresh_from_db()
    assert first.status == Match.Status.DONE
