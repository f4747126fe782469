"""Recording a played match: games, sets, participants, standings and ratings, in one transaction."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from engine.games import get_game
from engine.games.profile import LeagueProfile, Row
from engine.match import GamePlayed, MatchResult
from league.ratings import Skill, rate
from league.standings import FIGURE_COLUMNS
from tournaments import notices
from tournaments.formats.registry import get_format
from tournaments.models import (
    Competition,
    Entrant,
    Match,
    MatchParticipant,
    MatchSet,
    Round,
    Standing,
    units_per_point,
)
from tournaments.services.game_rows import GameEncoder, insert_games
from tournaments.services.scheduling import next_round_release_if_done
from tournaments.services.statements import SqlCursor, pipelined, sql_cursor
from tournaments.standings_cache import publish_results_version

log = logging.getLogger(__name__)

#: A match can be recorded from these states: claimed by a worker, retried after an error, or played by people.
RECORDABLE = (Match.Status.RUNNING, Match.Status.PENDING, Match.Status.ERROR, Match.Status.LIVE)


def _decimal(value: Fraction) -> Decimal:
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.000001"))


class _Competition(NamedTuple):
    """What recording needs of the competition that never changes once it has started: read without a lock."""

    id: int
    game: str
    format: str
    players_per_match: int


class _Locked(NamedTuple):
    """What recording needs of the competition that does change: read under its lock."""

    status: str
    results_version: int


class _Seat(NamedTuple):
    participant_id: int
    entrant_id: int
    #: The person playing the seat; None for a bot.
    player_id: int | None


class _NotRecordable(Exception):
    """The match was recorded, cancelled or reset meanwhile: everything this recording wrote is rolled back."""


def match_record_result(*, match: Match, result: MatchResult) -> Match:
    """Store a played match once; a second call for the same match changes nothing.

    Returns ``match`` with its status, error and finish time as they now stand.

    Every match of a competition records under the competition row's lock, so
    standings increments and the ratings cursor never interleave. The lock is
    held only for the short statements at the end: the games, most of the
    writing, go in before it is taken. A second recording of the same match
    then meets the first one's game rows in the unique index, waits for it, and
    fails once it commits (caught below); one for a match cancelled or reset
    meanwhile finds the match's conditional update matching nothing, and
    everything it wrote is rolled back.

    The fixed statements are plain SQL, prepared once per connection
    (services/statements.py), and those after the lock go out in one pipeline:
    every round trip made under the lock is a wait for the other workers
    recording in the same competition.
    """
    try:
        return _record(match, result)
    except ResultsUnreadable as exc:
        # Nothing was written. Not a retry's to fix: the same results would fail the same way.
        Match.objects.filter(pk=match.pk, status__in=RECORDABLE).update(
            status=Match.Status.ERROR, error=str(exc)[:4000], finished_at=timezone.now()
        )
        match.refresh_from_db()
        return match
    except _NotRecordable:
        match.refresh_from_db()
        return match
    except IntegrityError:
        match.refresh_from_db()
        if match.status in RECORDABLE:
            raise  # not a second recording: a real error
        return match


def _record(match: Match, result: MatchResult) -> Match:
    finished_at = timezone.now()
    # auto_now is the ORM's: the plain UPDATEs below set the standings' update time themselves.
    at = connection.ops.adapt_datetimefield_value(finished_at)
    with transaction.atomic(), sql_cursor() as cursor, sql_cursor() as claim:
        competition, seats = _competition_and_seats(cursor, match.pk)
        if len(seats) != len(result.ranks):
            raise ValueError(f"match {match.pk} has {len(seats)} participants, result has {len(result.ranks)}")
        reading = _read_with_profile(competition.game, len(seats), result)
        _create_games(match, [seat.entrant_id for seat in seats], result, reading.breakdowns)
        locked = _lock_competition(cursor, competition.id)
        version = locked.results_version + 1
        with pipelined():
            # The match's own lock is taken here, and a match no longer recordable matches nothing.
            claim.execute(
                f"UPDATE {Match._meta.db_table} SET status = %s, error = %s, finished_at = %s "
                "WHERE id = %s AND status IN (%s, %s, %s, %s) RETURNING id",
                [Match.Status.DONE, "", at, match.pk, *RECORDABLE],
            )
            match_units = _update_participants(cursor, competition, seats, result)
            _update_standings(cursor, seats, match_units, result, reading.sums, at)
            # The competition row is locked, so this read-then-write cannot race.
            cursor.execute(
                f"UPDATE {Competition._meta.db_table} SET results_version = %s WHERE id = %s",
                [version, competition.id],
            )
            complete = _advance_ratings(cursor, competition, at)
            # Answered by now: the ratings' read waited for everything sent before it.
            if claim.fetchone() is None:
                raise _NotRecordable
        format = get_format(competition.format)
        # Under the competition's lock, as every change the format makes is (a challenge ladder's places).
        format.match_recorded(
            competition.id, match.pk, {seat.entrant_id: rank for seat, rank in zip(seats, result.ranks, strict=True)}
        )
        # A round-by-round format's next round (a Swiss pairs it now): while it has one, it is not complete.
        # A match a worker was still playing when its competition was cancelled records, and pairs nothing.
        pairs_next = format.pairs_round_by_round and locked.status == Competition.Status.RUNNING
        released = next_round_release_if_done(round_=match.round) if pairs_next else 0
        # A ladder runs until it is cancelled (or a rating ladder reaches its last round, which its tick decides).
        finished = complete and not released and format.ends_by_itself
        if finished and locked.status == Competition.Status.RUNNING:
            Competition.objects.filter(pk=competition.id).update(
                status=Competition.Status.FINISHED, finished_at=timezone.now()
            )
            format.finished(competition.id)
            notices.competition_finished(competition.id)
        # A bots' match tells no one (tournaments/notices.py): it costs no query here.
        if any(seat.player_id is not None for seat in seats):
            notices.match_recorded(match.pk)
        transaction.on_commit(lambda: publish_results_version(competition.id, version))
    match.status, match.error, match.finished_at = Match.Status.DONE, "", finished_at
    return match


def _lock_clause() -> str:
    """The competition's row lock: it serializes recordings of the competition, and cancel and start
    (which lock it FOR UPDATE) with them.

    NO KEY UPDATE where the database has it, so that it does not block the foreign-key checks
    (KEY SHARE) that another transaction's update of one of the competition's matches makes at
    commit: the reaper and a retry update a match they then re-send, and a recorder holding the
    competition while it waits for that match row would otherwise deadlock with them.
    """
    if connection.features.has_select_for_no_key_update:
        return " FOR NO KEY UPDATE"
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def _competition_and_seats(cursor: SqlCursor, match_id: int) -> tuple[_Competition, list[_Seat]]:
    """The competition's fixed fields and the match's seats in order; neither changes once the match exists."""
    cursor.execute(
        f"SELECT c.id, c.game, c.format, c.players_per_match, p.id, p.entrant_id, e.player_id "
        f"FROM {Match._meta.db_table} m "
        f"JOIN {Competition._meta.db_table} c ON c.id = m.competition_id "
        f"LEFT JOIN {MatchParticipant._meta.db_table} p ON p.match_id = m.id "
        f"LEFT JOIN {Entrant._meta.db_table} e ON e.id = p.entrant_id WHERE m.id = %s ORDER BY p.seat",
        [match_id],
    )
    rows = cursor.fetchall()
    if not rows:
        raise Match.DoesNotExist(f"match {match_id} does not exist")
    competition = _Competition(*rows[0][:4])
    return competition, [
        _Seat(participant, entrant, player) for *_, participant, entrant, player in rows if participant is not None
    ]


def _lock_competition(cursor: SqlCursor, competition_id: int) -> _Locked:
    cursor.execute(
        f"SELECT status, results_version FROM {Competition._meta.db_table} WHERE id = %s{_lock_clause()}",
        [competition_id],
    )
    row = cursor.fetchone()
    if row is None:
        raise Competition.DoesNotExist(f"competition {competition_id} does not exist")
    return _Locked(*row)


class ResultsUnreadable(Exception):
    """The game's league profile failed on this match's results: the match goes in error with the cause."""


class _ProfileReading(NamedTuple):
    """What the game's league profile makes of a match's results, worked out before anything is written."""

    #: Per participant: games won, then each figure slot (FIGURE_COLUMNS).
    sums: list[list[int]]
    #: Per game number, its breakdown's rows; None for a game without a breakdown.
    breakdowns: dict[int, list[Row]] | None


def _read_with_profile(game: str, participants: int, result: MatchResult) -> _ProfileReading:
    """The profile's figures and breakdown of every game, or ResultsUnreadable saying why not.

    A profile is a game's code, possibly from outside the engine (ENGINE_GAMES): it runs here,
    before the games are written and the competition is locked, so a failure costs nothing.
    """
    try:
        profile = get_game(game).PROFILE
        breakdown = profile.breakdown
        return _ProfileReading(
            sums=_game_sums(profile, participants, result.games),
            breakdowns=None
            if breakdown is None
            else {played.number: breakdown.rows(played.record.result or {}) for played in result.games},
        )
    except Exception as exc:
        log.exception("the league profile of %s failed on a match's results", game)
        raise ResultsUnreadable(
            f"the league profile of {game} could not read this match's results: {type(exc).__name__}: {exc}"
        ) from exc


def _create_games(
    match: Match, entrant_of: list[int], result: MatchResult, breakdowns: dict[int, list[Row]] | None
) -> None:
    # Game ids cost a read of every row just written: only a breakdown's rows need them.
    ids = insert_games(
        match_id=match.pk, encoder=GameEncoder(entrant_of), games=result.games, return_ids=breakdowns is not None
    )
    if breakdowns is not None:
        _create_breakdown(breakdowns, match, entrant_of, result, ids)


def _create_breakdown(
    breakdowns: dict[int, list[Row]],
    match: Match,
    entrant_of: list[int],
    result: MatchResult,
    game_ids: dict[int, int],
) -> None:
    """Each game's sets or race rounds, keyed by entrant so a table reads the same whatever the seating."""
    rows: list[MatchSet] = []
    for played in result.games:
        game_id = game_ids[played.number]
        people = [(seat, entrant_of[who]) for seat, who in enumerate(played.seating) if who is not None]
        for number, row in enumerate(breakdowns[played.number], start=1):
            scores = {str(entrant): row.cells[seat] for seat, entrant in people}
            rows.append(MatchSet(match=match, game_id=game_id, number=number, scores=scores, play_on=row.marked))
    MatchSet.objects.bulk_create(rows, batch_size=1000)


