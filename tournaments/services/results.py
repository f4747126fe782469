"""Recording a played match: games, sets, participants, standings and ratings, in one transaction."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
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
from tournaments.services.bot_suspension import OWN_FAULT, versions_forfeited
from tournaments.services.game_rows import GameEncoder, MatchGames, insert_games
from tournaments.services.scheduling import next_round_release_if_done
from tournaments.services.statements import SqlCursor, one_of, pipelined, sql_cursor, update_rows
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
    #: The round of the seat's match.
    round_id: int
    #: The bot version playing the seat; None for a person.
    bot_version_id: int | None


def match_record_result(*, match: Match, result: MatchResult) -> Match:
    """Store a played match once; a second call for the same match changes nothing.

    Returns ``match`` with its status, error and finish time as they now stand.
    """
    return matches_record_results([(match, result)])[0]


def matches_record_results(recordings: Sequence[tuple[Match, MatchResult]]) -> list[Match]:
    """Store played matches of one competition in one transaction; each match is recorded once, however
    many times it is played or recorded.

    Returns the matches, in the given order, with their status, error and finish time as they now stand.

    A batch goes in three steps, in the same order for every recording, so two never wait on each other
    in a cycle:

    1. Each match's row is locked, in id order, and kept if it is still recordable. A second recording
       of a match waits here for the first, then finds it done and leaves it out; one for a match
       cancelled or reset meanwhile leaves it out too.
    2. The games of the matches kept go in by one COPY: most of the writing, before the next lock.
    3. The competition's row is locked (every recording of the competition takes it, so standings
       increments and the ratings cursor never interleave) and the short statements follow, in one
       pipeline: each seat's result, each entrant's standings row once for the whole batch, the
       results version, the ratings, applied in the fixed order (DESIGN.md, "Ratings"), and each
       match marked done (and rated, if its turn came) in one update of its row.

    The fixed statements are plain SQL, prepared once per connection (services/statements.py): every
    round trip made under the lock is a wait for the other workers recording in the same competition.
    A match whose results the game's league profile cannot read goes in error with the cause, in the
    same transaction; the others are recorded.
    """
    if not recordings:
        return []
    matches = [match for match, _ in recordings]
    try:
        recorded = _record(recordings)
    except _NotRecordable:
        recorded = {}
    except IntegrityError:
        for match in matches:
            match.refresh_from_db()
        if any(match.status in RECORDABLE for match in matches):
            raise  # not a second recording: a real error
        return matches
    for match in matches:
        if match.pk in recorded:
            match.status, match.error, match.finished_at = Match.Status.DONE, "", recorded[match.pk]
        else:
            match.refresh_from_db()
    return matches


def _record(recordings: Sequence[tuple[Match, MatchResult]]) -> dict[int, datetime]:
    """The matches recorded by this call, with their finish time."""
    finished_at = timezone.now()
    # auto_now is the ORM's: the plain UPDATEs below set the standings' update time themselves.
    at = connection.ops.adapt_datetimefield_value(finished_at)
    results = {match.pk: result for match, result in recordings}
    with transaction.atomic(), sql_cursor() as cursor:
        competition, seats = _competition_and_seats(cursor, sorted(results))
        readings: dict[int, _ProfileReading] = {}
        unreadable: dict[int, str] = {}
        for match_id, result in results.items():
            if len(seats[match_id]) != len(result.ranks):
                raise ValueError(
                    f"match {match_id} has {len(seats[match_id])} participants, result has {len(result.ranks)}"
                )
            try:
                readings[match_id] = _read_with_profile(competition.game, len(seats[match_id]), result)
            except ResultsUnreadable as exc:
                # Not a retry's to fix: the same results would fail the same way.
                unreadable[match_id] = str(exc)[:4000]
        if unreadable:
            cursor.executemany(
                f"UPDATE {Match._meta.db_table} SET status = %s, error = %s, finished_at = %s "
                f"WHERE id = %s AND status IN ({_RECORDABLE_LIST})",
                [(Match.Status.ERROR, error, at, match_id, *RECORDABLE) for match_id, error in unreadable.items()],
            )
        kept = _lock_recordable(cursor, sorted(readings))
        if not kept:
            return {}
        _create_games(kept, seats, results, readings)
        locked = _lock_competition(cursor, competition.id)
        version = locked.results_version + 1
        with pipelined(), sql_cursor() as done:
            match_units = _update_participants(cursor, competition, kept, seats, results)
            _update_standings(cursor, kept, seats, match_units, results, readings, at)
            # The competition row is locked, so this read-then-write cannot race.
            cursor.execute(
                f"UPDATE {Competition._meta.db_table} SET results_version = %s WHERE id = %s",
                [version, competition.id],
            )
            complete, rated = _advance_ratings(cursor, competition, kept, at)
            # Done and, if their turn came, rated, in one update of each match row: every update of a match
            # writes all its indexes again.
            among, values = one_of("id", kept, hashed=True)
            rated_among, rated_values = one_of("id", sorted(rated), hashed=True)
            done.execute(
                f"UPDATE {Match._meta.db_table} SET status = %s, error = %s, finished_at = %s, "
                f"rated = ({rated_among}) WHERE {among} AND status IN ({_RECORDABLE_LIST}) RETURNING id",
                [Match.Status.DONE, "", at, *rated_values, *values, *RECORDABLE],
            )
            if len(done.fetchall()) != len(kept):
                # Only where the database has no row locks (SQLite): another recording got there in between.
                raise _NotRecordable
        _after_recording(competition, locked, kept, seats, results, complete)
        # Counted with the games that make the count, in their transaction (services/bot_suspension.py). A
        # match with no forfeit by a bot's own fault (nearly all of them) costs no query here.
        forfeiters = _own_fault_forfeiters(kept, seats, results)
        if forfeiters:
            versions_forfeited(version_ids=forfeiters)
        transaction.on_commit(lambda: publish_results_version(competition.id, version))
    return dict.fromkeys(kept, finished_at)


def _own_fault_forfeiters(kept: list[int], seats: dict[int, list[_Seat]], results: dict[int, MatchResult]) -> set[int]:
    """The bot versions that forfeited one of these matches' games by their own fault."""
    versions = set()
    for match_id in kept:
        for played in results[match_id].games:
            forfeit = played.record.forfeit
            if forfeit is None or forfeit.cause not in OWN_FAULT or forfeit.seat >= len(played.seating):
                continue
            who = played.seating[forfeit.seat]
            version = None if who is None else seats[match_id][who].bot_version_id
            if version is not None:
                versions.add(version)
    return versions


