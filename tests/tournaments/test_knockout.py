"""Knockout brackets (tournaments/knockout.py): properties over whole simulated brackets, and examples by hand.

The simulation plays a bracket the way the service does: ask for the bracket of the results so far,
play its next round (random ranks with ties, cancelled tables, scores; or the favourites winning; or
the underdogs), append and ask again until the bracket is finished. The properties are then checked
on every state the bracket went through.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from math import ceil, log2

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.knockout import (
    Bracket,
    BracketRound,
    KnockoutError,
    Played,
    Settings,
    Side,
    Table,
    bracket,
    round_count,
    settings_errors,
)

#: PROPERTY_EXAMPLES=500 for a thorough run; the suite's default keeps CI quick.
EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "120"))
PROPERTIES = settings(max_examples=EXAMPLES, deadline=None)

Result = Callable[[Table], Played]

FINAL_SIDES = (Side.FINAL, Side.GRAND_FINAL, Side.RESET)
TABLE_SIZES = st.integers(2, 6)


# --- Simulation ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    seeds: tuple[int, ...]
    settings: Settings
    played: tuple[tuple[Played, ...], ...]
    #: states[i] is the bracket after i rounds (its next_round is round i + 1); the last is finished.
    states: tuple[Bracket, ...]

    @property
    def final(self) -> Bracket:
        return self.states[-1]

    def seed_of(self, entrant: int) -> int:
        return self.seeds.index(entrant)


def favourites(table: Table) -> Played:
    """The better seed always wins: the seat order is the seed order."""
    return Played(table.entrants, tuple(range(1, len(table.entrants) + 1)))


def underdogs(table: Table) -> Played:
    """The worse seed always wins."""
    return Played(table.entrants, tuple(range(len(table.entrants), 0, -1)))


def random_results(rng: random.Random) -> Result:
    """Results in a shuffled seat order: sometimes cancelled, sometimes with tied ranks, always with scores."""

    def result(table: Table) -> Played:
        seats = list(table.entrants)
        rng.shuffle(seats)
        if rng.random() < 0.1:
            return Played(tuple(seats), None)
        top = 2 if rng.random() < 0.3 else 1_000_000  # a narrow range makes ties likely
        strength = [rng.randint(0, top) for _ in seats]
        ranks = tuple(1 + sum(other > mine for other in strength) for mine in strength)
        scores = tuple(Fraction(rng.randint(0, 12), rng.randint(1, 3)) for _ in seats)
        return Played(tuple(seats), ranks, scores)

    return result


def round_bound(entrants: int) -> int:
    return 4 * ceil(log2(entrants)) + 4


def play(seeds: Sequence[int], knockout: Settings, result: Result) -> Run:
    """Play the bracket to its end, one round at a time, as the service replays it."""
    played: list[tuple[Played, ...]] = []
    states: list[Bracket] = []
    while True:
        state = bracket(seeds, knockout, played)
        states.append(state)
        upcoming = state.next_round
        if upcoming is None:
            break
        assert upcoming.number == len(played) + 1
        assert upcoming.tables, f"round {upcoming.number} has no tables"
        assert not upcoming.played
        assert len(played) < round_bound(len(seeds)), "the bracket does not finish"
        played.append(tuple(result(table) for table in upcoming.tables))
    return Run(tuple(seeds), knockout, tuple(played), tuple(states))


@st.composite
def knockouts(draw: st.DrawFn, table_sizes: st.SearchStrategy[int] = TABLE_SIZES) -> Settings:
    size = draw(table_sizes)
    advance = draw(st.sampled_from([d for d in range(1, size) if size % d == 0]))
    double = advance == 1 and draw(st.booleans())
    third_place = size == 2 and not double and draw(st.booleans())
    return Settings(size, advance, double, third_place)


@st.composite
def entrants(draw: st.DrawFn, knockout: Settings, most: int = 70) -> list[int]:
    """Distinct ids, best seed first; not 1..n, so that an id taken for a seed shows."""
    count = draw(st.integers(knockout.table_size, most))
    ids = draw(st.permutations(range(100, 100 + 3 * count)))
    return list(ids[:count])


@st.composite
def runs(draw: st.DrawFn, table_sizes: st.SearchStrategy[int] = TABLE_SIZES, double: bool | None = None) -> Run:
    knockout = draw(knockouts(table_sizes))
    if double is not None and knockout.double != double:
        knockout = Settings(knockout.table_size, 1, double, False)
    seeds = draw(entrants(knockout))
    mode = draw(st.sampled_from(["random", "random", "random", "favourites", "underdogs"]))
    result = {"favourites": favourites, "underdogs": underdogs}.get(mode) or random_results(
        random.Random(draw(st.integers(0, 2**32)))
    )
    return play(seeds, knockout, result)


def sides(round_: BracketRound) -> dict[Side, list[Table]]:
    by_side: dict[Side, list[Table]] = {}
    for table in round_.tables:
        by_side.setdefault(table.side, []).append(table)
    return by_side


def placed_in(run: Run) -> dict[int, int]:
    """Entrant -> the round after which it first had a place."""
    when: dict[int, int] = {}
    for number, state in enumerate(run.states):
        for entrant in state.places:
            when.setdefault(entrant, number)
    return when


def played_rounds(run: Run) -> tuple[BracketRound, ...]:
    return run.final.rounds


def has_reset(run: Run) -> bool:
    return any(t.side == Side.RESET for r in played_rounds(run) for t in r.tables)


# --- Properties over whole brackets -------------------------------------------------------------


@PROPERTIES
@given(runs())
def test_the_bracket_finishes_in_a_bounded_number_of_rounds_as_round_count_says(run: Run) -> None:
    final = run.final
    assert final.finished
    assert final.next_round is None
    assert len(run.played) <= round_bound(len(run.seeds))
    assert len(final.rounds) == len(run.played)
    assert all(r.played and r.tables for r in final.rounds)
    assert [r.number for r in final.rounds] == list(range(1, len(run.played) + 1))
    # The counts at each round do not depend on who wins: only a reset adds a round.
    assert len(run.played) == round_count(len(run.seeds), run.settings) + has_reset(run)


@PROPERTIES
@given(runs())
def test_every_round_seats_full_tables_and_gives_everyone_else_still_in_a_bye(run: Run) -> None:
    size = run.settings.table_size
    for state in run.states[:-1]:
        upcoming = state.next_round
        assert upcoming is not None
        seated = [e for table in upcoming.tables for e in table.entrants]
        with_bye = [e for byes in upcoming.byes.values() for e in byes]
        assert all(len(table.entrants) == size for table in upcoming.tables)
        assert len(seated) == len(set(seated)), "someone sits at two tables"
        assert set(seated).isdisjoint(with_bye)
        assert len(with_bye) == len(set(with_bye))
        still_in = set(run.seeds) - state.places.keys()
        assert set(seated) | set(with_bye) == still_in
        # Seats are in seed order.
        for table in upcoming.tables:
            assert list(table.entrants) == sorted(table.entrants, key=run.seed_of)


@PROPERTIES
@given(runs())
def test_byes_go_to_the_best_seeds_of_their_side(run: Run) -> None:
    for round_ in played_rounds(run):
        by_side = sides(round_)
        for side, byes in round_.byes.items():
            assert byes
            seated = [e for table in by_side.get(side, []) for e in table.entrants]
            if seated:
                assert max(map(run.seed_of, byes)) < min(map(run.seed_of, seated))


@PROPERTIES
@given(runs())
def test_the_rounds_played_are_the_rounds_paired(run: Run) -> None:
    """Replaying the whole bracket pairs every round as it was paired when it was next."""
    for state, round_ in zip(run.states, played_rounds(run), strict=False):
        paired = state.next_round
        assert paired is not None
        assert [(t.side, t.entrants) for t in paired.tables] == [(t.side, t.entrants) for t in round_.tables]
        assert paired.byes == round_.byes
        assert state.rounds[:-1] == run.final.rounds[: len(state.rounds) - 1]
    for round_, outcomes in zip(played_rounds(run), run.played, strict=True):
        for table, outcome in zip(round_.tables, outcomes, strict=True):
            assert sorted(table.order) == sorted(table.entrants)
            assert table.advanced == table.order[: len(table.advanced)]
            if outcome.ranks is None:  # a cancelled table goes by seed
                assert table.order == table.entrants
            else:
                rank = dict(zip(outcome.entrants, outcome.ranks, strict=True))
                assert list(table.order) == sorted(table.entrants, key=lambda e: (rank[e], run.seed_of(e)))


@PROPERTIES
@given(runs())
def test_everyone_is_placed_in_competition_ranking_and_the_champion_won_the_final_table(run: Run) -> None:
    places = run.final.places
    assert places.keys() == set(run.seeds)
    counts = Counter(places.values())
    expected = 1
    for place in sorted(counts):
        assert place == expected, f"places {sorted(counts.items())} skip or overlap"
        expected = place + counts[place]
    assert expected == len(run.seeds) + 1
    last = played_rounds(run)[-1]
    final_table = last.tables[0]
    assert final_table.side in FINAL_SIDES
    champion = final_table.order[0]
    assert places[champion] == 1
    # The final table places its entrants one by one in its order.
    assert [places[e] for e in final_table.order] == list(range(1, run.settings.table_size + 1))


@PROPERTIES
@given(runs())
def test_an_entrant_knocked_out_earlier_is_placed_worse(run: Run) -> None:
    when = placed_in(run)
    places = run.final.places
    for a in run.seeds:
        for b in run.seeds:
            if when[a] < when[b]:
                assert places[a] > places[b], (a, b)
    # Everyone knocked out in one round shares one place, but for those the final round places one by one.
    placed_one_by_one = {e for table in played_rounds(run)[-1].tables for e in table.entrants}
    for round_ in played_rounds(run):
        assert len({places[e] for e in round_.eliminated if e not in placed_one_by_one}) <= 1


@PROPERTIES
@given(runs(double=False))
def test_single_elimination_knocks_out_everyone_off_the_final_table_once(run: Run) -> None:
    rounds = played_rounds(run)
    final_round = rounds[-1]
    assert final_round.tables[0].side == Side.FINAL
    assert len(final_round.tables) == (2 if run.settings.third_place and len(run.seeds) >= 4 else 1)
    finalists = set(final_round.tables[0].entrants)
    eliminated = [e for r in rounds for e in r.eliminated]
    assert len(eliminated) == len(set(eliminated))
    assert set(eliminated) == set(run.seeds) - finalists
    out: set[int] = set()
    for round_ in rounds:
        assert not round_.dropped
        assert all(t.side in (Side.UPPER, Side.FINAL, Side.THIRD) for t in round_.tables)
        in_play = {e for t in round_.tables if t.side != Side.THIRD for e in t.entrants}
        assert in_play.isdisjoint(out), "someone knocked out plays on"
        # Who is not eliminated goes on: advancers, wildcards and byes make the next round.
        if round_.tables[0].side == Side.UPPER:
            non_advancers = {e for t in round_.tables for e in t.order[len(t.advanced) :]}
            assert set(round_.wildcards) | set(round_.eliminated) == non_advancers
            assert set(round_.wildcards).isdisjoint(round_.eliminated)
        out |= set(round_.eliminated)
    for table in final_round.tables[1:]:
        assert table.side == Side.THIRD
        semi_finals = rounds[-2]
        assert set(table.entrants) == set(semi_finals.eliminated)
        assert [run.final.places[e] for e in table.order] == [3, 4]


@PROPERTIES
@given(runs(double=True))
def test_double_elimination_knocks_out_only_from_the_lower_bracket_after_a_drop(run: Run) -> None:
    rounds = played_rounds(run)
    dropped: set[int] = set()
    eliminated: set[int] = set()
    for round_ in rounds:
        for table in round_.tables:
            if table.side == Side.UPPER:
                assert dropped.isdisjoint(table.entrants), "a dropped entrant plays in the upper bracket"
            elif table.side == Side.LOWER:
                assert set(table.entrants) <= dropped, "an entrant plays in the lower bracket without a drop"
            else:
                assert table.side in (Side.GRAND_FINAL, Side.RESET)
                assert len(round_.tables) == 1
                assert len(set(table.entrants) - dropped) == 1, "the grand final is one upper champion v the lower"
        assert eliminated.isdisjoint(e for t in round_.tables for e in t.entrants)
        assert dropped.isdisjoint(round_.dropped), "dropped twice"
        assert set(round_.eliminated) <= dropped, "eliminated without losing before"
        upper_losers = {e for t in round_.tables if t.side == Side.UPPER for e in t.order[len(t.advanced) :]}
        lower_losers = {e for t in round_.tables if t.side == Side.LOWER for e in t.order[len(t.advanced) :]}
        assert set(round_.dropped) <= upper_losers
        assert set(round_.eliminated) <= lower_losers
        assert set(round_.dropped) | set(round_.eliminated) | set(round_.wildcards) == upper_losers | lower_losers
        dropped |= set(round_.dropped)
        eliminated |= set(round_.eliminated)
    final_table = rounds[-1].tables[0]
    assert eliminated == set(run.seeds) - set(final_table.entrants)
    # A reset is played only when the upper champion did not win the grand final, and then by the same table.
    sides_played = [r.tables[0].side for r in rounds if r.tables[0].side in (Side.GRAND_FINAL, Side.RESET)]
    assert sides_played in ([Side.GRAND_FINAL], [Side.GRAND_FINAL, Side.RESET])
    grand_final = next(r.tables[0] for r in rounds if r.tables[0].side == Side.GRAND_FINAL)
    (upper_champion,) = set(grand_final.entrants) - dropped
    assert (grand_final.order[0] != upper_champion) == (sides_played[-1] == Side.RESET)
    assert final_table.entrants == grand_final.entrants


@PROPERTIES
@given(runs(st.just(2), double=False))
def test_at_tables_of_two_byes_come_only_in_round_one_and_the_rounds_are_log2(run: Run) -> None:
    rounds = played_rounds(run)
    assert len(rounds) == ceil(log2(len(run.seeds)))
    assert all(not r.byes for r in rounds[1:])
    assert all(not r.wildcards for r in rounds)
    # After round 1 every round is full: a power of two.
    for state in run.states[1:-1]:
        upcoming = state.next_round
        assert upcoming is not None
        still_in = len(run.seeds) - len(state.places)
        assert still_in & (still_in - 1) == 0


@PROPERTIES
@given(knockouts(), st.data())
def test_with_favourites_winning_the_top_seeds_finish_in_seed_order(knockout: Settings, data: st.DataObject) -> None:
    seeds = data.draw(entrants(knockout))
    run = play(seeds, knockout, favourites)
    assert len(run.played) == round_count(len(seeds), knockout)
    places = run.final.places
    assert places[seeds[0]] == 1
    if knockout.double:
        assert not has_reset(run)
    else:
        top = 4 if knockout.third_place and len(seeds) >= 4 else knockout.table_size
        assert [places[e] for e in seeds[:top]] == list(range(1, top + 1))
    # The reverse holds as well: places never contradict the seeds.
    assert all(places[a] <= places[b] for a, b in pairwise(seeds))


@settings(max_examples=max(10, EXAMPLES // 3), deadline=None)
@given(runs())
def test_the_same_seeds_and_results_give_the_same_bracket(run: Run) -> None:
    again = [tuple(Played(p.entrants, p.ranks, p.scores) for p in outcomes) for outcomes in run.played]
    assert bracket(run.seeds, run.settings, again) == run.final
    assert bracket(list(run.seeds), run.settings, again) == bracket(run.seeds, run.settings, run.played)
    for number, state in enumerate(run.states):
        assert bracket(run.seeds, run.settings, run.played[:number]) == state


@PROPERTIES
@given(runs(), st.integers(0, 2**32))
def test_results_that_do_not_fit_the_paired_tables_are_refused(run: Run, seed: int) -> None:
    rng = random.Random(seed)
    number = rng.randrange(len(run.played))
    outcomes = list(run.played[number])
    index = rng.randrange(len(outcomes))
    before, after = list(run.played[:number]), list(run.played[number + 1 :])

    def replay(changed: Sequence[Played]) -> None:
        bracket(run.seeds, run.settings, [*before, tuple(changed), *after])

    # An entrant who was not at the table.
    table = outcomes[index]
    stranger = max(run.seeds) + 1
    wrong = Played((stranger, *table.entrants[1:]), table.ranks, table.scores)
    with pytest.raises(KnockoutError):
        replay([*outcomes[:index], wrong, *outcomes[index + 1 :]])
    # Two tables' entrants swapped.
    if len(outcomes) > 1:
        first, second = outcomes[0], outcomes[1]
        swapped = [
            Played((second.entrants[0], *first.entrants[1:]), first.ranks, first.scores),
            Played((first.entrants[0], *second.entrants[1:]), second.ranks, second.scores),
            *outcomes[2:],
        ]
        with pytest.raises(KnockoutError):
            replay(swapped)
    # A table too few or too many.
    with pytest.raises(KnockoutError):
        replay(outcomes[:-1])
    with pytest.raises(KnockoutError):
        replay([*outcomes, outcomes[-1]])


# --- Settings -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knockout", "fields"),
    [
        (Settings(4, advance=3), {"advance_count"}),  # 3 does not divide 4
        (Settings(6, advance=4), {"advance_count"}),
        (Settings(2, advance=2), {"advance_count"}),  # everyone going on
        (Settings(3, advance=5), {"advance_count"}),
        (Settings(4, advance=0), {"advance_count"}),
        (Settings(4, advance=2, double=True), {"advance_count"}),
        (Settings(4, third_place=True), {"third_place"}),
        (Settings(3, third_place=True), {"third_place"}),
        (Settings(4, advance=3, third_place=True), {"advance_count", "third_place"}),
    ],
)
def test_settings_errors_name_the_field(knockout: Settings, fields: set[str]) -> None:
    errors = settings_errors(knockout)
    assert set(errors) == fields
    assert all(errors.values())
    with pytest.raises(ValueError, match=r"."):
        bracket(range(1, 20), knockout)


def test_settings_errors_over_every_small_combination() -> None:
    for size in range(2, 9):
        for advance in range(-1, size + 2):
            for double in (False, True):
                for third_place in (False, True):
                    knockout = Settings(size, advance, double, third_place)
                    divides = 1 <= advance < size and size % advance == 0
                    expected = set()
                    if not divides or (double and advance != 1):
                        expected.add("advance_count")
                    if third_place and (size != 2 or double):
                        expected.add("third_place")
                    assert set(settings_errors(knockout)) == expected, knockout


@PROPERTIES
@given(knockouts())
def test_valid_settings_have_no_errors(knockout: Settings) -> None:
    assert settings_errors(knockout) == {}


def test_too_few_or_repeated_entrants_are_refused() -> None:
    with pytest.raises(ValueError, match="distinct"):
        bracket([1, 2, 3], Settings(4))
    with pytest.raises(ValueError, match="distinct"):
        bracket([1, 2, 2, 3], Settings(2))
    with pytest.raises(ValueError, match="distinct"):
        bracket([1], Settings(2, double=True))


# --- Examples by hand ---------------------------------------------------------------------------


def won(*order: int) -> Played:
    """A table's result: ``order`` from first to last."""
    return Played(order, tuple(range(1, len(order) + 1)))