def _update_participants(
    cursor: SqlCursor, competition: _Competition, seats: list[_Seat], result: MatchResult
) -> list[int]:
    """Score, rank and match points of each seat; the match points (in units) by seat."""
    per_point = units_per_point(competition.players_per_match)
    match_units = [int(points * per_point) for points in result.points]
    # A prepared statement per row, not bulk_update's CASE expressions: compiling those cost
    # more than the update itself.
    cursor.executemany(
        f"UPDATE {MatchParticipant._meta.db_table} SET score = %s, rank = %s, match_units = %s WHERE id = %s",
        [
            (_decimal(result.scores[index]), result.ranks[index], match_units[index], seat.participant_id)
            for index, seat in enumerate(seats)
        ],
    )
    return match_units


#: Standings columns a recorded match adds to, in the order _standing_deltas gives them.
_ADDED = ("played", "won", "drawn", "lost", "match_units", "games_played", "games_won", *FIGURE_COLUMNS)


def _update_standings(
    cursor: SqlCursor,
    seats: list[_Seat],
    match_units: list[int],
    result: MatchResult,
    sums: list[list[int]],
    at: object,
) -> None:
    """Add the match to each participant's row: one prepared UPDATE per row, each an increment.

    Plain SQL rather than F() expressions: compiling eleven expressions per row cost more
    than the games of a short match. Increments stay correct whatever else touched the row.
    """
    deltas = _standing_deltas(seats, match_units, result, sums)
    assignments = ", ".join(f"{column} = {column} + %s" for column in _ADDED)
    cursor.executemany(
        f"UPDATE {Standing._meta.db_table} SET {assignments}, updated_at = %s WHERE entrant_id = %s",
        [[*delta[:-1], at, delta[-1]] for delta in deltas],
    )


