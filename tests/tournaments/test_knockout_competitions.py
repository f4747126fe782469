"""Knockouts through the API and the services (issue 14): seeding (entry, rating, standings, by hand), rounds
paired from the bracket one at a time, best-of-N matches, the third-place match, multiplayer tables with the top
K going on, double elimination, the bracket in the API, places in the standings, a person at a live table, and a
Swiss stage cutting to a knockout. Eager tasks here; tests/e2e/test_knockout.py uses workers.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.match import GamePlayed, decided_early
from engine.record import Record
from league.models import Membership
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory
from tests.league.test_api_support import client_for
from tests.tournaments.test_swiss_competitions import play_seats, swiss, tables_by_round
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.formats.values import setting
from tournaments.knockout import Played, Settings, bracket
from tournaments.models import Competition, Entrant, Game, Match, Round
from tournaments.services.play import match_claim, match_simulate
from tournaments.services.results import match_record_result
from tournaments.services.transcripts import transcript_confirm, transcript_submit

pytestmark = pytest.mark.django_db


def knockout(
    game: str = "war", bots: int = 8, people: int = 0, format: str = "single_elimination", **settings: Any
) -> tuple[Competition, Any]:
    """A knockout created and entered through the API; the organiser's client."""
    return swiss(game=game, bots=bots, people=people, format=format, **settings)


def start(competition: Competition, organiser: Any, capture: Any, **body: Any) -> Any:
    with capture(execute=True):
        return organiser.post(f"/api/tournaments/{competition.pk}/start/", body, format="json")


def replayed(competition: Competition) -> Any:
    """The bracket worked out again from the stored matches, independently of the service's read."""
    seeds = list(Entrant.objects.filter(competition=competition).order_by("seed").values_list("id", flat=True))
    played = []
    for round_ in Round.objects.filter(competition=competition).order_by("number"):
        tables = []
        for match in round_.matches.order_by("number"):
            seats = list(match.participants.order_by("seat"))
            tables.append(Played(tuple(p.entrant_id for p in seats), tuple(p.rank for p in seats)))
        played.append(tables)
    settings = Settings(
        competition.players_per_match,
        setting(competition, "advance_count"),
        competition.format == "double_elimination",
        setting(competition, "third_place"),
    )
    return bracket(seeds, settings, played)


def test_a_single_elimination_of_six_gives_the_top_seeds_byes_and_plays_down_to_a_champion(
    django_capture_on_commit_callbacks: Any,
) -> None:
    competition, organiser = knockout(bots=6, games_per_match=3, third_place=True)
    entrants = list(competition.entrants.order_by("id").values_list("id", flat=True))
    assert start(competition, organiser, django_capture_on_commit_callbacks).status_code == 200
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    seeds = dict(Entrant.objects.filter(competition=competition).values_list("id", "seed"))
    assert [seeds[e] for e in entrants] == [1, 2, 3, 4, 5, 6]  # seeding "entry"
    rounds = tables_by_round(competition)
    # Round 1: seeds 1 and 2 sit out; 3 meets 6 and 4 meets 5.
    assert [sorted(seeds[e] for e in t) for t in rounds[1]] == [[3, 6], [4, 5]]
    assert len(rounds) == 3 and len(rounds[3]) == 2  # the final and the third-place match
    for match in Match.objects.filter(competition=competition):
        assert_best_of(match, 3)
    body = organiser.get(f"/api/tournaments/{competition.pk}/bracket/").json()
    assert body["finished"] is True
    assert [b["side_name"] for b in body["rounds"][0]["byes"]] == ["Upper bracket"]
    assert [e["seed"] for e in body["rounds"][0]["byes"][0]["entrants"]] == [1, 2]
    final, third = body["rounds"][2]["tables"]
    assert (final["side"], third["side"]) == ("final", "third_place")
    places = {p["entrant"]["id"]: p["place"] for p in body["places"]}
    assert places == replayed(competition).places
    assert sorted(places.values()) == [1, 2, 3, 4, 5, 5]
    assert places[final["seats"][0]["entrant"]["id"]] == 1
    assert places[third["seats"][0]["entrant"]["id"]] == 3
    # The standings rank by place.
    standings = organiser.get(f"/api/tournaments/{competition.pk}/standings/").json()["results"]
    assert [places[row["entrant"]["id"]] for row in standings] == sorted(places.values())
    assert [row["rank"] for row in standings] == sorted(places.values())
    # Rounds list each round's byes from the bracket, not those already out.
    listed = organiser.get(f"/api/tournaments/{competition.pk}/rounds/").json()["results"]
    assert [sorted(seeds[e] for e in r["byes"]) for r in listed] == [[1, 2], [], []]


