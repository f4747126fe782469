"""A challenge ladder's places after a challenge: pure functions of the ladder and the challenge's ranking.

The ladder is a list of entrant ids, top place first. A challenge's ranking gives each of its
entrants a place (1 first, equal places shared): the match's ranks, or, when a defender forfeits,
the forfeiting defenders last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple


class Block(NamedTuple):
    """The part of the ladder a challenge can change: from its highest entrant down to its lowest."""

    #: The block's top place (1 is the ladder's top).
    top_place: int
    before: list[int]
    after: list[int]


def within_reach(ladder: Sequence[int], challenger: int, *, reach: int, players: int) -> list[int]:
    """Whom ``challenger`` may challenge, top place first: in a two-player game anyone up to ``reach`` places
    above; with more ``players`` at a table exactly the entrants directly above, enough for a table, or nobody
    where there are not that many. (Whether they are free of other challenges is checked when it is issued.)
    """
    if challenger not in ladder:
        return []
    here = list(ladder).index(challenger)
    above = players - 1
    if above > 1:
        return list(ladder[here - above : here]) if here >= above else []
    return list(ladder[max(0, here - reach) : here])


def reorder(ladder: Sequence[int], challenger: int, ranking: Mapping[int, int]) -> list[int]:
    """The ladder once the challenge is decided.

    Two entrants: a challenger ranked ahead of the defender takes the defender's place, and everyone
    from there down to the challenger's old place moves down one; otherwise nothing moves.
    More: the challenge's entrants (the challenger and those directly above it) share out their places
    in the order of the ranking; entrants level keep the order they had.
    """
    order = list(ladder)
    index = {entrant: i for i, entrant in enumerate(order)}
    missing = [entrant for entrant in ranking if entrant not in index]
    if missing or challenger not in ranking:
        raise ValueError(f"entrants not on the ladder or not in the challenge: {missing or [challenger]}")
    if len(ranking) == 2:
        (defender,) = (entrant for entrant in ranking if entrant != challenger)
        if ranking[challenger] < ranking[defender] and index[challenger] > index[defender]:
            order.pop(index[challenger])
            order.insert(index[defender], challenger)
        return order
    places = sorted(index[entrant] for entrant in ranking)
    for place, entrant in zip(places, sorted(ranking, key=lambda e: (ranking[e], index[e])), strict=True):
        order[place] = entrant
    return order


def block(before: Sequence[int], after: Sequence[int], entrants: Sequence[int]) -> Block:
    """The places a challenge of ``entrants`` spans, as they were and as they are."""
    index = {entrant: i for i, entrant in enumerate(before)}
    top = min(index[e] for e in entrants)
    bottom = max(index[e] for e in entrants)
    return Block(top_place=top + 1, before=list(before[top : bottom + 1]), after=list(after[top : bottom + 1]))


def forfeit_ranking(entrants: Sequence[int], forfeiting: set[int]) -> dict[int, int]:
    """A decided-without-play challenge's ranking: everyone who stood by it first, the forfeiting last.

    ``entrants`` are in ladder order; the ranks are distinct so that the two-entrant rule above applies
    (a challenger ahead of a forfeiting defender takes its place).
    """
    staying = [e for e in entrants if e not in forfeiting]
    leaving = [e for e in entrants if e in forfeiting]
    return {entrant: rank for rank, entrant in enumerate([*staying, *leaving], start=1)}
