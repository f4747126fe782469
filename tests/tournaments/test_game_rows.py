"""Game rows hold exactly the text the engine's record encodes to, however fast they are written."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from django.db import connection
from django.db.models import ProtectedError

from engine.agents import Agent
from engine.bots import make_bot
from engine.games import get_game, seats_for
from engine.match import MatchResult, play_match
from engine.record import Record, without_bot_text
from engine.result import Forfeit
from league.standings import FIGURE_COLUMNS
from tests.factories import CompetitionFactory, EntrantFactory, full_options
from tests.tournaments.helpers import started
from tournaments.fields import EncodedJSON, JSONTextField, encode_compact
from tournaments.models import Game, Match
from tournaments.services import game_rows
from tournaments.services.game_rows import GameEncoder
from tournaments.services.results import _game_sums, match_record_result

#: Text COPY's format escapes, JSON escapes, or both: none of it may come back changed.
AWKWARD = 'tab\there, "quoted", back\\slash, new\nline, \\N, \\., é, ☃, \u2028'


def played(game: str, participants: int, games: int = 4, seed: int = 7) -> MatchResult:
    """A real match of random bots, built the way the worker builds it."""
    engine_game = get_game(game)
    options = full_options(game, participants)
    seats = seats_for(engine_game, participants, options)

    def agents(number: int, seating: Sequence[int | None], game_seed: int) -> list[Agent | None]:
        if not getattr(engine_game, "DECISIONS", True):
            return [None] * len(seating)
        return [
            None
            if who is None
            else make_bot("random", game=game, seat=seat, players=seats, options=options, seed=game_seed)
            for seat, who in enumerate(seating)
        ]

    return play_match(
        game, participants=participants, agents_for_game=agents, seats=seats, games=games, seed=seed, options=options
    )


def awkward(result: MatchResult) -> MatchResult:
    """The same match with a forfeit and a deal full of awkward text in its first game's record."""
    record = result.games[0].record
    record.forfeit = Forfeit(seat=0, cause="crash", move=0, detail=AWKWARD)
    record.deal = {"note": AWKWARD, "cards": ["AS", "TH"]}
    return result


CASES = [("war", 2), ("1923", 2), ("1923", 3), ("banter", 2), ("punk", 3)]


@pytest.mark.parametrize(("game", "participants"), CASES)
def test_each_row_encodes_as_the_whole_record_would(game: str, participants: int) -> None:
    entrant_of = [101 + index for index in range(participants)]
    for result in (played(game, participants), awkward(played(game, participants, seed=8))):
        encoder = GameEncoder(entrant_of)
        for game_played in result.games:
            row = encoder.encode(game_played)
            record = without_bot_text(game_played.record)
            assert row.record == encode_compact(record.to_dict())
            assert row.result == encode_compact(record.result or {})
            assert row.options == encode_compact(record.options)
            assert row.seating == encode_compact([None if w is None else entrant_of[w] for w in game_played.seating])
            winner = (record.result or {}).get("winner")
            assert row.winner_id == (None if winner is None else entrant_of[game_played.seating[winner]])
            assert (row.number, row.seed, row.deal) == (game_played.number, record.seed, record.deal)


@pytest.mark.parametrize(("game", "participants"), CASES)
def test_a_record_with_a_salt_is_stored_as_the_record_writes_it(game: str, participants: int) -> None:
    # A live match's games reveal its salt at the end (engine/fairness.py); the fast writer keeps it.
    result = played(game, participants)
    for index, game_played in enumerate(result.games):
        game_played.record.salt = AWKWARD if index == 0 else f"{index:032x}"
    encoder = GameEncoder(list(range(1, participants + 1)))
    for game_played in result.games:
        row = encoder.encode(game_played)
        record = game_played.record
        assert row.record == encode_compact(record.to_dict())
        assert json.loads(row.record) == json.loads(record.to_json())
        assert Record.from_json(row.record).to_json() == record.to_json()
        assert json.loads(row.record)["salt"] == record.salt
        # COPY's line holds the same text, escaped for COPY where it must be.
        line = encoder.copy_line(game_played, "9\t").split("\t")
        assert line[6].replace("\\\\", "\\") == row.record