def _lock_recordable(cursor: SqlCursor, match_ids: list[int]) -> list[int]:
    """Lock the matches' rows in id order, and keep those still recordable: their ids, in order."""
    if not match_ids:
        return []
    among, values = one_of("id", match_ids, hashed=True)
    # Row by row in id order, so two recordings of overlapping batches queue rather than deadlock; a row
    # that waited is read again as the other left it (done: no longer recordable).
    lock = " ORDER BY id FOR UPDATE" if connection.features.has_select_for_update else ""
    cursor.execute(
        f"SELECT id FROM {Match._meta.db_table} WHERE {among} AND status IN ({_RECORDABLE_LIST}){lock}",
        [*values, *RECORDABLE],
    )
    return sorted(row[0] for row in cursor.fetchall())


_RECORDABLE_LIST = ", ".join(["%s"] * len(RECORDABLE))


class _NotRecordable(Exception):
    """A match was recorded, cancelled or reset meanwhile: everything this recording wrote is rolled back."""


def _after_recording(
    competition: _Competition,
    locked: _Locked,
    kept: list[int],
    seats: dict[int, list[_Seat]],
    results: dict[int, MatchResult],
    complete: bool,
) -> None:
    """What the format and the people make of the recorded matches, still under the competition's lock."""
    format = get_format(competition.format)
    for match_id in kept:
        # Under the competition's lock, as every change the format makes is (a challenge ladder's places).
        ranks = zip(seats[match_id], results[match_id].ranks, strict=True)
        format.match_recorded(competition.id, match_id, {seat.entrant_id: rank for seat, rank in ranks})
    # A round-by-round format's next round (a Swiss pairs it now): while it has one, it is not complete.
    # A match a worker was still playing when its competition was cancelled records, and pairs nothing.
    released = 0
    if format.pairs_round_by_round and locked.status == Competition.Status.RUNNING:
        rounds = Round.objects.filter(id__in={seats[match_id][0].round_id for match_id in kept}).order_by("number")
        released = sum(next_round_release_if_done(round_=round_) for round_ in rounds)
    # A ladder runs until it is cancelled (or a rating ladder reaches its last round, which its tick decides).
    finished = complete and not released and format.ends_by_itself
    if finished and locked.status == Competition.Status.RUNNING:
        Competition.objects.filter(pk=competition.id).update(
            status=Competition.Status.FINISHED, finished_at=timezone.now()
        )
        format.finished(competition.id)
        notices.competition_finished(competition.id)
    for match_id in kept:
        # A bots' match tells no one (tournaments/notices.py): it costs no query here.
        if any(seat.player_id is not None for seat in seats[match_id]):
            notices.match_recorded(match_id)


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