def table_entrants(round_: BracketRound | None) -> list[tuple[Side, tuple[int, ...]]]:
    assert round_ is not None
    return [(t.side, t.entrants) for t in round_.tables]


def test_six_entrants_at_tables_of_two() -> None:
    seeds = range(1, 7)
    knockout = Settings(2)
    first = bracket(seeds, knockout)
    assert table_entrants(first.next_round) == [(Side.UPPER, (3, 6)), (Side.UPPER, (4, 5))]
    assert first.next_round is not None and first.next_round.byes == {Side.UPPER: (1, 2)}
    assert first.places == {}

    played = [(won(3, 6), won(4, 5))]
    second = bracket(seeds, knockout, played)
    assert second.rounds[0].eliminated == (5, 6)
    assert second.places == {5: 5, 6: 5}
    assert table_entrants(second.next_round) == [(Side.UPPER, (1, 4)), (Side.UPPER, (2, 3))]
    assert second.next_round is not None and second.next_round.byes == {}

    played.append((won(1, 4), won(2, 3)))
    third = bracket(seeds, knockout, played)
    assert table_entrants(third.next_round) == [(Side.FINAL, (1, 2))]

    played.append((won(2, 1),))
    done = bracket(seeds, knockout, played)
    assert done.finished and done.next_round is None
    assert done.places == {2: 1, 1: 2, 3: 3, 4: 3, 5: 5, 6: 5}
    assert round_count(6, knockout) == 3


