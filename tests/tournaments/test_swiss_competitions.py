"""Swiss competitions through the API and the services (issue 14): rounds paired one at a time from the
standings, byes scored as the competition says, no rematches, pods for multiplayer games, people at live
tables, and the end after ``round_count`` rounds. Eager tasks here; tests/e2e/test_swiss.py uses workers.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest
from django.utils import timezone

from engine.referee import LiveGame
from league.models import Membership
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.formats.values import setting
from tournaments.live_selectors import Viewer, live_table, table_snapshot
from tournaments.models import (
    Competition,
    Entrant,
    Game,
    Match,
    MatchParticipant,
    Round,
    Standing,
    Transcript,
    units_per_point,
)
from tournaments.services.live import live_clocks_enforce, live_match_record_if_over, live_move
from tournaments.services.live_bots import live_bots_play
from tournaments.services.transcripts import transcript_confirm, transcript_submit
from tournaments.swiss_standings import no_shows, swiss_tiebreaks
from tournaments.swiss_tiebreaks import Result, tiebreaks

pytestmark = pytest.mark.django_db


def swiss(game: str = "war", bots: int = 8, people: int = 0, **settings: Any) -> tuple[Competition, Any]:
    """A Swiss (or the ``format`` in ``settings``) created and entered through the API; the organiser's client."""
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    organiser = client_for(membership.player.user)
    body = {"club": membership.club.pk, "name": "Swiss", "game": game, "format": "swiss", **settings}
    created = organiser.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    competition_id = created.json()["id"]
    for _ in range(bots):
        version = BotVersionFactory(bot=BotFactory(owner=membership.player, game=game))
        joined = organiser.post(f"/api/tournaments/{competition_id}/entrants/", {"bot_version": version.pk})
        assert joined.status_code == 201, joined.json()
    for _ in range(people):
        player = PlayerFactory()
        MembershipFactory(club=membership.club, player=player)
        assert organiser.post(f"/api/tournaments/{competition_id}/entrants/", {"player": player.pk}).status_code == 201
    return Competition.objects.get(pk=competition_id), organiser


def tables_by_round(competition: Competition) -> dict[int, list[tuple[int, ...]]]:
    tables: dict[int, list[tuple[int, ...]]] = {}
    for match in Match.objects.filter(competition=competition).exclude(status=Match.Status.CANCELLED):
        seats = MatchParticipant.objects.filter(match=match).order_by("seat").values_list("entrant_id", flat=True)
        tables.setdefault(match.round.number, []).append(tuple(seats))
    return tables


def start_and_play(competition: Competition, organiser: Any, capture: Any) -> None:
    with capture(execute=True):
        started = organiser.post(f"/api/tournaments/{competition.pk}/start/", {}, format="json")
    assert started.status_code == 200, started.json()


def test_a_swiss_of_eight_plays_three_rounds_without_rematches_and_finishes(
    django_capture_on_commit_callbacks: Any,
) -> None:
    competition, organiser = swiss(bots=8)
    start_and_play(competition, organiser, django_capture_on_commit_callbacks)
    competition.refresh_from_db()
    assert setting(competition, "round_count") == 3  # ceil(log2 8)
    assert competition.status == Competition.Status.FINISHED
    rounds = tables_by_round(competition)
    assert sorted(rounds) == [1, 2, 3]
    entrants = set(competition.entrants.values_list("id", flat=True))
    met: Counter[frozenset[int]] = Counter()
    for tables in rounds.values():
        seated = [e for table in tables for e in table]
        assert sorted(seated) == sorted(entrants)  # everyone plays once a round
        met.update(frozenset(pair) for table in tables for pair in combinations(table, 2))
    assert max(met.values()) == 1  # no rematch
    assert not Match.objects.filter(competition=competition).exclude(status=Match.Status.DONE).exists()


def test_round_two_pairs_winners_with_winners(django_capture_on_commit_callbacks: Any) -> None:
    competition, organiser = swiss(bots=8, round_count=2)
    start_and_play(competition, organiser, django_capture_on_commit_callbacks)
    rounds = tables_by_round(competition)
    first_winners = set(
        MatchParticipant.objects.filter(match__round__number=1, match__competition=competition, rank=1).values_list(
            "entrant_id", flat=True
        )
    )
    if len(first_winners) == 4:  # no drawn match in round one
        for table in rounds[2]:
            assert (table[0] in first_winners) == (table[1] in first_winners)


@pytest.mark.parametrize(("bye_points", "points"), [("win", Fraction(1)), ("draw", Fraction(1, 2)), ("none", 0)])
def test_an_odd_swiss_gives_one_bye_a_round_never_twice_to_one_entrant_scored_as_set(
    bye_points: str, points: Fraction, django_capture_on_commit_callbacks: Any
) -> None:
    competition, organiser = swiss(bots=7, bye_points=bye_points)
    start_and_play(competition, organiser, django_capture_on_commit_callbacks)
    competition.refresh_from_db()
    assert setting(competition, "round_count") == 3 and competition.status == Competition.Status.FINISHED
    entrants = set(competition.entrants.values_list("id", flat=True))
    byes = []
    for tables in tables_by_round(competition).values():
        (left_out,) = entrants - {e for table in tables for e in table}
        byes.append(left_out)
    assert len(set(byes)) == 3  # a different entrant each round
    per_point = units_per_point(2)
    for standing in Standing.objects.filter(competition=competition):
        won = MatchParticipant.objects.filter(entrant=standing.entrant, rank=1).count()
        drawn = standing.drawn
        expected = won + Fraction(drawn, 2) + (points if standing.entrant_id in byes else 0)
        assert Fraction(standing.match_units, per_point) == expected