def assert_best_of(match: Match, games: int) -> None:
    """The match played its games up to the first point where one side could no longer be caught."""
    index = {p.entrant_id: p.seat for p in match.participants.all()}
    stored = [
        GamePlayed(g.number, tuple(index[e] for e in g.seating), Record.from_dict(g.record))
        for g in Game.objects.filter(match=match).order_by("number")
    ]
    assert [g.number for g in stored] == list(range(len(stored)))
    decided = [decided_early(stored[:n], participants=2, games=games, duplicate=False) for n in range(1, len(stored))]
    assert not any(decided), "a game was played after the match was decided"
    assert len(stored) == games or decided_early(stored, participants=2, games=games, duplicate=False)


def test_a_best_of_five_between_a_person_and_a_bot_at_a_live_table_stops_once_decided(
    django_capture_on_commit_callbacks: Any,
) -> None:
    # War deals and plays itself: the match is over as soon as it is dealt, game after game.
    competition, organiser = knockout(bots=1, people=1, games_per_match=5)
    assert start(competition, organiser, django_capture_on_commit_callbacks).status_code == 200
    match = Match.objects.get(competition=competition)
    assert match.status == Match.Status.DONE
    assert 3 <= match.games.count() <= 5
    assert_best_of(match, 5)


def test_a_best_of_three_from_transcripts_is_recorded_once_two_games_decide_it(
    django_capture_on_commit_callbacks: Any,
) -> None:
    match, players = transcript_match("war", games=3)
    Competition.objects.filter(pk=match.competition_id).update(format="single_elimination")
    for participant in match.participants.all():
        Entrant.objects.filter(pk=participant.entrant_id).update(seed=participant.seat + 1)
    match.refresh_from_db()
    # Deals (seeds) under which the first participant wins game 0 (from seat 0) and game 1 (from seat 1).
    wins = {0: [], 1: []}
    for seed in range(1, 60):
        ranks = table_record(match, 0, seed=seed)["result"]["ranks"]
        wins[0 if ranks[0] < ranks[1] else 1].append(seed)
    # Game 2's transcript comes in first, then the two games that decide the match.
    for number, seed in ((2, wins[0][0]), (0, wins[0][0]), (1, wins[1][0])):
        with django_capture_on_commit_callbacks(execute=True):
            transcript = transcript_submit(
                match=match, player=players[0], game_number=number, record=table_record(match, number, seed=seed)
            )
        with django_capture_on_commit_callbacks(execute=True):
            transcript_confirm(transcript=transcript, player=players[1])
        if number == 2:
            assert Match.objects.get(pk=match.pk).status == Match.Status.LIVE  # games 0 and 1 still to come
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    assert match.games.count() == 2
    # The third game's transcript stood for a game the match never needed: voided, saying why.
    late = match.transcripts.get(game_number=2)
    assert (late.status, late.reason) == ("voided", "the match was decided after 2 games")
    first = match.participants.get(seat=0)
    assert first.rank == 1


