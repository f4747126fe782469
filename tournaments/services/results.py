"""Recording a played match: games, sets, participants, standings and ratings, in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from itertools import takewhile
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from engine.match import MatchResult
from league.ratings import Skill, rate
from league.standings import FIGURE_FIELDS, game_figures
from tournaments.models import (
    Competition,
    Match,
    MatchParticipant,
    MatchSet,
    Standing,
    units_per_point,
)
from tournaments.pairing import FORMATS
from tournaments.services.game_rows import GameRow, insert_games
from tournaments.services.scheduling import next_round_release_if_done
from tournaments.standings_cache import publish_results_version

#: A match can be recorded from these states: claimed by a worker, or retried after an error.
RECORDABLE = (Match.Status.RUNNING, Match.Status.PENDING, Match.Status.ERROR)


def _decimal(value: Fraction) -> Decimal:
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.000001"))


def match_record_result(*, match: Match, result: MatchResult) -> Match:
    """Store a played match once; a second call for the same match changes nothing.

    The competition row is locked first: every match of a competition records
    under that one lock, so standings increments and the ratings cursor never
    interleave, and the unique constraints on games and sets make a duplicate
    write fail rather than count twice.
    """
    with transaction.atomic():
        competition = Competition.objects.select_for_update().get(pk=match.competition_id)
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if locked.status not in RECORDABLE:
            return locked
        participants = list(locked.participants.order_by("seat"))
        if len(participants) != len(result.ranks):
            raise ValueError(f"match {locked.pk} has {len(participants)} participants, result has {len(result.ranks)}")
        games = _create_games(competition, locked, participants, result)
        _create_sets(competition.game, locked, games)
        _update_participants(competition, participants, result)
        _update_standings(competition, participants, result)
        locked.status = Match.Status.DONE
        locked.error = ""
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "error", "finished_at"])
        _advance_ratings(competition)
        version = competition.results_version + 1
        # The competition row is locked above, so this read-then-write cannot race.
        Competition.objects.filter(pk=competition.pk).update(results_version=version)
        transaction.on_commit(lambda: publish_results_version(competition.pk, version))
        _finish_if_complete(competition)
        if FORMATS[competition.format].pairs_round_by_round:
            next_round_release_if_done(round_=locked.round)
    return locked


def _create_games(
    competition: Competition, match: Match, participants: list[MatchParticipant], result: MatchResult
) -> list[tuple[GameRow, int]]:
    entrant_of = [p.entrant_id for p in participants]
    rows = []
    for played in result.games:
        record = played.record
        game_result = record.result or {}
        winner = game_result.get("winner")
        winner_participant = played.seating[winner] if winner is not None else None
        rows.append(
            GameRow(
                number=played.number,
                seating=[None if who is None else entrant_of[who] for who in played.seating],
                seed=record.seed,
                deal=record.deal,
                options=record.options,
                record=record.to_dict(),
                result=game_result,
                winner_id=None if winner_participant is None else entrant_of[winner_participant],
            )
        )
    ids = insert_games(match=match, rows=rows)
    return [(row, ids[row.number]) for row in rows]


def _create_sets(game_name: str, match: Match, games: list[tuple[GameRow, int]]) -> None:
    """1923's sets and Banter's rounds, keyed by entrant so a table reads the same whatever the seating."""
    rows: list[MatchSet] = []
    for game, game_id in games:
        seating: list[Any] = game.seating
        people = [(seat, entrant) for seat, entrant in enumerate(seating) if entrant is not None]
        if game_name == "1923":
            for number, row in enumerate(game.result.get("set_table", []), start=1):
                scores = {
                    str(entrant): {key: row[key][seat] for key in ("cards", "aces", "points") if key in row}
                    for seat, entrant in people
                }
                rows.append(MatchSet(match=match, game_id=game_id, number=number, scores=scores))
        elif game_name == "banter":
            play_on = set(game.result.get("play_on_rounds", []))
            previous = [0, 0]
            for number, totals in enumerate(game.result.get("race", []), start=1):
                scores = {
                    str(entrant): {"points": totals[seat] - previous[seat], "total": totals[seat]}
                    for seat, entrant in people
                }
                rows.append(
                    MatchSet(match=match, game_id=game_id, number=number, scores=scores, play_on=number in play_on)
                )
                previous = list(totals)
    MatchSet.objects.bulk_create(rows, batch_size=1000)


def _update_participants(competition: Competition, participants: list[MatchParticipant], result: MatchResult) -> None:
    per_point = units_per_point(competition.players_per_match)
    for index, participant in enumerate(participants):
        participant.score = _decimal(result.scores[index])
        participant.rank = result.ranks[index]
        participant.match_units = int(result.points[index] * per_point)
    MatchParticipant.objects.bulk_update(participants, ["score", "rank", "match_units"])


#: Standings columns a recorded match adds to, in the order _standing_deltas gives them.
_ADDED = ("played", "won", "drawn", "lost", "match_units", "games_played", "games_won", *FIGURE_FIELDS)


def _update_standings(competition: Competition, participants: list[MatchParticipant], result: MatchResult) -> None:
    """Add the match to each participant's row: one prepared UPDATE per row, each an increment.

    Plain SQL rather than F() expressions: compiling eleven expressions per row cost more
    than the games of a short match. Increments stay correct whatever else touched the row.
    """
    deltas = _standing_deltas(competition.game, participants, result)
    table = Standing._meta.db_table
    assignments = ", ".join(f"{column} = {column} + %s" for column in _ADDED)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET {assignments} WHERE entrant_id = %s", deltas)


def _standing_deltas(game: str, participants: list[MatchParticipant], result: MatchResult) -> list[list[int]]:
    sums = [[0] * (1 + len(FIGURE_FIELDS)) for _ in participants]  # games won, then the figures
    for played in result.games:
        game_result = played.record.result or {}
        winner = game_result.get("winner")
        for seat, who in enumerate(played.seating):
            if who is None:
                continue
            row = sums[who]
            row[0] += winner == seat
            for offset, value in enumerate(game_figures(game, game_result, seat).values(), start=1):
                row[offset] += value
    first = [i for i, rank in enumerate(result.ranks) if rank == 1]
    deltas = []
    for index, participant in enumerate(participants):
        won = index in first and len(first) == 1
        drawn = index in first and len(first) > 1
        outcome = [1, int(won), int(drawn), int(not won and not drawn), participant.match_units or 0]
        deltas.append([*outcome, len(result.games), *sums[index], participant.entrant_id])
    return deltas


def _advance_ratings(competition: Competition) -> None:
    """Rate every recorded match not yet rated, in (round, match id) order, up to the first unrecorded one.

    Ratings are then a pure function of the results: the order matches finish in,
    retries and reruns cannot change them (DESIGN.md, "Ratings").
    """
    pending = (
        Match.objects.filter(competition=competition, rated=False)
        .exclude(status=Match.Status.CANCELLED)
        .order_by("round__number", "id")
        .values_list("id", "status")
    )
    ready = list(takewhile(lambda row: row[1] == Match.Status.DONE, pending))
    if not ready:
        return
    ids = [match_id for match_id, _ in ready]
    seats: dict[int, list[tuple[int, int]]] = {match_id: [] for match_id in ids}
    for match_id, entrant_id, rank in (
        MatchParticipant.objects.filter(match_id__in=ids)
        .order_by("match_id", "seat")
        .values_list("match_id", "entrant_id", "rank")
    ):
        seats[match_id].append((entrant_id, rank or 0))
    entrants = {entrant for table in seats.values() for entrant, _ in table}
    skills = {
        entrant: Skill(mu, sigma)
        for entrant, mu, sigma in Standing.objects.filter(entrant_id__in=entrants).values_list(
            "entrant_id", "mu", "sigma"
        )
    }
    for match_id in ids:
        table = seats[match_id]
        rated = rate([skills[entrant] for entrant, _ in table], [rank for _, rank in table])
        skills.update({entrant: skill for (entrant, _), skill in zip(table, rated, strict=True)})
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {Standing._meta.db_table} SET mu = %s, sigma = %s, ordinal = %s WHERE entrant_id = %s",
            [(skills[e].mu, skills[e].sigma, skills[e].ordinal, e) for e in sorted(entrants)],
        )
    Match.objects.filter(id__in=ids).update(rated=True)


def _finish_if_complete(competition: Competition) -> None:
    open_statuses: Sequence[str] = (Match.Status.PENDING, Match.Status.RUNNING, Match.Status.ERROR)
    if (
        competition.status == Competition.Status.RUNNING
        and not competition.matches.filter(status__in=open_statuses).exists()
    ):
        competition.status = Competition.Status.FINISHED
        competition.finished_at = timezone.now()
        competition.save(update_fields=["status", "finished_at"])