def test_a_multiplayer_swiss_plays_pods_of_the_game_s_size(django_capture_on_commit_callbacks: Any) -> None:
    competition, organiser = swiss(game="punk", bots=7, players_per_match=3, round_count=2)
    start_and_play(competition, organiser, django_capture_on_commit_callbacks)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    for tables in tables_by_round(competition).values():
        assert [len(table) for table in tables] == [3, 3]  # and one bye
    assert Round.objects.filter(competition=competition).count() == 2


def test_people_play_their_swiss_rounds_at_live_tables_and_the_next_round_waits_for_them(
    django_capture_on_commit_callbacks: Any,
) -> None:
    competition, organiser = swiss(game="1923", bots=2, people=2, options={"mode": "set"}, round_count=2)
    start_and_play(competition, organiser, django_capture_on_commit_callbacks)
    people = {e.pk: e.player for e in Entrant.objects.filter(competition=competition, player__isnull=False)}
    for number in (1, 2):
        live = list(Match.objects.filter(competition=competition, round__number=number, status=Match.Status.LIVE))
        assert live, "each round seats both people, so each round has a match at a live table"
        for match in live:
            # The next round is not paired while a person's match of this one is still at its table.
            assert not Round.objects.filter(competition=competition, number=number + 1).exists()
            seats = {p.seat: people[p.entrant_id] for p in match.participants.all() if p.entrant_id in people}
            with django_capture_on_commit_callbacks(execute=True):
                play_seats(match, seats)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    assert not Match.objects.filter(competition=competition).exclude(status=Match.Status.DONE).exists()


def play_seats(match: Match, seats: dict[int, Any]) -> None:
    """The people in ``seats`` move at random until the match is over (the bots' seats are the workers')."""
    rng = random.Random(match.pk)
    moves = 0
    while Match.objects.get(pk=match.pk).status == Match.Status.LIVE:
        acted = False
        for seat, player in seats.items():
            view = live_table(snapshot=table_snapshot(match.pk), viewer=Viewer(seat))
            if view["legal_actions"]:
                live_move(
                    match_id=match.pk,
                    player=player,
                    action=rng.choice(view["legal_actions"]),
                    version=view["version"],
                    client_move_id=f"m{moves}",
                )
                moves += 1
                acted = True
        if not acted:
            # A bot's turn: what the worker's task would do.
            assert live_bots_play(match_id=match.pk) or live_match_record_if_over(match_id=match.pk), "nobody to move"


def test_round_count_belongs_to_a_swiss_and_bye_points_to_its_choices() -> None:
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    organiser = client_for(membership.player.user)
    base = {"club": membership.club.pk, "name": "Cup", "game": "war"}
    wrong = organiser.post("/api/tournaments/", {**base, "round_count": 3}, format="json")
    assert wrong.status_code == 400
    assert list(wrong.json()) == ["round_count"] and "has no setting 'round_count'" in wrong.json()["round_count"][0]
    bad = organiser.post("/api/tournaments/", {**base, "format": "swiss", "bye_points": "half"}, format="json")
    assert bad.status_code == 400 and "bye_points" in bad.json()
    shown = organiser.post("/api/tournaments/", {**base, "format": "swiss", "round_count": 5}, format="json").json()
    assert (shown["format"], shown["round_count"], shown["bye_points"]) == ("swiss", 5, "win")


def test_the_standings_rank_by_points_then_the_swiss_tiebreaks_in_the_api_and_the_admin(
    django_capture_on_commit_callbacks: Any, admin_client: Any
) -> None:
    competition, organiser = swiss(bots=7, round_count=3)
    start_and_play(competition, organiser, django_capture_on_commit_callbacks)
    rows = organiser.get(f"/api/tournaments/{competition.pk}/standings/").json()["results"]
    fields = [t["field"] for t in rows[0]["tiebreaks"]]
    assert fields[:4] == ["match_points", "buchholz_cut1", "buchholz", "sonneborn_berger"]
    keys = [
        tuple(Fraction(t["exact"]) * (1 if t["order"] == "higher_first" else -1) for t in r["tiebreaks"]) for r in rows
    ]
    assert keys == sorted(keys, reverse=True)
    # Buchholz is the sum of the opponents' scores, plus for a bye a dummy opponent's (FIDE C.07, 16.4).
    points = {r["entrant"]["id"]: Fraction(r["match_points_exact"]) for r in rows}
    rounds = organiser.get(f"/api/tournaments/{competition.pk}/rounds/").json()["results"]
    had_bye = {entrant for round_ in rounds for entrant in round_["byes"]}
    assert len(had_bye) == 3
    for row in rows:
        met = MatchParticipant.objects.filter(
            match__participants__entrant_id=row["entrant"]["id"], match__competition=competition
        ).exclude(entrant_id=row["entrant"]["id"])
        opponents = sum((points[p.entrant_id] for p in met), Fraction(0))
        buchholz = Fraction(row["tiebreaks"][2]["exact"])
        assert buchholz >= opponents if row["entrant"]["id"] in had_bye else buchholz == opponents
        low, high = row["score_interval"]
        assert 0 <= low <= row["score_rate"] <= high <= 1
    page = admin_client.get(f"/admin/tournaments/competition/{competition.pk}/change/")
    assert page.status_code == 200
    assert b"Buchholz cut 1" in page.content and b"Sonneborn-Berger" in page.content