def test_six_entrants_after_an_upset_the_top_seed_meets_the_weakest_survivor() -> None:
    played = [(won(6, 3), won(4, 5))]
    second = bracket(range(1, 7), Settings(2), played)
    assert table_entrants(second.next_round) == [(Side.UPPER, (1, 6)), (Side.UPPER, (2, 4))]


def test_eight_entrants_with_a_third_place_match() -> None:
    seeds = range(1, 9)
    knockout = Settings(2, third_place=True)
    first = bracket(seeds, knockout)
    assert table_entrants(first.next_round) == [(Side.UPPER, pair) for pair in ((1, 8), (2, 7), (3, 6), (4, 5))]
    played = [(won(1, 8), won(2, 7), won(3, 6), won(4, 5))]
    semis = bracket(seeds, knockout, played)
    assert table_entrants(semis.next_round) == [(Side.UPPER, (1, 4)), (Side.UPPER, (2, 3))]
    played.append((won(1, 4), won(2, 3)))
    last = bracket(seeds, knockout, played)
    assert last.rounds[1].eliminated == (3, 4)
    assert 3 not in last.places and 4 not in last.places  # placed by their own match
    assert last.places == {5: 5, 6: 5, 7: 5, 8: 5}
    assert table_entrants(last.next_round) == [(Side.FINAL, (1, 2)), (Side.THIRD, (3, 4))]
    played.append((won(1, 2), won(4, 3)))
    done = bracket(seeds, knockout, played)
    assert done.finished
    assert done.places == {1: 1, 2: 2, 4: 3, 3: 4, 5: 5, 6: 5, 7: 5, 8: 5}
    assert len(done.rounds) == round_count(8, knockout) == 3


