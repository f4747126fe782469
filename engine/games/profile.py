"""What a league needs to know about a game, declared by the game beside its rules.

The service (``league/``, ``tournaments/``) never asks which game it is playing: it
reads the game's :class:`LeagueProfile` and loops over it (docs/engine-interface.md,
"The league profile"). A profile says

* how the standings table is ordered after match points, and how each figure a
  row sums comes from one finished game's result;
* how a game's result breaks down for the match pages: into sets (1923's set
  table) or into a race to a target (Banter's race to 40), or not at all;
* what a game played with real cards must list in its transcript beyond what the
  engine checks for any deal, and how its deal is written down list by list (the
  step-by-step transcript form asks for each list of cards in turn);
* the deal a game played from a seed was dealt, written down as a table deals it,
  so that the game goes in as a transcript (engine/env's ``transcript()``).

Every callable here takes the result as its JSON (``Result.to_json``, as stored in a
record), so the service can call it on what it reads back from the database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

#: A game's result as JSON (``Result.to_json``): the common keys and the game's own figures.
ResultJSON = Mapping[str, Any]
#: One seat's share of a figure in one finished game.
FigureOfGame = Callable[[ResultJSON, int], int]

#: How many figures of its own a game may sum into a standings row (the row keeps that many slots).
MAX_FIGURES = 4


@dataclass(frozen=True)
class Figure:
    """A column of the standings table that orders it: a tiebreak.

    ``of_game`` gives one seat's value for one finished game, and the row holds the sum
    over every game its entrant played. The two figures every game has, match points and
    games won, are kept by the league itself and have no ``of_game``
    (:data:`MATCH_POINTS`, :data:`GAMES_WON`).
    """

    key: str
    label: str
    higher_first: bool = True
    of_game: FigureOfGame | None = field(default=None, compare=False)
    #: Counted only for the seat that won the game alone, 0 for every other seat (War's rounds
    #: needed: the rounds of the games a player won). Saying so spares a call per seat and game.
    won_games_only: bool = False


#: The figures the league keeps for every game; a profile's order may use them under their own labels.
MATCH_POINTS = Figure("match_points", "Match points")
GAMES_WON = Figure("games_won", "Games won")
LEAGUE_KEPT = frozenset({MATCH_POINTS.key, GAMES_WON.key})


@dataclass(frozen=True)
class Column:
    key: str
    label: str


@dataclass(frozen=True)
class Row:
    """One line of a game's breakdown: per seat, its figures by column key; ``marked`` flags the line."""

    cells: list[dict[str, int]]
    marked: bool = False


@dataclass(frozen=True)
class SetTable:
    """A game played as a series of sets, each with its own figures per seat (1923)."""

    columns: tuple[Column, ...]
    rows: Callable[[ResultJSON], list[Row]]
    #: What the API calls this kind of breakdown (its path: /api/matches/{id}/sets/).
    kind: ClassVar[str] = "sets"


@dataclass(frozen=True)
class Race:
    """A race to ``target``: each seat's points in every round and its total so far (Banter's race to 40).

    A row's cells are ``{"points": …, "total": …}``; ``marked`` rows are played on past the target.
    """

    target: int
    rows: Callable[[ResultJSON], list[Row]]
    #: What a marked round is called on the pages (the help line under the race).
    marked_label: str = "play-on round"
    kind: ClassVar[str] = "race"


Breakdown = SetTable | Race


def race_rows(totals: Sequence[Sequence[int]], marked: Sequence[int] = ()) -> list[Row]:
    """Race rows from each round's running totals; ``marked`` holds 1-based round numbers."""
    flagged = set(marked)
    rows = []
    previous = [0] * (len(totals[0]) if totals else 0)
    for number, pair in enumerate(totals, start=1):
        cells = [{"points": total - before, "total": total} for total, before in zip(pair, previous, strict=True)]
        rows.append(Row(cells=cells, marked=number in flagged))
        previous = list(pair)
    return rows


def _no_problem(*_: Any) -> str:
    return ""


@dataclass(frozen=True)
class DealPart:
    """One list of cards of a deal, as people at a table write it down (docs/records.md, "Explicit deals").

    The step-by-step transcript form asks for each part in turn and puts its cards at ``path`` in the
    deal's JSON, so it builds any game's deal without knowing its shape.
    """

    #: Where the cards go in the deal: keys of objects and indexes of lists, ``("piles", 0, "draw")``.
    path: tuple[str | int, ...]
    #: What the cards are, in words for the person holding them: "the deck, top card first".
    label: str
    #: How many cards it holds.
    count: int
    #: The seat whose cards these are, when they are one seat's (the form names who sits there).
    seat: int | None = None
    #: The cards it must hold when play decided them (a discard pile shuffled again), in the canonical
    #: order; empty when the game's deck decides (any order of the right cards).
    cards: tuple[str, ...] = ()