def test_a_person_who_never_comes_to_the_table_is_a_forfeit_in_the_tiebreaks(
    django_capture_on_commit_callbacks: Any,
) -> None:
    competition, organiser = swiss(game="1923", bots=2, people=2, options={"mode": "set"}, round_count=1)
    start_and_play(competition, organiser, django_capture_on_commit_callbacks)
    people = list(Entrant.objects.filter(competition=competition, player__isnull=False).order_by("id"))
    came, absent = people
    match_of = {
        p.entrant_id: p.match
        for p in MatchParticipant.objects.filter(match__competition=competition, entrant__in=people)
    }
    seats = {p.seat: came.player for p in match_of[came.pk].participants.all() if p.entrant_id == came.pk}
    with django_capture_on_commit_callbacks(execute=True):
        play_seats(match_of[came.pk], seats)
        # The other person never moves: past the clock the referee forfeits each game it waits on them.
        while Match.objects.get(pk=match_of[absent.pk].pk).status == Match.Status.LIVE:
            match = match_of[absent.pk]
            if not live_bots_play(match_id=match.pk):
                live_clocks_enforce(now=timezone.now() + timedelta(hours=2))
    assert no_shows(competition) == {(match_of[absent.pk].pk, absent.pk)}
    opponent = next(p.entrant_id for p in match_of[absent.pk].participants.all() if p.entrant_id != absent.pk)
    figures = swiss_tiebreaks(competition)
    per_point = units_per_point(2)
    results = []
    for participant in MatchParticipant.objects.filter(match__competition=competition):
        others = tuple(
            p.entrant_id for p in participant.match.participants.all() if p.entrant_id != participant.entrant_id
        )
        results.append(
            Result(
                round=1,
                entrant=participant.entrant_id,
                opponents=others,
                points=Fraction(participant.match_units, per_point),
                forfeit_loss=participant.entrant_id == absent.pk,
                forfeit_win=participant.entrant_id == opponent,
            )
        )
    assert figures == tiebreaks(results, bye_points=Fraction(1), rounds=1)
    # Counted as a game played, the no-show would give its opponent a different Buchholz.
    as_played = tiebreaks(
        [Result(r.round, r.entrant, r.opponents, r.points) for r in results], bye_points=Fraction(1), rounds=1
    )
    assert figures[opponent] != as_played[opponent] or figures[absent.pk] != as_played[absent.pk]


def test_a_person_who_played_with_real_cards_and_lost_on_time_is_not_a_no_show(
    django_capture_on_commit_callbacks: Any,
) -> None:
    match, players = transcript_match("1923", games=1, options={"mode": "set"})
    Competition.objects.filter(pk=match.competition_id).update(
        format="swiss", settings={"round_count": 1, "bye_points": "win"}
    )
    raw = table_record(match, 0, seed=5)
    # The table's game up to a few decisions, then the clock at the club table ran out for one who had decided.
    game = LiveGame.start("1923", players=raw["players"], options=raw["options"], seed=raw["seed"], deal=raw["deal"])
    acted: set[int] = set()
    for number, step in enumerate(raw["actions"]):
        seats = game.to_act()
        if number >= 2 and acted & set(seats):
            break
        for seat, action in zip(seats, step, strict=True):
            game.submit(seat, action)
            acted.add(seat)
    loser = next(seat for seat in game.to_act() if seat in acted)
    game.forfeit_seat(loser, "timeout", "the clock at the club table ran out")
    timed_out = game.record().to_dict()
    record = {**raw, "actions": timed_out["actions"], "forfeit": timed_out["forfeit"], "result": timed_out["result"]}
    with django_capture_on_commit_callbacks(execute=True):
        transcript = transcript_submit(match=match, player=players[0], game_number=0, record=record)
    with django_capture_on_commit_callbacks(execute=True):
        transcript_confirm(transcript=Transcript.objects.get(pk=transcript.pk), player=players[1])
    assert Match.objects.get(pk=match.pk).status == Match.Status.DONE
    assert Game.objects.get(match=match).result["forfeit"]["cause"] == "timeout"
    assert no_shows(match.competition) == set()