def test_seeds_by_hand_and_by_the_standings_of_another_competition(django_capture_on_commit_callbacks: Any) -> None:
    competition, organiser = knockout(bots=4)
    entrants = list(competition.entrants.order_by("id").values_list("id", flat=True))
    order = list(reversed(entrants))
    assert start(competition, organiser, django_capture_on_commit_callbacks, order=order).status_code == 200
    seeds = dict(Entrant.objects.filter(competition=competition).values_list("id", "seed"))
    assert [seeds[e] for e in order] == [1, 2, 3, 4]
    first_round = tables_by_round(competition)[1]
    assert sorted(map(sorted, first_round)) == sorted([sorted([order[0], order[3]]), sorted([order[1], order[2]])])
    # A second cup seeded by the first's final standings: the champion is its first seed.
    club = competition.club
    body = {
        "club": club.pk,
        "name": "Cup 2",
        "game": "war",
        "format": "single_elimination",
        "seeding": "standings",
        "seeded_from": competition.pk,
    }
    created = organiser.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    second = Competition.objects.get(pk=created.json()["id"])
    for entrant in Entrant.objects.filter(competition=competition).select_related("bot_version"):
        organiser.post(f"/api/tournaments/{second.pk}/entrants/", {"bot_version": entrant.bot_version.pk})
    assert start(second, organiser, django_capture_on_commit_callbacks).status_code == 200
    first_places = replayed(competition).places
    bot_place = {
        e.bot_version.bot_id: first_places[e.pk]
        for e in Entrant.objects.filter(competition=competition).select_related("bot_version")
    }
    by_seed = Entrant.objects.filter(competition=second).order_by("seed").select_related("bot_version")
    assert [bot_place[e.bot_version.bot_id] for e in by_seed] == sorted(first_places.values())


def test_a_four_player_knockout_sends_the_best_two_of_each_table_on(django_capture_on_commit_callbacks: Any) -> None:
    competition, organiser = knockout(game="punk", bots=8, players_per_match=4, advance_count=2)
    assert start(competition, organiser, django_capture_on_commit_callbacks).status_code == 200
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    rounds = tables_by_round(competition)
    assert [len(rounds[n]) for n in sorted(rounds)] == [2, 1]
    assert all(len(t) == 4 for tables in rounds.values() for t in tables)
    finalists = set(rounds[2][0])
    for match in Match.objects.filter(competition=competition, round__number=1):
        best_two = {p.entrant_id for p in match.participants.order_by("rank", "entrant__seed")[:2]}
        assert best_two <= finalists
    places = replayed(competition).places
    assert sorted(places.values()) == [1, 2, 3, 4, 5, 5, 5, 5]


def test_a_double_elimination_plays_a_lower_bracket_and_a_grand_final(django_capture_on_commit_callbacks: Any) -> None:
    competition, organiser = knockout(bots=6, format="double_elimination")
    assert start(competition, organiser, django_capture_on_commit_callbacks).status_code == 200
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    body = organiser.get(f"/api/tournaments/{competition.pk}/bracket/").json()
    sides = [t["side"] for r in body["rounds"] for t in r["tables"]]
    assert "lower" in sides and "grand_final" in sides
    state = replayed(competition)
    assert state.finished and sorted(state.places.values())[:2] == [1, 2]
    # Nobody goes out before losing twice: everyone knocked out was first dropped to the lower bracket.
    dropped = {e["id"] for r in body["rounds"] for e in r["dropped"]}
    out = {e["id"] for r in body["rounds"] for e in r["eliminated"]}
    assert out and out <= dropped


def test_a_person_plays_a_knockout_at_a_live_table_and_the_next_round_waits(
    django_capture_on_commit_callbacks: Any,
) -> None:
    competition, organiser = knockout(bots=3, people=1)
    assert start(competition, organiser, django_capture_on_commit_callbacks).status_code == 200
    person = Entrant.objects.get(competition=competition, player__isnull=False)
    while True:
        live = Match.objects.filter(competition=competition, status=Match.Status.LIVE).first()
        if live is None:
            break
        number = live.round.number
        assert not Round.objects.filter(competition=competition, number=number + 1).exists()
        seats = {p.seat: person.player for p in live.participants.all() if p.entrant_id == person.pk}
        with django_capture_on_commit_callbacks(execute=True):
            play_seats(live, seats)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    assert replayed(competition).places[person.pk] in (1, 2, 3)