def test_a_record_the_template_does_not_fit_is_encoded_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game_rows, "_TEMPLATE_FITS", False)
    result = awkward(played("war", 2))
    encoder = GameEncoder([1, 2])
    assert [encoder.encode(g).record for g in result.games] == [
        encode_compact(without_bot_text(g.record).to_dict()) for g in result.games
    ]


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2.5, None, True, False], "b": {"c": "é☃", "d": AWKWARD}},
        [[]],
        "plain",
        AWKWARD,
        12345678901234567890,
        -0.0,
        1e300,
        {1: "int key", None: "null key"},
        [],
        {},
        None,
    ],
)
def test_the_compact_encoding_is_json_s_own(value: Any) -> None:
    assert encode_compact(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_text_already_encoded_is_stored_as_it_is() -> None:
    field = JSONTextField()
    assert field.get_prep_value(EncodedJSON('{"a":1}')) == '{"a":1}'
    assert field.get_prep_value('{"a":1}') == '"{\\"a\\":1}"'  # a plain string is a JSON string
    assert field.get_prep_value({"a": 1}) == '{"a":1}'


def test_war_sums_count_games_won_and_the_rounds_of_the_games_each_won() -> None:
    result = played("war", 2, games=60)
    # RULES.md War: the one figure of its own is the rounds of the games a player won (fewer first).
    expected = [[0] * (1 + len(FIGURE_COLUMNS)) for _ in range(2)]
    for game_played in result.games:
        game_result = game_played.record.result or {}
        winner = game_result.get("winner")
        if winner is not None:
            who = game_played.seating[winner]
            assert who is not None
            expected[who][0] += 1
            expected[who][1] += game_result["rounds"]
    assert _game_sums(get_game("war").PROFILE, 2, result.games) == expected
    assert expected[0][0] + expected[1][0] > 0
    assert expected[0][1] + expected[1][1] > 0


@pytest.mark.parametrize(("game", "participants"), [("war", 2), ("1923", 3), ("banter", 2), ("punk", 4)])
def test_the_one_pass_sums_are_each_game_s_figures_summed(game: str, participants: int) -> None:
    """Recording's sums agree with the profile's own figures_of_game, game by game and seat by seat."""
    result = played(game, participants, games=12)
    profile = get_game(game).PROFILE
    expected = [[0] * (1 + len(FIGURE_COLUMNS)) for _ in range(participants)]
    for game_played in result.games:
        game_result = game_played.record.result or {}
        for seat, who in enumerate(game_played.seating):
            if who is not None:
                expected[who][0] += game_result.get("winner") == seat
                for index, value in enumerate(profile.figures_of_game(game_result, seat), start=1):
                    expected[who][index] += value
    assert _game_sums(profile, participants, result.games) == expected
    assert any(any(row[1:]) for row in expected)


@pytest.mark.django_db
def test_recorded_rows_read_back_exactly_awkward_text_and_all() -> None:
    competition = CompetitionFactory(game="war", games_per_match=4)
    entrants = [EntrantFactory(competition=competition) for _ in range(2)]
    match = started(competition).matches.get()
    seats = list(match.participants.order_by("seat").values_list("entrant_id", flat=True))
    result = awkward(played("war", 2))
    recorded = match_record_result(match=match, result=result)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.error, stored.finished_at) == ("done", "", recorded.finished_at)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT number, seating, seed, options, record, result, winner_id FROM tournaments_game "
            "WHERE match_id = %s ORDER BY number",
            [match.pk],
        )
        rows = cursor.fetchall()
    assert len(rows) == len(result.games)
    for (number, seating, seed, options, record, game_result, winner_id), game_played in zip(
        rows, result.games, strict=True
    ):
        expected = without_bot_text(game_played.record)
        assert number == game_played.number
        assert seating == encode_compact([seats[who] for who in game_played.seating if who is not None])
        assert (seed, options) == (expected.seed, encode_compact(expected.options))
        assert record == encode_compact(expected.to_dict())
        assert game_result == encode_compact(expected.result or {})
        winner = (expected.result or {}).get("winner")
        assert winner_id == (None if winner is None else seats[game_played.seating[winner]])
    first = Game.objects.get(match=match, number=0)
    # A forfeit's detail can repeat what a bot sent: only its owner's log keeps it (issue 11, finding 6).
    assert first.record["forfeit"] == {"seat": 0, "cause": "crash", "move": 0}
    assert first.deal == {"note": AWKWARD, "cards": ["AS", "TH"]}
    assert {e.pk for e in entrants} == set(seats)


@pytest.mark.django_db
def test_a_salted_record_reads_back_as_the_record_writes_it() -> None:
    competition = CompetitionFactory(game="war", games_per_match=3)
    for _ in range(2):
        EntrantFactory(competition=competition)
    match = started(competition).matches.get()
    result = played("war", 2, games=3)
    for game_played in result.games:
        game_played.record.salt = AWKWARD
    match_record_result(match=match, result=result)
    stored = {game.number: game.record for game in Game.objects.filter(match=match)}
    for game_played in result.games:
        assert stored[game_played.number]["salt"] == AWKWARD
        assert Record.from_dict(stored[game_played.number]).to_json() == game_played.record.to_json()


@pytest.mark.django_db
def test_recording_a_match_costs_the_same_queries_however_many_games(django_assert_num_queries: Any) -> None:
    counts = []
    for games in (1, 40):
        competition = CompetitionFactory(game="war", games_per_match=games)
        for _ in range(2):
            EntrantFactory(competition=competition)
        match = started(competition).matches.get()
        result = played("war", 2, games=games)
        # A savepoint and its release; the competition locked, the match locked with its seats, the
        # participants' update (one statement for both rows), the standings, the match, the results
        # version, the ratings (one read of the matches ready to rate, which also tells that the
        # competition is complete; the rating history on the participants; the new ratings; the match
        # marked rated) and the finish, with the format's answer to it (one read of the competition: a
        # stage cuts to its knockout, tournaments/formats/stages.py): 14, all after the lock in one
        # pipeline. Before plain SQL and COPY without reading back game ids, it was 17 (without the
        # history). PostgreSQL takes the games in one COPY, which Django does not count; elsewhere they
        # are one INSERT. The competition is finished by its one match: its entrants' people and owners are told
        # (tournaments/notices.py: the competition, its entrants, their channels and addresses in one statement,
        # the rows), 4 more, and its club's webhooks are read (tournaments/club_events.py), 1, once for the
        # competition; a match between bots tells no one, at no cost.
        with django_assert_num_queries(19 if connection.vendor == "postgresql" else 20) as captured:
            match_record_result(match=match, result=result)
        counts.append(len(captured))
    assert counts[0] == counts[1]


@pytest.mark.django_db
def test_an_entrant_who_won_a_game_cannot_be_deleted_without_a_database_constraint() -> None:
    competition = CompetitionFactory(game="war", games_per_match=3)
    for _ in range(2):
        EntrantFactory(competition=competition)
    match = started(competition).matches.get()
    match_record_result(match=match, result=played("war", 2, games=3))
    winner = Game.objects.filter(match=match, winner__isnull=False).select_related("winner").first()
    assert winner is not None and winner.winner is not None
    with pytest.raises(ProtectedError) as refused:
        winner.winner.delete()
    assert any(isinstance(obj, Game) for obj in refused.value.protected_objects)