def _standing_deltas(
    seats: list[_Seat], match_units: list[int], result: MatchResult, sums: list[list[int]]
) -> list[list[int]]:
    first = [i for i, rank in enumerate(result.ranks) if rank == 1]
    deltas = []
    for index, seat in enumerate(seats):
        won = index in first and len(first) == 1
        drawn = index in first and len(first) > 1
        outcome = [1, int(won), int(drawn), int(not won and not drawn), match_units[index]]
        deltas.append([*outcome, len(result.games), *sums[index], seat.entrant_id])
    return deltas


def _game_sums(profile: LeagueProfile, participants: int, games: Sequence[GamePlayed]) -> list[list[int]]:
    """Per participant: games won, then each figure slot (FIGURE_COLUMNS), summed over the match's games.

    The same sums as the profile's ``figures_of_game`` gives (a test holds them to it), in one pass:
    a figure counted in won games only is asked of the winner alone, so a game whose figures
    are all of that kind (War) costs one lookup a game, not a call per seat.
    """
    winners_figures, seats_figures = profile.winners_figures, profile.seats_figures
    sums = [[0] * (1 + len(FIGURE_COLUMNS)) for _ in range(participants)]
    for played in games:
        game_result = played.record.result or {}
        seating = played.seating
        winner = game_result.get("winner")
        if winner is not None and (who := seating[winner]) is not None:
            row = sums[who]
            row[0] += 1
            for index, of_game in winners_figures:
                row[1 + index] += of_game(game_result, winner)
        if not seats_figures:
            continue
        for seat, who in enumerate(seating):
            if who is not None:
                row = sums[who]
                for index, of_game in seats_figures:
                    row[1 + index] += of_game(game_result, seat)
    return sums


