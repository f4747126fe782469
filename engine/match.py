"""A match: several games between the same participants, seats rotating (DESIGN.md, "Games per match").

The engine plays the games; the service stores what :class:`MatchResult`
holds. Participant ``p`` takes seat ``(p + g) % n`` in game ``g``, so over a
match every participant starts from every seat in turn.

With duplicate deals each deal is played once from every rotation of the seats: games
``k * n`` to ``k * n + n - 1`` share deal ``k``, so a match is decided by play, not by the cards.

A best-of-N match between two (a knockout's) may end early: once the trailing side could not
catch up in the games left, the rest are not played (:func:`decided_early`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.agents import Agent
from engine.record import Record
from engine.result import ranks_from_keys, score_rates
from engine.rng import derive_seed
from engine.runner import play_game


@dataclass(frozen=True)
class GamePlayed:
    number: int
    #: ``seating[seat]`` is the participant index in that seat; None for a seat the engine plays.
    seating: tuple[int | None, ...]
    record: Record

    def participant_rank(self, participant: int) -> int:
        ranks = (self.record.result or {})["ranks"]
        return int(ranks[self.seating.index(participant)])


@dataclass(frozen=True)
class MatchResult:
    games: tuple[GamePlayed, ...]
    #: Each participant's summed game score rates.
    scores: tuple[Fraction, ...]
    ranks: tuple[int, ...]
    #: The pairwise score rate of each participant's match rank (DESIGN.md, "Match points").
    points: tuple[Fraction, ...]


def seating_for(game_number: int, participants: int, seats: int) -> tuple[int | None, ...]:
    """Who sits where in game ``game_number``: participants rotate; extra engine seats stay None."""
    return tuple((seat + game_number) % participants if seat < participants else None for seat in range(seats))


def round_match_seed(competition_seed: int, round_number: int, number: int) -> int:
    """The seed of match ``number`` (from 1) of round ``round_number`` in a competition seeded ``competition_seed``.

    The service seeds every bot-only match this way, so a chosen competition seed replays the competition, and
    the offline gauntlet (engine/gauntlet.py) plays the very games a server competition with that seed would.
    """
    return derive_seed(competition_seed, f"round/{round_number}/match/{number}")


def round_order(round_number: int) -> tuple[int, int]:
    """The seat order of round ``round_number`` (from 1) of a play to separation: 0 is the entrant the test
    counts (the gauntlet's candidate), 1 the other. Seats swap every round, so neither plays every deal from
    one side; the service (tournaments/services/separation.py) and the gauntlet (engine/gauntlet.py) share it."""
    return (0, 1) if round_number % 2 else (1, 0)


def game_seed(match_seed: int, deal_number: int) -> int:
    """The seed a deal is dealt from (and its players' shuffles drawn from)."""
    return derive_seed(match_seed, f"game/{deal_number}")


def deal_number(game_number: int, participants: int, *, duplicate: bool) -> int:
    """The deal game ``game_number`` is dealt from: its own, or with duplicate deals the one its rotation shares."""
    return game_number // participants if duplicate else game_number


def play_match(
    game_name: str,
    *,
    participants: int,
    agents_for_game: Callable[[int, Sequence[int | None], int], Sequence[Agent | None]],
    seats: int,
    games: int,
    seed: int,
    options: Mapping[str, object] | None = None,
    deals: Sequence[Any] | None = None,
    duplicate: bool = False,
    best_of: bool = False,
) -> MatchResult:
    """Play ``games`` games and rank the participants by their summed game score rates; with ``best_of``, stop
    as soon as the match is decided (:func:`decided_early`).

    ``agents_for_game(game_number, seating, game_seed)`` gives the agents by
    seat for one game: the caller keeps an agent per participant (a sandboxed
    process lives for the whole match) and lays them out by ``seating``.
    """
    played: list[GamePlayed] = []
    for number in range(games):
        seating = seating_for(number, participants, seats)
        seed_g = game_seed(seed, deal_number(number, participants, duplicate=duplicate))
        agents = agents_for_game(number, seating, seed_g)
        deal = deals[number] if deals is not None and number < len(deals) else None
        record = play_game(game_name, agents=agents, seed=seed_g, options=options, deal=deal)
        played.append(GamePlayed(number=number, seating=seating, record=record))
        if best_of and decided_early(played, participants=participants, games=games, duplicate=duplicate):
            break
    return match_result(played, participants=participants)


def decided_early(played: Sequence[GamePlayed], *, participants: int, games: int, duplicate: bool) -> bool:
    """Whether a match between two of ``games`` games is decided after ``played``, the games left unplayed.

    A game's score rates are 1 and 0 (½ each for a draw), so each game left moves the gap by at most 1:
    a gap larger than the games left cannot be closed. A gap equal to them could end level, which a
    knockout settles by seed, so the match goes on. With duplicate deals a match stops only between
    rotations, so that every deal it played was played from both sides.
    """
    left = games - len(played)
    if participants != 2 or left <= 0 or (duplicate and len(played) % participants):
        return False
    first, second = match_result(played, participants=participants).scores
    return abs(first - second) > left


def match_result(played: Sequence[GamePlayed], *, participants: int) -> MatchResult:
    """Rank the participants of finished games by their summed game score rates.

    However the games were played: by :func:`play_match`, at a live table, or from transcripts.
    """
    totals = [Fraction(0)] * participants
    for game in played:
        people = [(seat, who) for seat, who in enumerate(game.seating) if who is not None]
        # Engine seats (Punk's dummy) are not participants: rate the people among themselves.
        ranks = (game.record.result or {})["ranks"]
        people_ranks = ranks_from_keys([-ranks[seat] for seat, _ in people])
        for (_, who), rate in zip(people, score_rates(people_ranks), strict=True):
            totals[who] += rate
    ranks = ranks_from_keys(totals)
    return MatchResult(games=tuple(played), scores=tuple(totals), ranks=ranks, points=tuple(score_rates(ranks)))
