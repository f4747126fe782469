"""A knockout bracket, single or double elimination: a pure function of the seeds and the results so far.

The service replays the bracket from round 1 each time it needs it (to pair the next round, to draw
it, to place the entrants), so nothing about the bracket is stored but the matches themselves: the
same seeds and results give the same bracket, whichever worker asks.

Tables and advancing
    A table seats ``table_size`` entrants (P) and its best ``advance`` (K) go on; K divides P, so
    that each table of a later round is filled by whole tables of the one before. At a table of
    two that is the usual one winner. Within a table entrants are ordered by their match rank,
    and entrants level at the line by their seed (the better seed goes on): a best-of-N with N
    odd leaves no level line in a 2-player game without drawn games.

Re-seeded rounds
    Every round seats the entrants still in it by their seed, spread across the round's tables
    as a snake (table 1 gets the best seed and the worst, ...), so at a table of two the best seed
    meets the worst one left, the second best the second worst, and so on. With favourites
    winning this is the familiar bracket; after an upset the top seed meets the weakest
    survivor rather than whoever a fixed tree would send it.

Byes for the top seeds
    Rounds aim at the *full* counts ``base * (P/K)**j`` (``base`` is P, the final table, for a
    single elimination), where every entrant plays. From n entrants the round aims at the largest
    full count m below n: it plays T = ceil((n - m) / (P - K)) tables (at most n // P) and the
    best n - T*P seeds sit the round out. At a table of two this is the standard bracket: the byes
    all come in round 1, and every later round is full. At bigger tables the aim can fall short
    of m by a few places: the best non-advancers of the round fill them (*wildcards*: the best
    match rank, then the best score, then the better seed), as multiplayer card events take
    their best runners-up.

Single elimination
    Rounds until P are left, who play the final table; its order gives places 1..P. With
    ``third_place`` (tables of two only) the two losing semi-finalists play for third place in
    the final's round.

Double elimination (K = 1)
    Entrants start in the upper bracket; a non-advancer of an upper table drops to the lower
    bracket, one of a lower table is out. Both brackets play in the same rounds. The upper
    bracket plays down to its one champion, the lower down to P - 1, then they meet in the grand
    final. Should the upper champion not win it, it has lost once too and the same table plays
    again (the reset), whose order is final. K = 1 is required: with more going on per table the
    lower bracket could be left with too few entrants for a table and too many for the final.

Places
    Entrants knocked out in the same round share a place: one more than the number still in
    after that round. The final table (and the third-place table) place entrants one by one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from math import ceil


class KnockoutError(ValueError):
    """The results do not fit the bracket (a table's entrants differ from the ones it was paired with)."""


class Side(StrEnum):
    UPPER = "upper"
    LOWER = "lower"
    FINAL = "final"
    THIRD = "third_place"
    GRAND_FINAL = "grand_final"
    RESET = "reset"


@dataclass(frozen=True)
class Settings:
    table_size: int
    advance: int = 1
    double: bool = False
    third_place: bool = False


@dataclass(frozen=True)
class Played:
    """A table's outcome: entrants in its seat order, their match ranks (1 best, ties share) and scores.

    ``ranks`` is None for a table that was not played (its match was cancelled): its entrants are
    then ordered by seed.
    """

    entrants: tuple[int, ...]
    ranks: tuple[int, ...] | None
    scores: tuple[Fraction, ...] = ()


@dataclass(frozen=True)
class Table:
    side: Side
    #: Seat order: by seed, best first.
    entrants: tuple[int, ...]
    #: Once played: the entrants best first (match rank, then seed), and who went on from it.
    order: tuple[int, ...] = ()
    advanced: tuple[int, ...] = ()


@dataclass(frozen=True)
class BracketRound:
    number: int
    tables: tuple[Table, ...]
    #: Entrants still in who sit this round out, by bracket.
    byes: dict[Side, tuple[int, ...]] = field(default_factory=dict)
    #: Once played: non-advancers kept in to fill the next round, those sent to the lower bracket, and
    #: those knocked out.
    wildcards: tuple[int, ...] = ()
    dropped: tuple[int, ...] = ()
    eliminated: tuple[int, ...] = ()

    @property
    def played(self) -> bool:
        return bool(self.tables) and bool(self.tables[0].order)


@dataclass(frozen=True)
class Bracket:
    #: The rounds played, then the next one to play (unplayed) unless the bracket is finished.
    rounds: tuple[BracketRound, ...]
    #: Entrant -> place, for everyone placed so far (everyone once finished).
    places: dict[int, int]
    finished: bool

    @property
    def next_round(self) -> BracketRound | None:
        if self.finished or not self.rounds or self.rounds[-1].played:
            return None
        return self.rounds[-1]


def settings_errors(settings: Settings) -> dict[str, str]:
    """What is wrong with these settings, by field name (empty when they make a bracket)."""
    p, k = settings.table_size, settings.advance
    errors: dict[str, str] = {}
    if not 1 <= k < p or p % k:
        divisors = [d for d in range(1, p) if p % d == 0]
        errors["advance_count"] = (
            f"at tables of {p}, the number going on from each table must divide {p} and be less than it: "
            f"{', '.join(map(str, divisors))}"
        )
    elif settings.double and k != 1:
        errors["advance_count"] = "a double elimination sends one entrant on from each table"
    if settings.third_place and settings.double:
        errors["third_place"] = "a double elimination places its third in the lower bracket: no third-place match"
    elif settings.third_place and p != 2:
        errors["third_place"] = (
            f"a third-place match is for tables of two; at tables of {p} the final table places everyone on it"
        )
    return errors


def bracket(seeds: Sequence[int], settings: Settings, played: Sequence[Sequence[Played]] = ()) -> Bracket:
    """The bracket of entrants ``seeds`` (best seed first) after the rounds ``played``.

    ``played[r]`` holds the outcomes of round r + 1's tables in the order this function paired
    them. Raises KnockoutError if they do not fit, ValueError for settings_errors or too few seeds.
    """
    errors = settings_errors(settings)
    if errors:
        raise ValueError("; ".join(errors.values()))
    if len(seeds) < settings.table_size or len(set(seeds)) != len(seeds):
        raise ValueError(f"a knockout of tables of {settings.table_size} needs as many distinct entrants")
    return _Replay(seeds, settings).run(played)


def round_count(entrants: int, settings: Settings) -> int:
    """Rounds the bracket takes when the better seed always wins (a double elimination without a reset)."""
    seeds = list(range(1, entrants + 1))
    played: list[list[Played]] = []
    while True:
        state = bracket(seeds, settings, played)
        upcoming = state.next_round
        if upcoming is None:
            return len(played)
        played.append([Played(t.entrants, tuple(range(1, len(t.entrants) + 1))) for t in upcoming.tables])


class _Replay:
    def __init__(self, seeds: Sequence[int], settings: Settings) -> None:
        self.seed_of = {entrant: place for place, entrant in enumerate(seeds)}
        self.s = settings
        self.p, self.k = settings.table_size, settings.advance
        self.upper: list[int] = list(seeds)
        self.lower: list[int] = []
        #: The losing semi-finalists, who play for third place in the final's round.
        self.third: list[int] = []
        self.places: dict[int, int] = {}
        self.finished = False
        #: The upper champion lost the grand final: the same table plays again.
        self._grand_final_lost = False

    def run(self, played: Sequence[Sequence[Played]]) -> Bracket:
        rounds: list[BracketRound] = []
        for number in range(1, len(played) + 2):
            plan = self._plan(number)
            if plan is None:
                if number <= len(played):
                    raise KnockoutError(f"the bracket finished after round {number - 1}; results came for {number}")
                self.finished = True
                break
            if number > len(played):
                rounds.append(plan)
                break
            rounds.append(self._apply(plan, played[number - 1]))
        return Bracket(rounds=tuple(rounds), places=dict(self.places), finished=self.finished)

    # Pairing one round from who is still in.

    def _plan(self, number: int) -> BracketRound | None:
        if self.s.double:
            return self._plan_double(number)
        if not self.upper:
            return None  # the final has been played
        if len(self.upper) == self.p:
            tables = [Table(Side.FINAL, self._by_seed(self.upper))]
            if self.third:
                tables.append(Table(Side.THIRD, self._by_seed(self.third)))
            return BracketRound(number, tuple(tables))
        seated, byes = self._layout(self.upper, self.p)
        return BracketRound(number, tuple(Table(Side.UPPER, t) for t in seated), {Side.UPPER: byes} if byes else {})

    def _plan_double(self, number: int) -> BracketRound | None:
        if self.finished or (not self.upper and not self.lower):
            return None
        if len(self.upper) == 1 and len(self.lower) == self.p - 1:
            side = Side.RESET if self._grand_final_lost else Side.GRAND_FINAL
            return BracketRound(number, (Table(side, self._by_seed(self.upper + self.lower)),))
        tables: list[Table] = []
        byes: dict[Side, tuple[int, ...]] = {}
        for side, alive, base in ((Side.UPPER, self.upper, 1), (Side.LOWER, self.lower, self.p - 1)):
            if len(alive) <= base:
                if alive:
                    byes[side] = tuple(self._by_seed(alive))
                continue
            side_tables, side_byes = self._layout(alive, base)
            tables += [Table(side, t) for t in side_tables]
            if side_byes:
                byes[side] = side_byes
        if not tables:
            raise KnockoutError(f"round {number} of the double elimination has no table to play")
        return BracketRound(number, tuple(tables), byes)

    def _layout(self, alive: Sequence[int], base: int) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
        """Tables and byes of one bracket's round: aim at the largest full count below len(alive)."""
        n, p, k = len(alive), self.p, self.k
        aim = self._aim(n, base)
        tables = min(ceil((n - aim) / (p - k)), n // p)
        ordered = self._by_seed(alive)
        byes = n - tables * p
        return _snake(ordered[byes:], tables), tuple(ordered[:byes])

    def _aim(self, n: int, base: int) -> int:
        growth = self.p // self.k
        aim = base
        while aim * growth < n:
            aim *= growth
        return aim

    # Applying a round's results.

    def _apply(self, plan: BracketRound, outcomes: Sequence[Played]) -> BracketRound:
        if len(outcomes) != len(plan.tables):
            raise KnockoutError(f"round {plan.number} has {len(plan.tables)} tables, the results {len(outcomes)}")
        tables = [self._table_result(t, o, plan.number) for t, o in zip(plan.tables, outcomes, strict=True)]
        if self.s.double:
            return self._apply_double(plan, tables, outcomes)
        if tables[0].side == Side.FINAL:
            self._place_in_order(tables[0].order, first=1)
            if len(tables) > 1:
                self._place_in_order(tables[1].order, first=self.p + 1)
            self.upper, self.third = [], []
            return BracketRound(plan.number, tuple(tables), plan.byes)
        wildcards, out = self._advance(plan, tables, outcomes, Side.UPPER)
        self.upper = [*plan.byes.get(Side.UPPER, ()), *(e for t in tables for e in t.advanced), *wildcards]
        if self.s.third_place and len(self.upper) == self.p == 2 and len(tables) == 2 and not plan.byes:
            self.third = list(out)  # the semi-finalists who lost: placed by their own match
        else:
            self._place_together(out)
        return BracketRound(plan.number, tuple(tables), plan.byes, wildcards=wildcards, eliminated=tuple(out))

    def _apply_double(self, plan: BracketRound, tables: list[Table], outcomes: Sequence[Played]) -> BracketRound:
        final = tables[0].side in (Side.GRAND_FINAL, Side.RESET)
        if final:
            order = tables[0].order
            champion = self.upper[0]
            if tables[0].side == Side.GRAND_FINAL and order[0] != champion:
                self._grand_final_lost = True
                return BracketRound(plan.number, tuple(tables), plan.byes)
            self._place_in_order(order, first=1)
            self.upper, self.lower, self.finished = [], [], True
            return BracketRound(plan.number, tuple(tables), plan.byes)
        upper_wild, dropped = self._advance(plan, tables, outcomes, Side.UPPER)
        lower_wild, out = self._advance(plan, tables, outcomes, Side.LOWER)
        upper_tables = [t for t in tables if t.side == Side.UPPER]
        lower_tables = [t for t in tables if t.side == Side.LOWER]
        self.upper = [*plan.byes.get(Side.UPPER, ()), *(e for t in upper_tables for e in t.advanced), *upper_wild]
        self.lower = [
            *plan.byes.get(Side.LOWER, ()),
            *(e for t in lower_tables for e in t.advanced),
            *lower_wild,
            *dropped,
        ]
        self._place_together(out)
        return BracketRound(
            plan.number,
            tuple(tables),
            plan.byes,
            wildcards=upper_wild + lower_wild,
            dropped=tuple(dropped),
            eliminated=tuple(out),
        )

    def _table_result(self, table: Table, outcome: Played, number: int) -> Table:
        if sorted(outcome.entrants) != sorted(table.entrants):
            raise KnockoutError(
                f"round {number}: a table was paired with {sorted(table.entrants)}, its result has "
                f"{sorted(outcome.entrants)}"
            )
        rank_of = dict(zip(outcome.entrants, outcome.ranks or (), strict=False))
        order = tuple(sorted(table.entrants, key=lambda e: (rank_of.get(e, 0), self.seed_of[e])))
        going_on = 1 if table.side in (Side.FINAL, Side.THIRD, Side.GRAND_FINAL, Side.RESET) else self.k
        return Table(table.side, table.entrants, order, order[:going_on])

    def _advance(
        self, plan: BracketRound, tables: list[Table], outcomes: Sequence[Played], side: Side
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """This side's wildcards (to fill its full count) and the rest of its non-advancers."""
        own = [(t, o) for t, o in zip(tables, outcomes, strict=True) if t.side == side]
        if not own:
            return (), ()
        going_on = len(plan.byes.get(side, ())) + sum(len(t.advanced) for t, _ in own)
        alive = going_on + sum(len(t.entrants) - len(t.advanced) for t, _ in own)
        base = (1 if side == Side.UPPER else self.p - 1) if self.s.double else self.p
        short = max(0, self._aim(alive, base) - going_on)
        rest: list[tuple[int, Fraction, int, int]] = []
        for table, outcome in own:
            score_of = dict(zip(outcome.entrants, outcome.scores, strict=False))
            # The match rank (an unplayed table's is its seed order), as the wildcards' order says.
            rank_of = dict(zip(outcome.entrants, outcome.ranks, strict=True)) if outcome.ranks else {}
            for place, entrant in enumerate(table.order[len(table.advanced) :], start=len(table.advanced) + 1):
                rank = rank_of.get(entrant, place)
                rest.append((rank, -score_of.get(entrant, Fraction(0)), self.seed_of[entrant], entrant))
        rest.sort()
        return tuple(e for *_, e in rest[:short]), tuple(e for *_, e in rest[short:])

    def _place_together(self, entrants: Iterable[int]) -> None:
        out = list(entrants)
        still_in = len(self.upper) + len(self.lower) + len(self.third)
        for entrant in out:
            self.places[entrant] = still_in + 1

    def _place_in_order(self, order: Sequence[int], *, first: int) -> None:
        for offset, entrant in enumerate(order):
            self.places[entrant] = first + offset

    def _by_seed(self, entrants: Iterable[int]) -> tuple[int, ...]:
        return tuple(sorted(entrants, key=self.seed_of.__getitem__))


def _snake(entrants: Sequence[int], tables: int) -> list[tuple[int, ...]]:
    """Deal entrants (best seed first) across ``tables`` tables as a snake: 1..T, then T..1, ..."""
    seated: list[list[int]] = [[] for _ in range(tables)]
    for i, entrant in enumerate(entrants):
        lap, offset = divmod(i, tables)
        seated[offset if lap % 2 == 0 else tables - 1 - offset].append(entrant)
    return [tuple(t) for t in seated]
