"""Pairing a rating ladder's round (tournaments/rating_pairing.py): properties over generated ladders, and
worked examples."""

from __future__ import annotations

import ast
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import rating_pairing
from tournaments.rating_pairing import LadderEntrant, Table, TableKind, pair_round, plan_round


@st.composite
def ladders(draw: st.DrawFn, min_size: int = 0) -> list[LadderEntrant]:
    ids = draw(st.lists(st.integers(1, 10_000), min_size=min_size, max_size=60, unique=True))
    return [
        LadderEntrant(
            id=entrant,
            rating=draw(st.floats(-30, 60, allow_nan=False)),
            played=draw(st.integers(0, 12)),
            last_round=draw(st.none() | st.integers(1, 20)),
        )
        for entrant in ids
    ]


settings_ = st.fixed_dictionaries(
    {
        "table_size": st.integers(2, 5),
        "batch": st.integers(0, 30),
        "placement": st.integers(0, 6),
        "exploration_percent": st.integers(0, 100),
    }
)


def plan(entrants: Sequence[LadderEntrant], seed: int = 0, **kwargs: int) -> list[Table]:
    options = {"table_size": 2, "batch": 100, "placement": 0, "exploration_percent": 0, **kwargs}
    return plan_round(entrants, rng=random.Random(seed), **options)


def waiting_key(entrant: LadderEntrant) -> tuple[bool, int, int]:
    return (entrant.last_round is not None, entrant.last_round or 0, entrant.id)


def ladder_places(entrants: Sequence[LadderEntrant]) -> dict[int, int]:
    return {e.id: i for i, e in enumerate(sorted(entrants, key=lambda e: (-e.rating, e.id)))}


def established(count: int, played: int = 10) -> list[LadderEntrant]:
    """``count`` entrants rated count .. 1 (id 1 at the top), each with ``played`` matches in round 5."""
    return [LadderEntrant(id=i, rating=float(count - i + 1), played=played, last_round=5) for i in range(1, count + 1)]


