"""Swiss pairing (tournaments/swiss.py, issue 14): properties over simulated tournaments, and examples by hand.

The properties are checked against this file's own simulation and, for small fields, against a
brute-force search over every pairing: the tiers (rematches, seat-limit breaches, score distance)
are computed here again rather than taken from the module, so a wrong weight shows up as a
pairing the search beats.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.bench_swiss import Record, play, standings
from tournaments.swiss import SwissEntrant, SwissRound, pair_swiss, seat_balance_change, swiss_rounds

# The tournament simulator is the benchmark's (tournaments/bench_swiss.py): Record, standings, play.


def tournament(count: int, table_size: int, rounds: int, seed: int) -> Iterator[tuple[list[SwissEntrant], SwissRound]]:
    """Each round's standings and pairing, results fed back in between."""
    rng = random.Random(seed)
    records = {entrant_id: Record() for entrant_id in range(1, count + 1)}
    for number in range(rounds):
        field_now = standings(records, rng)
        paired = pair_swiss(field_now, table_size=table_size, rng_seed=seed * 100 + number)
        yield field_now, paired
        play(records, paired, table_size, rng)


def entrant(
    entrant_id: int,
    score: int = 0,
    *,
    rank: int | None = None,
    met: Sequence[int] = (),
    byes: int = 0,
    balance: int = 0,
) -> SwissEntrant:
    return SwissEntrant(
        id=entrant_id,
        score=Fraction(score),
        rank=entrant_id if rank is None else rank,
        opponents=frozenset(met),
        byes=byes,
        seat_balance=balance,
    )


# --- Brute force --------------------------------------------------------------------------------


def perfect_matchings(ids: Sequence[int]) -> Iterator[list[tuple[int, int]]]:
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for index, partner in enumerate(rest):
        for tail in perfect_matchings([*rest[:index], *rest[index + 1 :]]):
            yield [(first, partner), *tail]


def tiers(pairs: Sequence[Sequence[int]], by_id: dict[int, SwissEntrant]) -> tuple[int, int, int]:
    """(rematches, seat-limit breaches at 2, sum of squared score-group distances) of a round's pairs."""
    paired = [by_id[i] for pair in pairs for i in pair]
    groups = {score: number for number, score in enumerate(sorted({e.score for e in paired}, reverse=True))}
    rematches = breaches = distance = 0
    for first_id, second_id in pairs:
        first, second = by_id[first_id], by_id[second_id]
        rematches += second_id in first.opponents
        balances = (first.seat_balance, second.seat_balance)
        breaches += min(balances) >= 2 or max(balances) <= -2
        distance += (groups[first.score] - groups[second.score]) ** 2
    return rematches, breaches, distance


def repeats(tables: Sequence[Sequence[int]], by_id: dict[int, SwissEntrant]) -> int:
    return sum(b in by_id[a].opponents for table in tables for a, b in combinations(table, 2))


def assert_everyone_once(field_now: Sequence[SwissEntrant], paired: SwissRound, table_size: int) -> None:
    seated = [i for table in paired.tables for i in table]
    assert sorted(seated + paired.byes) == sorted(e.id for e in field_now)
    assert all(len(table) == table_size for table in paired.tables)
    assert len(paired.byes) == len(field_now) % table_size
    # Nobody gets a second bye while someone has none (no (k+1)th while someone without a bye now has k).
    had = [e.byes for e in field_now if e.id in paired.byes]
    others = [e.byes for e in field_now if e.id not in paired.byes]
    assert not had or max(had) <= min(others)


# --- Properties -------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(count=st.integers(2, 24), table_size=st.integers(2, 5), seed=st.integers(0, 10_000))
def test_every_entrant_plays_once_a_round_or_has_a_bye_and_tables_are_full(
    count: int, table_size: int, seed: int
) -> None:
    if count < table_size:
        return
    for field_now, paired in tournament(count, table_size, swiss_rounds(count), seed):
        assert_everyone_once(field_now, paired, table_size)