def _competition_and_seats(cursor: SqlCursor, match_ids: list[int]) -> tuple[_Competition, dict[int, list[_Seat]]]:
    """The competition's fixed fields and each match's seats in order; neither changes once the match exists."""
    among, values = one_of("m.id", match_ids)
    seated, seated_values = one_of("p.match_id", match_ids)
    # The participants' condition spelled out too: a prepared statement's generic plan otherwise joins them
    # by scanning the whole table.
    cursor.execute(
        f"SELECT c.id, c.game, c.format, c.players_per_match, m.id, m.round_id, p.id, p.entrant_id, e.player_id, "
        f"e.bot_version_id "
        f"FROM {Match._meta.db_table} m "
        f"JOIN {Competition._meta.db_table} c ON c.id = m.competition_id "
        f"LEFT JOIN {MatchParticipant._meta.db_table} p ON p.match_id = m.id AND {seated} "
        f"LEFT JOIN {Entrant._meta.db_table} e ON e.id = p.entrant_id WHERE {among} ORDER BY m.id, p.seat",
        [*seated_values, *values],
    )
    rows = cursor.fetchall()
    found = {row[4] for row in rows}
    missing = [match_id for match_id in match_ids if match_id not in found]
    if missing:
        raise Match.DoesNotExist(f"match {missing[0]} does not exist")
    if len({row[0] for row in rows}) != 1:
        # Batches are made per competition (services/scheduling.py): anything else is a caller's bug.
        raise ValueError(f"matches {match_ids} are not all of one competition")
    seats: dict[int, list[_Seat]] = {match_id: [] for match_id in match_ids}
    for *_, match_id, round_id, participant, entrant, player, version in rows:
        if participant is not None:
            seats[match_id].append(_Seat(participant, entrant, player, round_id, version))
    return _Competition(*rows[0][:4]), seats


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
    kept: list[int],
    seats: dict[int, list[_Seat]],
    results: dict[int, MatchResult],
    readings: dict[int, _ProfileReading],
) -> None:
    entrants = {match_id: [seat.entrant_id for seat in seats[match_id]] for match_id in kept}
    # Game ids cost a read of every row just written: only a breakdown's rows need them.
    with_breakdown = [
        (match_id, breakdowns) for match_id in kept if (breakdowns := readings[match_id].breakdowns) is not None
    ]
    ids = insert_games(
        [MatchGames(match_id, GameEncoder(entrants[match_id]), results[match_id].games) for match_id in kept],
        return_ids=bool(with_breakdown),
    )
    rows: list[MatchSet] = []
    for match_id, breakdowns in with_breakdown:
        rows += _breakdown_rows(breakdowns, match_id, entrants[match_id], results[match_id], ids)
    MatchSet.objects.bulk_create(rows, batch_size=1000)