def test_three_entrants_with_a_third_place_setting_have_no_third_place_match() -> None:
    knockout = Settings(2, third_place=True)
    run = play(range(1, 4), knockout, favourites)
    assert [table_entrants(r) for r in run.final.rounds] == [[(Side.UPPER, (2, 3))], [(Side.FINAL, (1, 2))]]
    assert run.final.places == {1: 1, 2: 2, 3: 3}


@pytest.mark.parametrize(("reset_winner", "places"), [(2, {2: 1, 1: 2}), (1, {1: 1, 2: 2})])
def test_a_double_elimination_of_two_resets_when_the_lower_bracket_wins_the_grand_final(
    reset_winner: int, places: dict[int, int]
) -> None:
    seeds = (1, 2)
    knockout = Settings(2, double=True)
    assert table_entrants(bracket(seeds, knockout).next_round) == [(Side.UPPER, (1, 2))]
    played = [(won(1, 2),)]
    after_upper = bracket(seeds, knockout, played)
    assert after_upper.rounds[0].dropped == (2,)
    assert after_upper.rounds[0].eliminated == ()
    assert table_entrants(after_upper.next_round) == [(Side.GRAND_FINAL, (1, 2))]
    played.append((won(2, 1),))
    reset = bracket(seeds, knockout, played)
    assert not reset.finished and reset.places == {}
    assert table_entrants(reset.next_round) == [(Side.RESET, (1, 2))]
    played.append((won(reset_winner, 3 - reset_winner),))
    done = bracket(seeds, knockout, played)
    assert done.finished and done.next_round is None
    assert done.places == places
    assert round_count(2, knockout) == 2  # without the reset