@settings(max_examples=60, deadline=None)
@given(count=st.integers(2, 40), seed=st.integers(0, 10_000))
def test_nobody_gets_two_byes_in_a_two_player_swiss(count: int, seed: int) -> None:
    byes: dict[int, int] = {}
    for _, paired in tournament(count, 2, swiss_rounds(count), seed):
        for entrant_id in paired.byes:
            byes[entrant_id] = byes.get(entrant_id, 0) + 1
    assert all(times == 1 for times in byes.values())
    assert len(byes) == (swiss_rounds(count) if count % 2 else 0)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 9), rounds=st.integers(1, 8), seed=st.integers(0, 10_000))
def test_no_pairing_beats_ours_on_rematches_then_seat_limit_then_score(count: int, rounds: int, seed: int) -> None:
    """Brute force: run longer than a Swiss would, so rematches become hard to avoid."""
    for field_now, paired in tournament(count, 2, rounds, seed):
        by_id = {e.id: e for e in field_now}
        ours = tiers(paired.tables, by_id)
        # Given our bye, no pairing of the rest is lexicographically better on the three tiers.
        rest = sorted(i for i in by_id if i not in paired.byes)
        assert ours == min(tiers(pairs, by_id) for pairs in perfect_matchings(rest))
        # And no other bye that the rules allow (fewest byes) would have needed fewer rematches.
        fewest = min(e.byes for e in field_now)
        allowed = [e.id for e in field_now if e.byes == fewest] if count % 2 else [None]
        best = min(
            tiers(pairs, by_id)[0]
            for bye in allowed
            for pairs in perfect_matchings(sorted(i for i in by_id if i != bye))
        )
        assert ours[0] == best