def _breakdown_rows(
    breakdowns: dict[int, list[Row]],
    match_id: int,
    entrant_of: list[int],
    result: MatchResult,
    game_ids: dict[tuple[int, int], int],
) -> list[MatchSet]:
    """Each game's sets or race rounds, keyed by entrant so a table reads the same whatever the seating."""
    rows: list[MatchSet] = []
    for played in result.games:
        game_id = game_ids[match_id, played.number]
        people = [(seat, entrant_of[who]) for seat, who in enumerate(played.seating) if who is not None]
        for number, row in enumerate(breakdowns[played.number], start=1):
            scores = {str(entrant): row.cells[seat] for seat, entrant in people}
            rows.append(MatchSet(match_id=match_id, game_id=game_id, number=number, scores=scores, play_on=row.marked))
    return rows


def _update_participants(
    cursor: SqlCursor,
    competition: _Competition,
    kept: list[int],
    seats: dict[int, list[_Seat]],
    results: dict[int, MatchResult],
) -> dict[int, list[int]]:
    """Score, rank and match points of each seat; each match's points (in units) by seat."""
    per_point = units_per_point(competition.players_per_match)
    match_units = {match_id: [int(points * per_point) for points in results[match_id].points] for match_id in kept}
    # One statement for the batch, not bulk_update's CASE expressions: compiling those cost more than the update.
    update_rows(
        cursor,
        MatchParticipant,
        key="id",
        columns=("score", "rank", "match_units"),
        rows=[
            (
                _decimal(results[match_id].scores[index]),
                results[match_id].ranks[index],
                match_units[match_id][index],
                seat.participant_id,
            )
            for match_id in kept
            for index, seat in enumerate(seats[match_id])
        ],
    )
    return match_units


#: Standings columns a recorded match adds to, in the order _standing_deltas gives them.
_ADDED = ("played", "won", "drawn", "lost", "match_units", "games_played", "games_won", *FIGURE_COLUMNS)


def _update_standings(
    cursor: SqlCursor,
    kept: list[int],
    seats: dict[int, list[_Seat]],
    match_units: dict[int, list[int]],
    results: dict[int, MatchResult],
    readings: dict[int, _ProfileReading],
    at: object,
) -> None:
    """Add the matches to each entrant's row, once per entrant for the whole batch, each an increment.

    Plain SQL rather than F() expressions: compiling eleven expressions per row cost more
    than the games of a short match. Increments stay correct whatever else touched the row.
    """
    totals: dict[int, list[int]] = {}
    for match_id in kept:
        deltas = _standing_deltas(seats[match_id], match_units[match_id], results[match_id], readings[match_id].sums)
        for entrant_id, delta in deltas:
            total = totals.get(entrant_id)
            totals[entrant_id] = delta if total is None else [a + b for a, b in zip(total, delta, strict=True)]
    update_rows(
        cursor,
        Standing,
        key="entrant_id",
        columns=_ADDED,
        added=_ADDED,
        fixed={"updated_at": at},
        rows=[[*totals[entrant_id], entrant_id] for entrant_id in sorted(totals)],
    )


def _standing_deltas(
    seats: list[_Seat], match_units: list[int], result: MatchResult, sums: list[list[int]]
) -> list[tuple[int, list[int]]]:
    """What one match adds to each of its entrants' rows, in _ADDED's order."""
    first = [i for i, rank in enumerate(result.ranks) if rank == 1]
    deltas = []
    for index, seat in enumerate(seats):
        won = index in first and len(first) == 1
        drawn = index in first and len(first) > 1
        outcome = [1, int(won), int(drawn), int(not won and not drawn), match_units[index]]
        deltas.append((seat.entrant_id, [*outcome, len(result.games), *sums[index]]))
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


