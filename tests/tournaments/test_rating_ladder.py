"""The rating ladder's rounds (tournaments/services/rating_ladder.py): ticks, its end, who leaves, newcomers'
placement, and its API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from league.services import bot_retire
from tests.factories import BotVersionFactory, CompetitionFactory, EntrantFactory, MembershipFactory
from tests.league.test_api_support import client_for, make_cast, organised_competition, results
from tests.locks import held_elsewhere
from tournaments.formats.values import setting
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Round, Standing
from tournaments.services.competitions import competition_start, entrant_join
from tournaments.services.play import competition_play_pending
from tournaments.services.rating_ladder import rating_ladder_tick, rating_ladders_tick

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _ladder_settings(settings: Any) -> None:
    settings.RATING_LADDER_BATCH = 200
    settings.RATING_LADDER_PLACEMENT_MATCHES = 2
    settings.RATING_LADDER_EXPLORATION_PERCENT = 0


def ladder(entrants: int = 6, *, ladder_rounds: int | None = None, **fields: Any) -> Competition:
    competition = CompetitionFactory(
        format="rating_ladder", games_per_match=3, settings={"ladder_rounds": ladder_rounds}, **fields
    )
    EntrantFactory.create_batch(entrants, competition=competition)
    return competition_start(competition=competition)


def tick_and_play(competition: Competition) -> int:
    scheduled = rating_ladders_tick()
    competition_play_pending(competition=competition)
    return scheduled


def round_tables(competition: Competition, number: int) -> list[set[int]]:
    matches = competition.matches.filter(round__number=number).prefetch_related("participants").order_by("number")
    return [{p.entrant_id for p in match.participants.all()} for match in matches]


def status(competition: Competition) -> str:
    competition.refresh_from_db()
    return competition.status


def test_a_tick_schedules_a_round_of_every_entrant_once_and_sends_it_when_it_commits(
    sent: list[int], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    competition = ladder(6)
    assert not competition.rounds.exists()  # the start schedules nothing: beat's tick does
    with django_capture_on_commit_callbacks(execute=True):
        assert rating_ladders_tick() == 3
    tables = round_tables(competition, 1)
    assert len(tables) == 3 and all(len(t) == 2 for t in tables)
    assert set().union(*tables) == set(competition.entrants.values_list("id", flat=True))
    matches = list(competition.matches.order_by("id"))
    assert sent == [m.pk for m in matches]
    assert all(m.status == Match.Status.PENDING and m.queued_at is not None for m in matches)
    assert len({m.seed for m in matches}) == 3


def test_nothing_happens_while_a_match_of_the_last_round_is_open(sent: list[int]) -> None:
    competition = ladder(4)
    assert rating_ladder_tick(competition_id=competition.pk) == 2
    first, second = competition.matches.order_by("id")
    for open_status in (Match.Status.PENDING, Match.Status.RUNNING, Match.Status.LIVE, Match.Status.ERROR):
        Match.objects.filter(pk=second.pk).update(status=open_status)
        assert rating_ladders_tick() == 0
        assert competition.rounds.count() == 1
    Match.objects.filter(pk=second.pk).update(status=Match.Status.PENDING)
    competition_play_pending(competition=competition)
    Match.objects.filter(pk=first.pk).update(status=Match.Status.CANCELLED)  # cancelled settles it too
    assert rating_ladders_tick() == 2
    assert list(competition.rounds.values_list("number", flat=True)) == [1, 2]


def test_a_ladder_with_ladder_rounds_finishes_once_its_last_round_is_settled(sent: list[int]) -> None:
    competition = ladder(4, ladder_rounds=2)
    assert tick_and_play(competition) == 2
    assert rating_ladders_tick() == 2
    assert rating_ladders_tick() == 0 and status(competition) == Competition.Status.RUNNING  # round 2 is open
    competition_play_pending(competition=competition)
    assert status(competition) == Competition.Status.RUNNING  # recording never finishes a ladder
    assert rating_ladders_tick() == 0
    assert status(competition) == Competition.Status.FINISHED and competition.finished_at is not None
    assert competition.rounds.count() == 2
    assert rating_ladders_tick() == 0 and competition.rounds.count() == 2


def test_without_ladder_rounds_the_ladder_never_finishes(sent: list[int]) -> None:
    # Two entrants: every round's one match completes the competition as far as recording can tell.
    competition = ladder(2)
    for _ in range(7):
        assert tick_and_play(competition) == 1
        assert status(competition) == Competition.Status.RUNNING
        assert not competition.matches.exclude(status=Match.Status.DONE).exists()
    assert competition.rounds.count() == 7
    assert Standing.objects.filter(competition=competition, played=7).count() == 2


def test_a_retired_bot_leaves_and_keeps_its_history(sent: list[int]) -> None:
    competition = ladder(4)
    tick_and_play(competition)
    leaver = competition.entrants.order_by("id").first()
    assert leaver is not None and leaver.bot_version is not None
    bot_retire(bot=leaver.bot_version.bot)
    assert rating_ladders_tick() == 1
    leaver.refresh_from_db()
    assert leaver.left_at is not None
    assert all(leaver.pk not in table for table in round_tables(competition, 2))
    standing = Standing.objects.get(entrant=leaver)
    assert standing.played == 1 and standing.mu != 25.0
    assert MatchParticipant.objects.filter(entrant=leaver, mu_after__isnull=False).count() == 1
    rows = results(client_for().get(f"/api/tournaments/{competition.pk}/standings/"))
    assert [r["entrant"]["left_at"] is not None for r in rows].count(True) == 1
    assert len(rows) == 4


def test_an_entrant_that_withdrew_is_not_paired() -> None:
    competition = ladder(5)
    leaver = competition.entrants.order_by("id").last()
    assert leaver is not None
    Entrant.objects.filter(pk=leaver.pk).update(left_at=timezone.now())
    for number in range(1, 4):
        tick_and_play(competition)
        assert all(leaver.pk not in table for table in round_tables(competition, number))
        assert sum(len(t) for t in round_tables(competition, number)) == 4


def test_the_longest_waiting_are_found_beyond_the_last_few_rounds(sent: list[int], settings: Any) -> None:
    """The tick reads last rounds from recent rounds first; one who last played long ago still ranks as such."""
    settings.RATING_LADDER_BATCH = 1
    competition = ladder(4)
    away = competition.entrants.order_by("id").first()
    assert away is not None
    tick_and_play(competition)
    assert away.pk in round_tables(competition, 1)[0]
    Entrant.objects.filter(pk=away.pk).update(left_at=timezone.now())
    for _ in range(5):
        tick_and_play(competition)
    Entrant.objects.filter(pk=away.pk).update(left_at=None)  # back, having last played in round 1
    newcomers = {EntrantFactory(competition=competition).pk for _ in range(2)}
    Standing.objects.bulk_create(Standing(competition=competition, entrant_id=e) for e in newcomers)
    tick_and_play(competition)
    assert round_tables(competition, 7) == [newcomers]  # never played: first
    tick_and_play(competition)
    assert away.pk in round_tables(competition, 8)[0]  # round 1 is longer ago than anyone else's last


def test_a_newer_version_replaces_the_older_and_gets_placement_matches_spread_over_the_ladder(
    sent: list[int],
) -> None:
    competition = ladder(8)
    for _ in range(3):
        tick_and_play(competition)
    older = competition.entrants.order_by("id").first()
    assert older is not None and older.bot_version is not None
    newer = entrant_join(competition=competition, bot_version=BotVersionFactory(bot=older.bot_version.bot, number=99))
    older.refresh_from_db()
    assert older.left_at is not None and Standing.objects.filter(entrant=newer, played=0).exists()
    places_seen = []
    for number in (4, 5):
        # The ladder as pairing sees it: the active entrants, best first.
        order = list(
            Standing.objects.filter(competition=competition, entrant__left_at__isnull=True)
            .order_by("-ordinal", "entrant_id")
            .values_list("entrant_id", flat=True)
        )
        tick_and_play(competition)
        (table,) = [t for t in round_tables(competition, number) if newer.pk in t]
        (opponent,) = table - {newer.pk}
        places_seen.append(order.index(opponent))
        assert all(older.pk not in t for t in round_tables(competition, number))
    # Two placement matches among 8: near quantiles 1/4 and 3/4, places 2 and 6 (0 at the top),
    # or the place beside it when the newcomer itself sits there.
    assert abs(places_seen[0] - 2) <= 1 and abs(places_seen[1] - 6) <= 1
    assert Standing.objects.get(entrant=newer).played == 2


def test_a_round_of_a_multiplayer_game_seats_tables_of_its_size(sent: list[int]) -> None:
    competition = ladder(7, game="punk", players_per_match=3)
    assert rating_ladders_tick() == 2
    tables = round_tables(competition, 1)
    assert [len(t) for t in tables] == [3, 3] and len(set().union(*tables)) == 6
    competition_play_pending(competition=competition)
    assert rating_ladders_tick() == 2
    # The one left out of round 1 has waited longest, so it plays in round 2.
    (waited,) = set(competition.entrants.values_list("id", flat=True)) - set().union(*tables)
    assert any(waited in t for t in round_tables(competition, 2))


def test_a_person_entering_a_rating_ladder_is_a_400() -> None:
    cast = make_cast()
    competition = organised_competition(cast.club, cast.organiser, format="rating_ladder")
    MembershipFactory(club=cast.club, player=cast.stranger)
    response = cast.client("stranger").post(
        f"/api/tournaments/{competition.pk}/entrants/", {"player": cast.stranger.pk}, format="json"
    )
    assert response.status_code == 400
    assert "rating ladder is for bots" in str(response.json()["player"])
    assert not competition.entrants.exists()


def test_an_organiser_creates_a_rating_ladder_with_ladder_rounds_through_the_api() -> None:
    cast = make_cast()
    client = cast.client("organiser")
    payload = {"club": cast.club.pk, "name": "Bots", "game": "war", "format": "rating_ladder", "ladder_rounds": 12}
    response = client.post("/api/tournaments/", payload, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["format"], body["ladder_rounds"]) == ("rating_ladder", 12)
    assert setting(Competition.objects.get(pk=body["id"]), "ladder_rounds") == 12
    refused = client.post("/api/tournaments/", {**payload, "format": "round_robin"}, format="json")
    assert refused.status_code == 400 and "ladder_rounds" in refused.json()


def test_the_standings_of_a_rating_ladder_are_in_rating_order_not_points_order(sent: list[int]) -> None:
    competition = ladder(4)
    tick_and_play(competition)
    first, second, third, fourth = competition.entrants.order_by("id")
    # More match points is no help on a rating ladder: the rating decides.
    for entrant, units, ordinal in ((first, 8, 1.0), (second, 0, 9.0), (third, 4, 5.0), (fourth, 6, -2.0)):
        Standing.objects.filter(entrant=entrant).update(match_units=units, ordinal=ordinal)
    rows = results(client_for().get(f"/api/tournaments/{competition.pk}/standings/"))
    assert [row["entrant"]["id"] for row in rows] == [second.pk, third.pk, first.pk, fourth.pk]
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert [row["ordinal"] for row in rows] == [9.0, 5.0, 1.0, -2.0]
    assert [row["match_points"] for row in rows] == ["0", "2", "4", "3"]  # what a round robin would sort by


def test_round_seeds_and_tables_follow_from_the_competition_seed(sent: list[int]) -> None:
    def first_round(seed: int) -> tuple[list[int], list[list[int]]]:
        """The seeds, and the tables as places in the entrant list, of a new ladder's first round."""
        competition = ladder(6, seed=seed)
        rating_ladder_tick(competition_id=competition.pk)
        ids = list(competition.entrants.order_by("id").values_list("id", flat=True))
        matches = competition.matches.order_by("number")
        tables = [[ids.index(p.entrant_id) for p in m.participants.order_by("seat")] for m in matches]
        return [m.seed for m in matches], tables

    assert first_round(77) == first_round(77)
    assert first_round(77)[0] != first_round(78)[0]
    assert Round.objects.filter(number=1).count() == 4


@pytest.mark.django_db(transaction=True)
def test_a_tick_that_finds_the_round_open_waits_for_no_recording_holding_the_ladders_lock(sent: list[int]) -> None:
    import threading

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    competition = ladder(6)
    assert rating_ladder_tick(competition_id=competition.pk) == 3  # round 1, open while nobody plays it
    # As a recording of one of the ladder's matches does, for as long as it writes.
    with held_elsewhere(lambda: Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)):
        ticked: list[int] = []
        ticker = threading.Thread(
            target=lambda: (ticked.append(rating_ladder_tick(competition_id=competition.pk)), connection.close())
        )
        ticker.start()
        ticker.join(5)
        assert ticked == [0], "the tick waited for the ladder's lock"