@settings(max_examples=300, deadline=None)
@given(ladders(), settings_, st.integers(0, 2**32))
def test_everyone_plays_at_most_once_at_full_tables_within_the_batch(
    entrants: list[LadderEntrant], options: dict[str, int], seed: int
) -> None:
    tables = plan(entrants, seed, **options)
    seated = [entrant for table in tables for entrant in table.seats]
    assert len(seated) == len(set(seated))
    assert set(seated) <= {e.id for e in entrants}
    assert all(len(table.seats) == options["table_size"] for table in tables)
    # As many tables as the batch allows and the entrants fill.
    assert len(tables) == min(options["batch"], len(entrants) // options["table_size"])


@settings(max_examples=300, deadline=None)
@given(ladders(), settings_, st.integers(0, 2**32))
def test_those_who_waited_longest_play_first(entrants: list[LadderEntrant], options: dict[str, int], seed: int) -> None:
    seated = {entrant for table in plan(entrants, seed, **options) for entrant in table.seats}
    playing = [e for e in entrants if e.id in seated]
    waiting = [e for e in entrants if e.id not in seated]
    if playing and waiting:
        assert max(map(waiting_key, playing)) < min(map(waiting_key, waiting))


@settings(max_examples=200, deadline=None)
@given(ladders(), settings_, st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_the_same_ladder_gives_the_same_tables_whatever_order_it_is_listed_in(
    entrants: list[LadderEntrant], options: dict[str, int], seed: int, shuffler: random.Random
) -> None:
    shuffled = list(entrants)
    shuffler.shuffle(shuffled)
    first = pair_round(entrants, rng=random.Random(seed), **options)
    assert pair_round(shuffled, rng=random.Random(seed), **options) == first
    assert pair_round(entrants, rng=random.Random(seed), **options) == first


@settings(max_examples=300, deadline=None)
@given(ladders(), settings_, st.integers(0, 2**32))
def test_a_share_of_the_tables_after_placement_is_drawn_at_random_and_the_rest_are_neighbours(
    entrants: list[LadderEntrant], options: dict[str, int], seed: int
) -> None:
    tables = plan(entrants, seed, **options)
    kinds = Counter(table.kind for table in tables)
    rest = kinds[TableKind.EXPLORATION] + kinds[TableKind.NEIGHBOURS]
    assert abs(kinds[TableKind.EXPLORATION] - rest * options["exploration_percent"] / 100) <= 0.5
    # Each placement table seats an entrant still placing, and nobody placing sits at any other table.
    placing = {e.id for e in entrants if e.played < options["placement"]}
    for table in tables:
        assert (table.kind is TableKind.PLACEMENT) == (not placing.isdisjoint(table.seats))
    # The neighbour tables cut the ladder order of the entrants they seat into consecutive runs.
    places = ladder_places(entrants)
    neighbours = sorted(
        (sorted(places[e] for e in table.seats) for table in tables if table.kind is TableKind.NEIGHBOURS),
    )
    flat = [place for table in neighbours for place in table]
    assert flat == sorted(flat)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(6, 60),
    st.integers(0, 3),
    st.integers(1, 4),
    st.integers(2, 4),
    st.integers(0, 100),
    st.integers(0, 2**32),
)
def test_a_newcomers_placement_opponents_sit_near_its_quantile_of_the_ladder(
    size: int, played: int, placement_extra: int, table_size: int, exploration: int, seed: int
) -> None:
    placement = played + placement_extra
    ladder = [*established(size), LadderEntrant(id=999, rating=0.0, played=played, last_round=4)]
    tables = plan(ladder, seed, table_size=table_size, placement=placement, exploration_percent=exploration)
    (table,) = [t for t in tables if 999 in t.seats]
    assert table.kind is TableKind.PLACEMENT
    places = ladder_places(ladder)
    target = min(len(ladder) - 1, int((played + 0.5) / placement * len(ladder)))
    others = sorted(places[e] for e in table.seats if e != 999)
    # The table-size − 1 places nearest the target among those who play, leaving out the newcomer's own.
    playing = [places[e] for t in tables for e in t.seats if e != 999]
    nearest = sorted(playing, key=lambda p: (abs(p - target), p))[: table_size - 1]
    assert others == sorted(nearest)


@settings(max_examples=300, deadline=None)
@given(ladders(), settings_, st.integers(0, 2**32))
def test_many_newcomers_in_one_round_each_meet_the_nearest_still_free_nearest_first(
    entrants: list[LadderEntrant], options: dict[str, int], seed: int
) -> None:
    tables = [t for t in plan(entrants, seed, **options) if t.kind is TableKind.PLACEMENT]
    # The rule spelled out the slow way: newcomers longest waiting first, each with the table size − 1 free
    # entrants nearest its target place (the higher place on a tie), nearest first, before seats are drawn.
    places = ladder_places(entrants)
    seats = min(len(entrants) // options["table_size"], options["batch"]) * options["table_size"]
    playing = sorted(entrants, key=waiting_key)[:seats]
    free = sorted(playing, key=lambda e: places[e.id])
    expected = []
    for newcomer in playing:
        if newcomer.played >= options["placement"] or newcomer not in free:
            continue
        free.remove(newcomer)
        target = min(len(entrants) - 1, int((newcomer.played + 0.5) / options["placement"] * len(entrants)))
        nearest = sorted(free, key=lambda e: (abs(places[e.id] - target), places[e.id]))[: options["table_size"] - 1]
        free = [e for e in free if e not in nearest]
        expected.append(sorted(e.id for e in (newcomer, *nearest)))
    assert [sorted(t.seats) for t in tables] == expected


def test_a_newcomers_four_placement_matches_meet_the_top_the_middle_and_the_bottom() -> None:
    opponents = []
    for played in range(4):
        ladder = [*established(20), LadderEntrant(id=99, rating=-5.0, played=played, last_round=None)]
        (table,) = [t for t in plan(ladder, placement=4) if 99 in t.seats]
        (opponent,) = set(table.seats) - {99}
        opponents.append(opponent)
    # 21 places: quantiles 1/8, 3/8, 5/8, 7/8 are places 2, 7, 13, 18; id 1 sits at place 0.
    assert opponents == [3, 8, 14, 19]


def test_neighbours_in_rating_order_meet_when_nothing_is_explored() -> None:
    ladder = [LadderEntrant(id=i, rating=r, played=9, last_round=3) for i, r in [(1, 5), (2, 30), (3, 10), (4, 20)]]
    assert sorted(sorted(t) for t in pair_round(ladder, **fixed(table_size=2))) == [[1, 3], [2, 4]]
    assert sorted(sorted(t) for t in pair_round(ladder, **fixed(table_size=4))) == [[1, 2, 3, 4]]


def test_the_batch_seats_the_never_played_then_the_oldest_last_round_then_the_lower_id() -> None:
    ladder = [
        LadderEntrant(id=1, rating=0, played=5, last_round=7),
        LadderEntrant(id=2, rating=0, played=5, last_round=3),
        LadderEntrant(id=3, rating=0, played=0, last_round=None),
        LadderEntrant(id=4, rating=0, played=5, last_round=3),
        LadderEntrant(id=5, rating=0, played=5, last_round=6),
        LadderEntrant(id=6, rating=0, played=5, last_round=7),
    ]
    tables = pair_round(ladder, **fixed(table_size=2, batch=2, placement=0))
    assert {e for t in tables for e in t} == {3, 2, 4, 5}


def test_fewer_entrants_than_a_table_give_no_round_and_bad_settings_are_refused() -> None:
    assert pair_round(established(2), **fixed(table_size=3)) == []
    with pytest.raises(ValueError, match="table_size"):
        pair_round(established(4), **fixed(table_size=1))
    with pytest.raises(ValueError, match="each entrant once"):
        pair_round([*established(2), *established(1)], **fixed(table_size=2))


def test_every_entrant_keeps_playing_round_after_round_when_the_batch_is_short() -> None:
    """Simulated rounds of a ladder of 25 with 4 tables a round: nobody waits more than 4 rounds."""
    last: dict[int, int | None] = {i: None for i in range(1, 26)}
    gaps: list[int] = []
    for number in range(1, 41):
        ladder = [LadderEntrant(id=i, rating=float(i % 7), played=9, last_round=last[i]) for i in last]
        for table in pair_round(ladder, **fixed(table_size=2, batch=4, exploration_percent=25, seed=number)):
            for entrant in table:
                before = last[entrant]
                gaps.append(number - (before or 0))
                last[entrant] = number
    assert all(when is not None for when in last.values())
    assert max(gaps) <= 4


def fixed(
    *, table_size: int, batch: int = 100, placement: int = 0, exploration_percent: int = 0, seed: int = 1
) -> dict[str, object]:
    return {
        "table_size": table_size,
        "batch": batch,
        "placement": placement,
        "exploration_percent": exploration_percent,
        "rng": random.Random(seed),
    }


def test_pairing_is_pure_python_with_no_django_or_service_import() -> None:
    tree = ast.parse(Path(rating_pairing.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names} | {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    }
    assert imported and not any(name.split(".")[0] in ("django", "tournaments", "league") for name in imported)