def test_a_swiss_stage_cuts_to_its_best_four_for_a_knockout(django_capture_on_commit_callbacks: Any) -> None:
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    organiser = client_for(membership.player.user)
    body = {
        "club": membership.club.pk,
        "name": "Open",
        "game": "war",
        "format": "swiss",
        "round_count": 3,
        "cut_to": 4,
        "cut_format": "single_elimination",
        "third_place": True,
    }
    created = organiser.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    stage = Competition.objects.get(pk=created.json()["id"])
    for _ in range(7):
        version = BotVersionFactory(bot=BotFactory(owner=membership.player, game="war"))
        organiser.post(f"/api/tournaments/{stage.pk}/entrants/", {"bot_version": version.pk})
    assert start(stage, organiser, django_capture_on_commit_callbacks).status_code == 200
    stage.refresh_from_db()
    assert stage.status == Competition.Status.FINISHED and stage.next_stage is not None
    cut = stage.next_stage
    assert (
        cut.format == "single_elimination" and setting(cut, "seeded_from") == stage.pk and setting(cut, "third_place")
    )
    assert organiser.get(f"/api/tournaments/{stage.pk}/").json()["next_stage"] == cut.pk
    stage_rows = organiser.get(f"/api/tournaments/{stage.pk}/standings/").json()["results"]
    best_bots = [Entrant.objects.get(pk=row["entrant"]["id"]).bot_version_id for row in stage_rows[:4]]
    seeded = list(Entrant.objects.filter(competition=cut).order_by("seed").values_list("bot_version_id", flat=True))
    assert seeded == best_bots
    cut.refresh_from_db()
    assert cut.status == Competition.Status.FINISHED  # bots play it out at once
    assert sorted(replayed(cut).places.values()) == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"format": "single_elimination", "players_per_match": 4, "game": "punk", "advance_count": 3}, "advance_count"),
        ({"format": "double_elimination", "players_per_match": 4, "game": "punk", "advance_count": 2}, "advance_count"),
        ({"format": "single_elimination", "players_per_match": 4, "game": "punk", "third_place": True}, "third_place"),
        ({"format": "double_elimination", "third_place": True}, "third_place"),
        ({"format": "round_robin", "advance_count": 2}, "advance_count"),
        ({"format": "round_robin", "seeding": "rating"}, "seeding"),
        ({"format": "single_elimination", "seeding": "standings"}, "seeded_from"),
        ({"format": "single_elimination", "cut_to": 4, "cut_format": "single_elimination"}, "cut_to"),
        ({"format": "swiss", "cut_to": 4}, "cut_format"),
        ({"format": "swiss", "cut_to": 1, "cut_format": "single_elimination"}, "cut_to"),
        ({"format": "single_elimination", "cut_format": "knockout"}, "cut_format"),
        ({"format": "swiss", "cut_to": 8, "cut_format": "single_elimination", "max_entrants": 6}, "cut_to"),
    ],
)
def test_knockout_settings_that_cannot_work_are_400s_naming_the_field(body: dict[str, Any], field: str) -> None:
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    organiser = client_for(membership.player.user)
    payload = {"club": membership.club.pk, "name": "Bad", "game": "war", **body}
    response = organiser.post("/api/tournaments/", payload, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json(), response.json()


def test_seeding_from_another_club_or_game_and_bad_orders_are_refused(
    django_capture_on_commit_callbacks: Any,
) -> None:
    competition, organiser = knockout(bots=4)
    other, _ = knockout(bots=2)
    body = {
        "club": competition.club_id,
        "name": "Seeded",
        "game": "war",
        "format": "single_elimination",
        "seeding": "standings",
        "seeded_from": other.pk,
    }
    refused = organiser.post("/api/tournaments/", body, format="json")
    assert refused.status_code == 400 and "seeded_from" in refused.json()
    entrants = list(competition.entrants.values_list("id", flat=True))
    bad = start(competition, organiser, django_capture_on_commit_callbacks, order=entrants[:3])
    assert bad.status_code == 400 and "order" in bad.json()
    assert organiser.get(f"/api/tournaments/{competition.pk}/bracket/").status_code == 404  # not drawn yet
    assert Competition.objects.get(pk=competition.pk).status == Competition.Status.OPEN


def test_a_stage_with_fewer_entrants_than_its_cut_does_not_start(django_capture_on_commit_callbacks: Any) -> None:
    competition, organiser = knockout(bots=0, format="swiss", cut_to=8, cut_format="single_elimination")
    for _ in range(4):
        version = BotVersionFactory(bot=BotFactory(owner=competition.created_by, game="war"))
        organiser.post(f"/api/tournaments/{competition.pk}/entrants/", {"bot_version": version.pk})
    refused = start(competition, organiser, django_capture_on_commit_callbacks)
    assert refused.status_code == 400 and "only 4 have entered" in refused.json()["cut_to"][0]


def test_the_bracket_is_a_404_for_other_formats() -> None:
    competition, organiser = knockout(bots=2, format="round_robin")
    assert organiser.get(f"/api/tournaments/{competition.pk}/bracket/").status_code == 404


def test_knockout_settings_change_while_entries_are_open_and_are_checked_again(
    django_capture_on_commit_callbacks: Any,
) -> None:
    competition, organiser = knockout(bots=4)
    url = f"/api/tournaments/{competition.pk}/"
    changed = organiser.patch(url, {"third_place": True, "seeding": "rating"}, format="json")
    assert changed.status_code == 200, changed.json()
    assert (changed.json()["third_place"], changed.json()["seeding"]) == (True, "rating")
    refused = organiser.patch(url, {"advance_count": 2}, format="json")
    assert refused.status_code == 400 and "advance_count" in refused.json()
    itself = organiser.patch(url, {"seeding": "standings", "seeded_from": competition.pk}, format="json")
    assert itself.status_code == 400 and "its own standings" in itself.json()["seeded_from"][0]
    assert setting(Competition.objects.get(pk=competition.pk), "advance_count") == 1  # nothing half-saved
    assert start(competition, organiser, django_capture_on_commit_callbacks).status_code == 200
    late = organiser.patch(url, {"third_place": False}, format="json")
    assert late.status_code == 400 and "only while entries are open" in late.json()["third_place"][0]


def test_an_open_knockout_has_empty_standings_and_no_bracket_yet() -> None:
    competition, organiser = knockout(bots=3)
    standings = organiser.get(f"/api/tournaments/{competition.pk}/standings/")
    assert standings.status_code == 200 and standings.json()["results"] == []
    assert organiser.get(f"/api/tournaments/{competition.pk}/rounds/").json()["results"] == []
    assert organiser.get(f"/api/tournaments/{competition.pk}/bracket/").status_code == 404


@pytest.mark.parametrize("format", ["single_elimination", "swiss"])
def test_a_match_still_playing_when_its_competition_is_cancelled_records_and_pairs_nothing(format: str) -> None:
    competition, organiser = knockout(bots=4, format=format)
    # Started without running the workers' tasks: every match of round 1 waits, and one is claimed.
    assert organiser.post(f"/api/tournaments/{competition.pk}/start/", {}, format="json").status_code == 200
    first, second = Match.objects.filter(competition=competition).order_by("number")
    claimed = match_claim(match_id=first.pk)
    assert claimed is not None
    assert organiser.post(f"/api/tournaments/{competition.pk}/cancel/").status_code == 200
    match_record_result(match=claimed, result=match_simulate(match=claimed))
    assert Match.objects.get(pk=first.pk).status == Match.Status.DONE
    assert Match.objects.get(pk=second.pk).status == Match.Status.CANCELLED
    assert list(Round.objects.filter(competition=competition).values_list("number", flat=True)) == [1]
    competition.refresh_from_db()
    assert competition.status == Competition.Status.CANCELLED
    if format == "single_elimination":
        # The bracket stops at the cancelled round: nobody is placed by a match never played.
        body = organiser.get(f"/api/tournaments/{competition.pk}/bracket/").json()
        assert body["places"] == [] and body["finished"] is False
        assert [r["played"] for r in body["rounds"]] == [False]