def test_a_double_elimination_of_two_ends_when_the_upper_champion_wins_the_grand_final() -> None:
    done = bracket((1, 2), Settings(2, double=True), [(won(2, 1),), (won(2, 1),)])
    assert done.finished
    assert done.places == {2: 1, 1: 2}
    assert [r.tables[0].side for r in done.rounds] == [Side.UPPER, Side.GRAND_FINAL]


def test_a_double_elimination_of_four() -> None:
    seeds = range(1, 5)
    knockout = Settings(2, double=True)
    run = play(seeds, knockout, favourites)
    assert [table_entrants(r) for r in run.final.rounds] == [
        [(Side.UPPER, (1, 4)), (Side.UPPER, (2, 3))],
        [(Side.UPPER, (1, 2)), (Side.LOWER, (3, 4))],
        [(Side.LOWER, (2, 3))],
        [(Side.GRAND_FINAL, (1, 2))],
    ]
    assert [r.dropped for r in run.final.rounds] == [(3, 4), (2,), (), ()]
    assert [r.eliminated for r in run.final.rounds] == [(), (4,), (3,), ()]
    assert run.final.rounds[2].byes == {Side.UPPER: (1,)}
    assert run.final.places == {1: 1, 2: 2, 3: 3, 4: 4}


def test_five_entrants_at_tables_of_four_advancing_one_take_the_best_runners_up_as_wildcards() -> None:
    seeds = range(1, 6)
    knockout = Settings(4)
    first = bracket(seeds, knockout)
    assert table_entrants(first.next_round) == [(Side.UPPER, (2, 3, 4, 5))]
    assert first.next_round is not None and first.next_round.byes == {Side.UPPER: (1,)}
    played = [(won(5, 3, 2, 4),)]
    second = bracket(seeds, knockout, played)
    assert second.rounds[0].tables[0].advanced == (5,)
    assert second.rounds[0].wildcards == (3, 2)
    assert second.rounds[0].eliminated == (4,)
    assert second.places == {4: 5}
    assert table_entrants(second.next_round) == [(Side.FINAL, (1, 2, 3, 5))]
    played.append((won(3, 5, 1, 2),))
    done = bracket(seeds, knockout, played)
    assert done.finished
    assert done.places == {3: 1, 5: 2, 1: 3, 2: 4, 4: 5}
    assert round_count(5, knockout) == 2