def _no_parts(*_: Any) -> tuple[DealPart, ...]:
    return ()


def _no_part(*_: Any) -> DealPart | None:
    return None


def _same_seed(_: Any, seed: int) -> int:
    return seed


@dataclass(frozen=True)
class LeagueProfile:
    """A game as the league sees it (docs/engine-interface.md, "The league profile")."""

    #: The game's name as people write it ("War", "1923").
    label: str
    #: The standings order: each figure decides only among rows level on every figure before it.
    #: Figures with ``of_game`` are the game's own and are summed per game, at most MAX_FIGURES of them.
    order: tuple[Figure, ...]
    #: How a game's result breaks down on the match pages and in the API, if it does.
    breakdown: Breakdown | None = None
    #: A transcript's deal (canonical, from ``parse_deal``) that the engine accepts but a real table
    #: could not have dealt: why, or "" (War's engine takes short hands for tests; a table deals a deck).
    table_deal_problem: Callable[[Mapping[str, Any], Mapping[str, Any], int], str] = _no_problem
    #: A transcript whose replay (result JSON, final state) shuffled a deck the deal does not list: why, or "".
    #: The seed shuffles such decks, but at a real table people shuffled them by hand.
    unlisted_shuffles: Callable[[ResultJSON, Any], str] = _no_problem
    #: The lists of cards a table deals before the first step, given the options and seats: what the
    #: step-by-step transcript form asks for first. Empty: the form cannot build this game's deal, and its
    #: transcripts are sent as files.
    table_deal_parts: Callable[[Mapping[str, Any], int], tuple[DealPart, ...]] = _no_parts
    #: A deck the game shuffled just now, in the last step, that the state's deal does not list (a later
    #: set's deck, a discard pile shuffled again), or None. The form asks for it before play goes on, then
    #: replays with it listed: a listed deck takes the place of the seed's shuffle at the same moment.
    unlisted_deal_part: Callable[[Any], DealPart | None] = _no_part
    #: Every deck a state's game has dealt so far (the first deal, 1923's later sets, Banter's reshuffles), as
    #: the explicit deal ``parse_deal`` accepts and a table would have written down: replayed with it, the game
    #: shuffles nothing from the seed (``unlisted_shuffles`` finds nothing). None: the game cannot say, so a game
    #: it played from a seed cannot go in as a transcript.
    table_deal: Callable[[Any], dict[str, Any]] | None = None
    #: The seed to replay ``table_deal(state)`` with, given the seed the state was dealt from, so that what the
    #: seed still decides beside a full deal comes out the same (Banter's first lead drawn from the seed; Punk's
    #: dummy keeps its seed). The seed itself unless the seed is drawn on differently once a deal is given.
    table_seed: Callable[[Any, int], int] = _same_seed

    def __post_init__(self) -> None:
        keys = [f.key for f in self.order]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.label}: a figure appears twice in the standings order: {keys}")
        for figure in self.order:
            if (figure.of_game is None) != (figure.key in LEAGUE_KEPT):
                raise ValueError(
                    f"{self.label}: figure {figure.key!r} needs of_game unless it is one the league keeps "
                    f"({', '.join(sorted(LEAGUE_KEPT))})"
                )
        if len(self.own_figures) > MAX_FIGURES:
            raise ValueError(f"{self.label}: at most {MAX_FIGURES} figures of its own, not {len(self.own_figures)}")

    @cached_property
    def own_figures(self) -> tuple[Figure, ...]:
        """The figures the game sums from its results, in order: the league stores them in this order."""
        return tuple(f for f in self.order if f.of_game is not None)

    @cached_property
    def winners_figures(self) -> tuple[tuple[int, FigureOfGame], ...]:
        """(index in ``own_figures``, source) of each figure counted for a game's sole winner only."""
        return tuple((i, f.of_game) for i, f in enumerate(self.own_figures) if f.of_game and f.won_games_only)

    @cached_property
    def seats_figures(self) -> tuple[tuple[int, FigureOfGame], ...]:
        """(index in ``own_figures``, source) of each figure counted for every seat."""
        return tuple((i, f.of_game) for i, f in enumerate(self.own_figures) if f.of_game and not f.won_games_only)

    def figures_of_game(self, result: ResultJSON, seat: int) -> list[int]:
        """What one finished game adds to a seat's own figures, in ``own_figures`` order."""
        values = [0] * len(self.own_figures)
        sources = self.seats_figures + (self.winners_figures if result.get("winner") == seat else ())
        for index, of_game in sources:
            values[index] = of_game(result, seat)
        return values
