"""A challenge ladder's places after a challenge (tournaments/ladder_places.py): worked examples and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.ladder_places import block, forfeit_ranking, reorder

LADDER = [10, 20, 30, 40, 50]


def test_a_challenger_who_wins_takes_the_place_and_those_between_move_down_one() -> None:
    assert reorder(LADDER, 50, {20: 2, 50: 1}) == [10, 50, 20, 30, 40]


def test_a_defender_who_wins_or_draws_keeps_the_place_and_nobody_moves() -> None:
    assert reorder(LADDER, 50, {20: 1, 50: 2}) == LADDER
    assert reorder(LADDER, 50, {20: 1, 50: 1}) == LADDER


def test_a_multiplayer_challenge_shares_its_places_out_by_the_match_s_ranking() -> None:
    # 50 challenges 20, 30 and 40 directly above; the match ranks 40, 50, 20, 30; levels keep their order.
    assert reorder(LADDER, 50, {20: 3, 30: 4, 40: 1, 50: 2}) == [10, 40, 50, 20, 30]
    assert reorder(LADDER, 50, {20: 1, 30: 1, 40: 1, 50: 1}) == LADDER


def test_a_forfeiting_defender_ranks_last_and_the_others_keep_their_order() -> None:
    assert forfeit_ranking([20, 50], {20}) == {50: 1, 20: 2}
    assert reorder(LADDER, 50, forfeit_ranking([20, 50], {20})) == [10, 50, 20, 30, 40]
    ranking = forfeit_ranking([20, 30, 40, 50], {30})
    assert reorder(LADDER, 50, ranking) == [10, 20, 40, 50, 30]


def test_the_block_is_the_span_of_the_challenge_before_and_after() -> None:
    after = reorder(LADDER, 50, {20: 2, 50: 1})
    assert block(LADDER, after, [20, 50]) == (2, [20, 30, 40, 50], [50, 20, 30, 40])


def test_entrants_not_on_the_ladder_are_refused() -> None:
    with pytest.raises(ValueError, match="not on the ladder"):
        reorder(LADDER, 60, {20: 1, 60: 2})


@st.composite
def challenges(draw: st.DrawFn) -> tuple[list[int], int, dict[int, int]]:
    size = draw(st.integers(min_value=2, max_value=12))
    ladder = draw(st.permutations(list(range(1, size + 1))))
    players = draw(st.integers(min_value=2, max_value=min(size, 5)))
    here = draw(st.integers(min_value=players - 1, max_value=size - 1))
    if players == 2:
        there = draw(st.integers(min_value=0, max_value=here - 1))
        entrants = [ladder[there], ladder[here]]
    else:
        entrants = ladder[here - players + 1 : here + 1]
    ranks = draw(st.lists(st.integers(min_value=1, max_value=players), min_size=players, max_size=players))
    return list(ladder), ladder[here], dict(zip(entrants, ranks, strict=True))


@given(challenges())
def test_a_challenge_moves_only_its_block_and_keeps_everyone_else_in_order(
    case: tuple[list[int], int, dict[int, int]],
) -> None:
    ladder, challenger, ranking = case
    after = reorder(ladder, challenger, ranking)
    assert sorted(after) == sorted(ladder)
    moved = block(ladder, after, list(ranking))
    top, bottom = moved.top_place - 1, moved.top_place - 1 + len(moved.before)
    assert after[:top] == ladder[:top] and after[bottom:] == ladder[bottom:]
    # Entrants outside the challenge keep their order among themselves.
    others = [e for e in ladder if e not in ranking]
    assert [e for e in after if e not in ranking] == others
    # Nobody in the challenge ends above someone of it who ranked strictly better.
    position = {e: i for i, e in enumerate(after)}
    for a in ranking:
        for b in ranking:
            if ranking[a] < ranking[b]:
                assert position[a] < position[b]
    # The challenger never moves down.
    assert position[challenger] <= ladder.index(challenger)
