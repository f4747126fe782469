"""Building engine match results by hand, so standings can be checked against figures written out in a test."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.match import GamePlayed, MatchResult
from engine.record import Record
from engine.result import ranks_from_keys, score_rates
from tests.factories import CompetitionFactory, EntrantFactory
from tournaments.models import Competition, Entrant, Match
from tournaments.services.competitions import competition_start


def game_played(game: str, number: int, seating: Sequence[int], result: dict[str, Any]) -> GamePlayed:
    ranks = result["ranks"]
    winners = [seat for seat, rank in enumerate(ranks) if rank == 1]
    full = {"winner": winners[0] if len(winners) == 1 else None, "winners": winners, "forfeit": None, **result}
    record = Record(game=game, players=len(seating), options={}, seed=number, deal=None, actions=[], result=full)
    return GamePlayed(number=number, seating=tuple(seating), record=record)


def match_result(games: Sequence[GamePlayed], participants: int) -> MatchResult:
    """Sum each participant's game score rates and rank them, as engine.match does."""
    from fractions import Fraction

    totals = [Fraction(0)] * participants
    for played in games:
        ranks = played.record.result["ranks"]  # type: ignore[index]
        for seat, rate in enumerate(score_rates(ranks)):
            who = played.seating[seat]
            if who is not None:
                totals[who] += rate
    ranks = ranks_from_keys(totals)
    return MatchResult(games=tuple(games), scores=tuple(totals), ranks=ranks, points=tuple(score_rates(ranks)))


def match_between(competition: Competition, *entrants: Entrant) -> Match:
    """The scheduled match whose participants are exactly these entrants, seat 0 first."""
    wanted = {e.pk for e in entrants}
    for match in competition.matches.prefetch_related("participants"):
        if {p.entrant_id for p in match.participants.all()} == wanted:
            return match
    raise LookupError(f"no match between {sorted(wanted)}")


def seats_of(match: Match) -> list[int]:
    """Entrant ids in seat order: participant index i sits in seat i in game 0."""
    return list(match.participants.order_by("seat").values_list("entrant_id", flat=True))


def started(competition: Competition) -> Competition:
    return competition_start(competition=competition)


def two_bot_match(games_per_match: int = 1) -> Match:
    """The one match of a started War competition between two bots, still pending."""
    competition = CompetitionFactory(game="war", games_per_match=games_per_match)
    for _ in range(2):
        EntrantFactory(competition=competition)
    return started(competition).matches.get()