def test_wildcards_across_tables_go_by_rank_then_score_then_seed() -> None:
    """13 at tables of 6 advancing 1: seed 1 sits out, two tables, three wildcards to make the final six."""
    seeds = range(1, 14)
    knockout = Settings(6)
    first = bracket(seeds, knockout)
    assert table_entrants(first.next_round) == [
        (Side.UPPER, (2, 5, 6, 9, 10, 13)),
        (Side.UPPER, (3, 4, 7, 8, 11, 12)),
    ]
    scores = (Fraction(0),) * 6
    played = [
        (
            Played((2, 5, 6, 9, 10, 13), (1, 2, 3, 4, 5, 6), (Fraction(9), Fraction(1), Fraction(1), *scores[:3])),
            Played((3, 4, 7, 8, 11, 12), (1, 2, 3, 4, 5, 6), (Fraction(9), Fraction(1), Fraction(5, 2), *scores[:3])),
        )
    ]
    second = bracket(seeds, knockout, played)
    # The seconds (4 and 5) first, then of the thirds the better score: 7 over 6.
    assert second.rounds[0].wildcards == (4, 5, 7)
    assert table_entrants(second.next_round) == [(Side.FINAL, (1, 2, 3, 4, 5, 7))]
    # Scores level: the better seed.
    level = [tuple(Played(p.entrants, p.ranks) for p in played[0])]
    assert bracket(seeds, knockout, level).rounds[0].wildcards == (4, 5, 6)