@settings(max_examples=25, deadline=None)
@given(count=st.integers(4, 10), rounds=st.integers(2, 7), seed=st.integers(0, 10_000))
def test_a_narrow_window_widens_until_no_avoidable_rematch(count: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    records = {entrant_id: Record() for entrant_id in range(1, count + 1)}
    for number in range(rounds):
        field_now = standings(records, rng)
        paired = pair_swiss(field_now, table_size=2, rng_seed=number, window=1)
        by_id = {e.id: e for e in field_now}
        rest = sorted(i for i in by_id if i not in paired.byes)
        assert_everyone_once(field_now, paired, 2)
        assert tiers(paired.tables, by_id)[0] == min(tiers(pairs, by_id)[0] for pairs in perfect_matchings(rest))
        play(records, paired, 2, rng)


@settings(max_examples=60, deadline=None)
@given(balances=st.lists(st.integers(-2, 2), min_size=2, max_size=30), seed=st.integers(0, 1_000))
def test_without_rematches_in_the_way_nobody_leaves_the_seat_limit(balances: list[int], seed: int) -> None:
    """The docstring's lemma: balances in [-2, 2] summing to 0, nobody has met: nobody reaches ±3."""
    if len(balances) % 2:
        balances.append(0)
    # A real field's balances sum to 0: move some toward 0 until these do, staying in [-2, 2].
    while sum(balances) > 0:
        balances[next(i for i, b in enumerate(balances) if b > -2)] -= 1
    while sum(balances) < 0:
        balances[next(i for i, b in enumerate(balances) if b < 2)] += 1
    assert sum(balances) == 0
    rng = random.Random(seed)
    field_now = [entrant(i + 1, rng.randrange(3), balance=b) for i, b in enumerate(balances)]
    paired = pair_swiss(field_now, table_size=2, rng_seed=seed)
    by_id = {e.id: e for e in field_now}
    assert tiers(paired.tables, by_id)[1] == 0
    after = [by_id[first].seat_balance - 1 for first, _ in paired.tables]
    after += [by_id[second].seat_balance + 1 for _, second in paired.tables]
    assert all(abs(balance) <= 2 for balance in after)


def test_seat_balances_stay_within_two_over_a_64_player_swiss() -> None:
    for seed in range(3):
        balances: dict[int, int] = {}
        for field_now, paired in tournament(64, 2, swiss_rounds(64), seed):
            balances = {e.id: e.seat_balance for e in field_now}
            assert max(abs(b) for b in balances.values()) <= 2
            for table in paired.tables:
                # Whoever has sat late more sits first.
                assert balances[table[0]] >= balances[table[1]]


@settings(max_examples=40, deadline=None)
@given(count=st.integers(3, 20), table_size=st.integers(3, 5), rounds=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_no_single_swap_between_pods_removes_a_repeated_opponent(
    count: int, table_size: int, rounds: int, seed: int
) -> None:
    if count < table_size:
        return
    for field_now, paired in tournament(count, table_size, rounds, seed):
        by_id = {e.id: e for e in field_now}
        tables = [list(table) for table in paired.tables]
        ours = repeats(tables, by_id)
        for here, there in combinations(range(len(tables)), 2):
            for i in range(table_size):
                for j in range(table_size):
                    swapped = [list(t) for t in tables]
                    swapped[here][i], swapped[there][j] = tables[there][j], tables[here][i]
                    assert repeats(swapped, by_id) >= ours
        # And never worse than simply cutting the standings into consecutive tables.
        playing = [e.id for e in field_now if e.id not in paired.byes]
        naive = [playing[start : start + table_size] for start in range(0, len(playing), table_size)]
        assert ours <= repeats(naive, by_id)
        # Whoever has sat late most sits first.
        for table in paired.tables:
            seats = [by_id[i].seat_balance for i in table]
            assert seats == sorted(seats, reverse=True)


@settings(max_examples=30, deadline=None)
@given(count=st.integers(2, 30), table_size=st.integers(2, 4), seed=st.integers(0, 1_000))
def test_the_same_standings_and_seed_give_the_same_round_in_any_input_order(
    count: int, table_size: int, seed: int
) -> None:
    if count < table_size:
        return
    for number, (field_now, paired) in enumerate(tournament(count, table_size, 3, seed)):
        shuffled = list(field_now)
        random.Random(seed).shuffle(shuffled)
        # tournament() paired this round with the seed seed * 100 + number.
        assert pair_swiss(shuffled, table_size=table_size, rng_seed=seed * 100 + number) == paired
        assert pair_swiss(field_now, table_size=table_size, rng_seed=seed * 100 + number) == paired


def test_the_seed_breaks_ties() -> None:
    field_now = [entrant(i) for i in range(1, 9)]
    rounds = {tuple(pair_swiss(field_now, table_size=2, rng_seed=seed).tables) for seed in range(20)}
    assert len(rounds) > 1


# --- Worked examples ----------------------------------------------------------------------------


def test_round_two_winners_meet_winners_top_half_against_bottom_half() -> None:
    """Round 1: 1-5, 2-6, 3-7, 4-8, the first four won; 1, 2, 7, 8 sat first (balance -1), the rest last (+1).

    Round 2: winners 1-4 fold to 1-3, 2-4; losers 5-8 to 5-7, 6-8. Each table's late-sitter (+1)
    sits first: 3 before 1, 4 before 2, 5 before 7, 6 before 8.
    """
    field_now = [
        entrant(1, 1, met=[5], balance=-1),
        entrant(2, 1, met=[6], balance=-1),
        entrant(3, 1, met=[7], balance=1),
        entrant(4, 1, met=[8], balance=1),
        entrant(5, 0, met=[1], balance=1),
        entrant(6, 0, met=[2], balance=1),
        entrant(7, 0, met=[3], balance=-1),
        entrant(8, 0, met=[4], balance=-1),
    ]
    paired = pair_swiss(field_now, table_size=2, rng_seed=0)
    assert paired == SwissRound(tables=[(3, 1), (4, 2), (5, 7), (6, 8)], byes=[])


@pytest.mark.parametrize("seed", range(8))
def test_the_lowest_winner_floats_down_to_the_top_loser(seed: int) -> None:
    """Round 1: 1-6, 2-7, 3-8, 4-9, 5-10, 1-5 won. Five winners: 5, the lowest, meets 6, the top loser.

    The rest fold: 1-3, 2-4 among the winners, 7-9, 8-10 among the losers.
    """
    field_now = [entrant(i, 1, met=[i + 5]) for i in range(1, 6)] + [entrant(i, 0, met=[i - 5]) for i in range(6, 11)]
    paired = pair_swiss(field_now, table_size=2, rng_seed=seed)
    expected = {frozenset(p) for p in [(5, 6), (1, 3), (2, 4), (7, 9), (8, 10)]}
    assert {frozenset(table) for table in paired.tables} == expected


def test_when_the_lowest_cannot_float_the_next_lowest_does() -> None:
    """1, 2, 3 on one point, 1 and 2 have met: 3 must meet 1, and 2 (not 1) floats down to 4."""
    field_now = [entrant(1, 1, met=[2]), entrant(2, 1, met=[1]), entrant(3, 1), entrant(4), entrant(5), entrant(6)]
    paired = pair_swiss(field_now, table_size=2, rng_seed=0)
    assert {frozenset(table) for table in paired.tables} == {frozenset(p) for p in [(1, 3), (2, 4), (5, 6)]}


def test_a_block_that_can_only_pair_with_a_rematch_is_merged_with_the_next() -> None:
    """100 entrants in two groups of 50 (matched apart); 1 has met the rest of its group, so it must float down."""
    field_now = [entrant(1, 1, met=range(2, 51))] + [entrant(i, 1, met=[1]) for i in range(2, 51)]
    field_now += [entrant(i, 0) for i in range(51, 101)]
    paired = pair_swiss(field_now, table_size=2, rng_seed=0)
    assert repeats(paired.tables, {e.id: e for e in field_now}) == 0
    assert next(a + b - 1 for a, b in paired.tables if 1 in (a, b)) > 50


def test_a_large_level_field_folds_top_half_against_bottom_half() -> None:
    """Round 1 of 200 (one score group, cut into blocks along its fold): the 1st meets the 101st, and so on."""
    paired = pair_swiss([entrant(i) for i in range(1, 201)], table_size=2, rng_seed=0)
    assert {frozenset(table) for table in paired.tables} == {frozenset((i, i + 100)) for i in range(1, 101)}
    assert [min(table) for table in paired.tables] == list(range(1, 101))


def test_a_rematch_is_avoided_even_across_score_groups() -> None:
    """Round 3 of four: 1 beat 2 and 3, 3 beat 4, 2 beat 4. Score says 1-2 or 1-3; both are rematches."""
    field_now = [
        entrant(1, 2, met=[2, 3]),
        entrant(2, 1, met=[1, 4]),
        entrant(3, 1, met=[4, 1]),
        entrant(4, 0, met=[3, 2]),
    ]
    paired = pair_swiss(field_now, table_size=2, rng_seed=3)
    assert {frozenset(table) for table in paired.tables} == {frozenset((1, 4)), frozenset((2, 3))}


def test_an_unavoidable_rematch_is_made_rather_than_leave_anyone_out() -> None:
    field_now = [entrant(1, 1, met=[2]), entrant(2, 0, met=[1])]
    assert pair_swiss(field_now, table_size=2, rng_seed=0).tables in ([(1, 2)], [(2, 1)])


def test_the_bye_goes_to_the_lowest_placed_of_those_without_one() -> None:
    # Standing order is score first: 1, 2, 3, 5, 4; 4 is last and has had no bye.
    field_now = [entrant(1, 2), entrant(2, 1), entrant(3, 1), entrant(4, 0), entrant(5, 1, byes=1)]
    assert pair_swiss(field_now, table_size=2, rng_seed=0).byes == [4]
    had_one = [entrant(1, 2), entrant(2, 1), entrant(3, 1), entrant(4, 1, byes=1), entrant(5, 0)]
    assert pair_swiss(had_one, table_size=2, rng_seed=0).byes == [5]
    last_had_one = [entrant(1, 2), entrant(2, 1), entrant(3, 1), entrant(4, 0), entrant(5, 0, byes=1)]
    assert pair_swiss(last_had_one, table_size=2, rng_seed=0).byes == [4]


def test_the_seat_limit_outranks_score_groups_and_can_be_turned_off() -> None:
    """1 and 2 (score 1) have both sat late twice more than early; 3 and 4 (score 0) early twice more."""
    field_now = [
        entrant(1, 1, balance=2),
        entrant(2, 1, balance=2),
        entrant(3, 0, balance=-2),
        entrant(4, 0, balance=-2),
    ]
    limited = pair_swiss(field_now, table_size=2, rng_seed=0)
    assert all({a, b} & {1, 2} and {a, b} & {3, 4} for a, b in limited.tables)
    assert [table[0] for table in limited.tables] == [1, 2]
    by_score = pair_swiss(field_now, table_size=2, rng_seed=0, seat_limit=None)
    assert {frozenset(table) for table in by_score.tables} == {frozenset((1, 2)), frozenset((3, 4))}


def test_pods_swap_to_avoid_repeated_opponents() -> None:
    """Round 1 was 1-2-3, 4-5-6, 7-8-9; the standings (all level) would cut 1-2-4, 5-7-8, 3-6-9."""
    tables = [(1, 2, 3), (4, 5, 6), (7, 8, 9)]
    met = {i: [j for table in tables if i in table for j in table if j != i] for i in range(1, 10)}
    order = [1, 2, 4, 5, 7, 8, 3, 6, 9]
    field_now = [entrant(i, 0, rank=order.index(i) + 1, met=met[i]) for i in range(1, 10)]
    paired = pair_swiss(field_now, table_size=3, rng_seed=0)
    assert all(len(table) == 3 for table in paired.tables)
    assert repeats(paired.tables, {e.id: e for e in field_now}) == 0
    assert paired.byes == []


def test_pods_seat_the_late_sitters_first_and_give_the_remainder_byes() -> None:
    field_now = [
        entrant(1, 3, balance=-3),
        entrant(2, 2, balance=3),
        entrant(3, 1, balance=-1),
        entrant(4, 1, balance=1),
    ]
    field_now += [entrant(5, 0, byes=1), entrant(6, 0)]
    paired = pair_swiss(field_now, table_size=4, rng_seed=0)
    # Two byes: 6 (last, none yet), then 4, the lowest placed of the others without one (5 has had one).
    assert paired.byes == [4, 6]
    # Seats by balance, highest first: 2 (+3), 5 (0), 3 (-1), 1 (-3).
    assert paired.tables == [(2, 5, 3, 1)]


def test_impossible_input_is_refused_naming_the_problem() -> None:
    with pytest.raises(ValueError, match="table_size must be at least 2"):
        pair_swiss([entrant(1), entrant(2)], table_size=1, rng_seed=0)
    with pytest.raises(ValueError, match=r"duplicate entrant ids: \[2\]"):
        pair_swiss([entrant(1), entrant(2), entrant(2)], table_size=2, rng_seed=0)
    with pytest.raises(ValueError, match="3 entrants cannot fill a table of 4"):
        pair_swiss([entrant(1), entrant(2), entrant(3)], table_size=4, rng_seed=0)
    with pytest.raises(ValueError, match="1 entrants cannot fill a table of 2"):
        pair_swiss([entrant(1)], table_size=2, rng_seed=0)


@pytest.mark.parametrize(
    ("count", "rounds"),
    [(0, 1), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (128, 7), (1024, 10), (1025, 11)],
)
def test_the_standard_number_of_rounds_is_ceil_log2(count: int, rounds: int) -> None:
    assert swiss_rounds(count) == rounds


def test_a_seat_s_balance_term() -> None:
    assert [seat_balance_change(seat, 2) for seat in range(2)] == [-1, 1]
    assert [seat_balance_change(seat, 4) for seat in range(4)] == [-3, -1, 1, 3]


def test_pairing_and_its_benchmark_load_no_django() -> None:
    """The integrator calls it from the service, but it is pure: networkx and the standard library only."""
    probe = (
        "import sys, tournaments.swiss, tournaments.bench_swiss; "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'league', 'config', 'engine')); "
        "print(loaded); sys.exit(1 if loaded else 0)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