def _advance_ratings(
    cursor: SqlCursor, competition: _Competition, recording: list[int], at: object
) -> tuple[bool, set[int]]:
    """Rate every recorded match not yet rated, in (round, match id) order, up to the first unrecorded one.

    ``recording`` are the matches this transaction records, counted as done: the caller marks them
    done, and rated if they are among the matches this returns, in the same update. Others rated now
    (recorded earlier, and waiting for a match before them) are marked rated here.

    Ratings are then a pure function of the results: the order matches finish in,
    retries and reruns cannot change them (DESIGN.md, "Ratings").

    Returns whether no match is left to play (pending, running or in error), and the matches rated.
    Every match left to play is unrated, so the same read tells. The matches being recorded are
    unrated too, so a complete competition always reads at least them.
    """
    done = Match.Status.DONE
    # Hashed: every unrated match of the competition is tested against the batch, twice.
    among, values = one_of("m.id", recording, hashed=True)
    # A cursor of its own: in a pipeline, a cursor that sent statements before may already hold the answer of
    # one of them, which its fetch would return instead of waiting for this read's.
    with sql_cursor() as reader:
        reader.execute(
            _READY_TO_RATE.format(recording=among),
            [done, *values, done, *values, competition.id, False, Match.Status.CANCELLED],
        )
        # Match id, participant id, entrant id, rank, mu, sigma, and how many matches are still open: as
        # _READY_TO_RATE selects them.
        rows: list[tuple[int, int, int, int | None, float, float, int]] = reader.fetchall()
    if not rows:
        return False, set()
    seats: dict[int, list[tuple[int, int, int]]] = {}
    skills: dict[int, Skill] = {}
    for match_id, participant_id, entrant_id, rank, mu, sigma, _ in rows:
        seats.setdefault(match_id, []).append((participant_id, entrant_id, rank or 0))
        # The ratings as they stand before these matches (the same for every row of an entrant).
        skills[entrant_id] = Skill(mu, sigma)
    history: list[tuple[float, float, int]] = []
    for table in seats.values():  # in (round, match id) order, as read
        rated = rate([skills[entrant] for _, entrant, _ in table], [rank for *_, rank in table])
        for (participant, entrant, _), skill in zip(table, rated, strict=True):
            skills[entrant] = skill
            history.append((skill.mu, skill.sigma, participant))
    update_rows(cursor, MatchParticipant, key="id", columns=("mu_after", "sigma_after"), rows=history)
    update_rows(
        cursor,
        Standing,
        key="entrant_id",
        columns=("mu", "sigma", "ordinal"),
        fixed={"updated_at": at},
        rows=[(skill.mu, skill.sigma, skill.ordinal, entrant) for entrant, skill in sorted(skills.items())],
    )
    earlier = sorted(set(seats) - set(recording))
    if earlier:
        listed, listed_values = one_of("id", earlier)
        cursor.execute(f"UPDATE {Match._meta.db_table} SET rated = %s WHERE {listed}", [True, *listed_values])
    return rows[0][6] == 0, set(seats)


#: Each seat of the matches ready to rate, with its entrant's rating, in rating order: the unrated matches
#: up to the first one not done (``waiting`` counts the matches not done so far), and in the last column
#: how many unrated matches are not done in all. ``{recording}`` is the condition that a match is one being
#: recorded, which counts as done.
_READY_TO_RATE = f"""
SELECT q.id, p.id, p.entrant_id, p.rank, s.mu, s.sigma, q.open
FROM (
    SELECT m.id, r.number,
        SUM(CASE WHEN m.status = %s OR {{recording}} THEN 0 ELSE 1 END) OVER (ORDER BY r.number, m.id) AS waiting,
        SUM(CASE WHEN m.status = %s OR {{recording}} THEN 0 ELSE 1 END) OVER () AS open
    FROM {Match._meta.db_table} m JOIN {Round._meta.db_table} r ON r.id = m.round_id
    WHERE m.competition_id = %s AND m.rated = %s AND m.status <> %s
) q
JOIN {MatchParticipant._meta.db_table} p ON p.match_id = q.id
JOIN {Standing._meta.db_table} s ON s.entrant_id = p.entrant_id
WHERE q.waiting = 0
ORDER BY q.number, q.id, p.seat
"""