def _advance_ratings(cursor: SqlCursor, competition: _Competition, at: object) -> bool:
    """Rate every recorded match not yet rated, in (round, match id) order, up to the first unrecorded one.

    Ratings are then a pure function of the results: the order matches finish in,
    retries and reruns cannot change them (DESIGN.md, "Ratings").

    Whether no match is left to play (pending, running or in error): every such match is
    unrated, so the same read tells. The match just recorded is unrated too, so a complete
    competition always reads at least that one.
    """
    done = Match.Status.DONE
    cursor.execute(_READY_TO_RATE, [done, done, competition.id, False, Match.Status.CANCELLED])
    # Match id, entrant id, rank, mu, sigma, and how many matches are still open: as _READY_TO_RATE selects them.
    rows: list[tuple[int, int, int | None, float, float, int]] = cursor.fetchall()
    if not rows:
        return False
    seats: dict[int, list[tuple[int, int]]] = {}
    skills: dict[int, Skill] = {}
    for match_id, entrant_id, rank, mu, sigma, _ in rows:
        seats.setdefault(match_id, []).append((entrant_id, rank or 0))
        # The ratings as they stand before these matches (the same for every row of an entrant).
        skills[entrant_id] = Skill(mu, sigma)
    history: list[tuple[float, float, int, int]] = []
    for match_id, table in seats.items():  # in (round, match id) order, as read
        rated = rate([skills[entrant] for entrant, _ in table], [rank for _, rank in table])
        skills.update({entrant: skill for (entrant, _), skill in zip(table, rated, strict=True)})
        history += [
            (skill.mu, skill.sigma, match_id, entrant) for (entrant, _), skill in zip(table, rated, strict=True)
        ]
    cursor.executemany(
        f"UPDATE {MatchParticipant._meta.db_table} SET mu_after = %s, sigma_after = %s "
        "WHERE match_id = %s AND entrant_id = %s",
        history,
    )
    cursor.executemany(
        f"UPDATE {Standing._meta.db_table} SET mu = %s, sigma = %s, ordinal = %s, updated_at = %s "
        "WHERE entrant_id = %s",
        [(skill.mu, skill.sigma, skill.ordinal, at, entrant) for entrant, skill in sorted(skills.items())],
    )
    listed = ", ".join(["%s"] * len(seats))
    cursor.execute(f"UPDATE {Match._meta.db_table} SET rated = %s WHERE id IN ({listed})", [True, *seats])
    return rows[0][5] == 0


#: Each seat of the matches ready to rate, with its entrant's rating, in rating order: the unrated matches
#: up to the first one not done (``waiting`` counts the matches not done so far), and in the last column
#: how many unrated matches are not done in all.
_READY_TO_RATE = f"""
SELECT q.id, p.entrant_id, p.rank, s.mu, s.sigma, q.open
FROM (
    SELECT m.id, r.number,
        SUM(CASE WHEN m.status = %s THEN 0 ELSE 1 END) OVER (ORDER BY r.number, m.id) AS waiting,
        SUM(CASE WHEN m.status = %s THEN 0 ELSE 1 END) OVER () AS open
    FROM {Match._meta.db_table} m JOIN {Round._meta.db_table} r ON r.id = m.round_id
    WHERE m.competition_id = %s AND m.rated = %s AND m.status <> %s
) q
JOIN {MatchParticipant._meta.db_table} p ON p.match_id = q.id
JOIN {Standing._meta.db_table} s ON s.entrant_id = p.entrant_id
WHERE q.waiting = 0
ORDER BY q.number, q.id, p.seat
"""
