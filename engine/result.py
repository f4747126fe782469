"""Game results, forfeits and the ranking arithmetic every game shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

#: Why a seat forfeited (DESIGN.md, "Forfeits are part of the record").
FORFEIT_CAUSES = ("timeout", "crash", "illegal_action", "bad_output", "init_failure")


@dataclass(frozen=True)
class Forfeit:
    seat: int
    cause: str
    #: The number of steps completed before the forfeit: the index of the step the seat failed.
    move: int
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "cause": self.cause, "move": self.move}
        if self.detail:
            data["detail"] = self.detail
        return data


#: The common result keys; a game's own figures sit beside them and must not reuse them.
_RESERVED = frozenset({"winner", "winners", "ranks", "scores", "forfeit"})


@dataclass(frozen=True)
class Result:
    """The outcome of one game.

    ``ranks[seat]`` is the seat's place, 1 first; seats sharing a place share
    the number (standard competition ranking, "1224"). ``details`` holds the
    game's own figures (War rounds and wars, 1923 set tables, ...).
    """

    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    details: Mapping[str, Any] = field(default_factory=dict)
    forfeit: Forfeit | None = None

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    @property
    def winner(self) -> int | None:
        """The single winning seat, or None for a draw or a shared win."""
        winners = self.winners
        return winners[0] if len(winners) == 1 else None

    def to_json(self) -> dict[str, Any]:
        clash = _RESERVED.intersection(self.details)
        if clash:
            raise ValueError(f"result details may not redefine {sorted(clash)}")
        return {
            "winner": self.winner,
            "winners": list(self.winners),
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            **self.details,
            "forfeit": self.forfeit.to_json() if self.forfeit else None,
        }


def ranks_from_keys(keys: Sequence[Any]) -> tuple[int, ...]:
    """Places from sort keys where a larger key is better; equal keys share a place."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


def score_rates(ranks: Sequence[int]) -> list[Fraction]:
    """Each participant's pairwise score rate (DESIGN.md, "Match points").

    (participants ranked below + ½ × others sharing its place) ÷ (participants − 1):
    win 1, draw ½, loss 0 between two; a fair share of places among more.
    """
    n = len(ranks)
    if n < 2:
        raise ValueError("a score rate needs at least two participants")
    rates = []
    for rank in ranks:
        below = sum(1 for other in ranks if other > rank)
        level = sum(1 for other in ranks if other == rank) - 1
        rates.append(Fraction(2 * below + level, 2 * (n - 1)))
    return rates


def with_forfeit(result: Result, forfeit: Forfeit, engine_seats: frozenset[int] = frozenset()) -> Result:
    """The forfeiting seat ranks last among the people; the others keep the order the game gave them.

    Seats the engine plays (Punk's dummy) are not people: they stay below everyone.
    """
    keys = [
        (-2 if seat in engine_seats else -1 if seat == forfeit.seat else 0, -rank)
        for seat, rank in enumerate(result.ranks)
    ]
    return Result(
        ranks=ranks_from_keys(keys),
        scores=result.scores,
        details=result.details,
        forfeit=forfeit,
    )