def test_a_cancelled_table_goes_by_seed() -> None:
    played = [(Played((6, 3), None), won(5, 4))]
    second = bracket(range(1, 7), Settings(2), played)
    assert second.rounds[0].tables[0].order == (3, 6)
    assert second.rounds[0].eliminated == (4, 6)


def test_a_runner_up_tied_for_first_is_ahead_of_a_second_for_a_wildcard() -> None:
    """9 at tables of 4 advancing 1: seed 1 sits out, two tables, one wildcard to make the final four."""
    seeds = range(1, 10)
    knockout = Settings(4)
    assert table_entrants(bracket(seeds, knockout).next_round) == [
        (Side.UPPER, (2, 5, 6, 9)),
        (Side.UPPER, (3, 4, 7, 8)),
    ]
    five, nine, zero = Fraction(5), Fraction(9), Fraction(0)
    played = [
        (
            # 5 ties 2 for first (2 goes on, the better seed), match rank 1.
            Played((2, 5, 6, 9), (1, 1, 3, 4), (five, five, zero, zero)),
            # 4 is second, match rank 2, with the better score.
            Played((3, 4, 7, 8), (1, 2, 3, 4), (nine, nine - 1, zero, zero)),
        )
    ]
    assert bracket(seeds, knockout, played).rounds[0].wildcards == (5,)


def test_results_for_a_round_after_the_final_are_refused() -> None:
    with pytest.raises(KnockoutError):
        bracket((1, 2), Settings(2), [(won(1, 2),), (won(7, 8),)])
