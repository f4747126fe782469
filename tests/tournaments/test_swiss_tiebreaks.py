"""Swiss tiebreaks against tournaments worked out by hand (tournaments/swiss_tiebreaks.py).

The rules for unplayed rounds are FIDE C.07 Article 16 (in the module's docstring). In the comments,
"adj" is an entrant's score as others see it (16.3) and "dummy" the opponent of an unplayed round
(16.4): the entrant's own score, at most ½ × rounds for a bye, at most the scheduled opponent's adj
for a forfeit.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from tournaments.swiss_tiebreaks import Result, Tiebreaks, tiebreaks


def game(round_: int, first: int, second: int, first_points: F) -> list[Result]:
    """A played two-player game: both entrants' results."""
    return [
        Result(round_, first, (second,), first_points),
        Result(round_, second, (first,), 1 - first_points),
    ]


def bye(round_: int, entrant: int, points: F = F(1)) -> list[Result]:
    return [Result(round_, entrant, (), points)]


def forfeit(round_: int, winner: int, absent: int) -> list[Result]:
    return [
        Result(round_, winner, (absent,), F(1), forfeit_win=True),
        Result(round_, absent, (winner,), F(0), forfeit_loss=True),
    ]


def table(round_: int, places: dict[int, int]) -> list[Result]:
    """A played multiplayer table: each entrant's pairwise score rate from the finishing order."""
    results = []
    for entrant, place in places.items():
        others = tuple(e for e in places if e != entrant)
        rate = sum((F(1) if place < places[o] else F(1, 2) if place == places[o] else F(0) for o in others), F(0))
        results.append(Result(round_, entrant, others, rate / len(others), places=places))
    return results


def tb(score: str, bh: str, cut1: str, median: str, sb: str) -> Tiebreaks:
    return Tiebreaks(F(score), F(bh), F(cut1), F(median), F(sb))


def test_five_entrants_three_rounds_with_pairing_byes() -> None:
    # R1: 1 beats 2, 3 draws 4, 5 bye.  R2: 1 draws 3, 4 beats 5, 2 bye.  R3: 1 beats 5, 2 draws 3, 4 bye.
    results = [
        *game(1, 1, 2, F(1)),
        *game(1, 3, 4, F(1, 2)),
        *bye(1, 5),
        *game(2, 1, 3, F(1, 2)),
        *game(2, 4, 5, F(1)),
        *bye(2, 2),
        *game(3, 1, 5, F(1)),
        *game(3, 2, 3, F(1, 2)),
        *bye(3, 4),
    ]
    # Scores: 1: 1+½+1 = 2½; 2: 0+1+½ = 1½; 3: ½+½+½ = 1½; 4: ½+1+1 = 2½; 5: 1+0+0 = 1 (total 9 =
    # 6 games + 3 byes). No requested byes, no forfeits: adj = score. Bye dummy cap: ½ × 3 = 1½.
    assert tiebreaks(results, bye_points=F(1)) == {
        # 1 met 2 (1½, won), 3 (1½, drew), 5 (1, won). BH 1½+1½+1 = 4; cut1 4-1 = 3;
        # median 4-1-1½ = 1½; SB 1½×1 + 1½×½ + 1×1 = 3¼.
        1: tb("5/2", "4", "3", "3/2", "13/4"),
        # 2 met 1 (2½, lost), bye in R2: dummy min(1½, 1½) = 1½ with a win, 3 (1½, drew).
        # BH 2½+1½+1½ = 5½; cut1 5½-1½ = 4; median 4-2½ = 1½; SB 0 + 1½×1 + 1½×½ = 2¼.
        2: tb("3/2", "11/2", "4", "3/2", "9/4"),
        # 3 met 4 (2½), 1 (2½), 2 (1½), drawing each. BH 6½; cut1 5; median 5-2½ = 2½; SB 6½×½ = 3¼.
        3: tb("3/2", "13/2", "5", "5/2", "13/4"),
        # 4 met 3 (1½, drew), 5 (1, won), bye in R3: own score 2½ capped to 1½, a win.
        # BH 1½+1+1½ = 4; cut1 3; median 3-1½ = 1½; SB ¾ + 1 + 1½ = 3¼.
        4: tb("5/2", "4", "3", "3/2", "13/4"),
        # 5: bye in R1, dummy min(1, 1½) = 1 with a win; lost to 4 (2½) and 1 (2½).
        # BH 1+2½+2½ = 6; cut1 5; median 5-2½ = 2½; SB 1×1 + 0 + 0 = 1.
        5: tb("1", "6", "5", "5/2", "1"),
    }


def test_forfeits_and_a_withdrawal() -> None:
    # R1: 1 beats 2, 3 beats 4.  R2: 1 beats 3; 4 does not turn up against 2 (2 wins by forfeit).
    # R3: 1 withdraws (a requested zero-point bye in the last round); 2 beats 3; 4 gets the pairing bye.
    results = [
        *game(1, 1, 2, F(1)),
        *game(1, 3, 4, F(1)),
        *game(2, 1, 3, F(1)),
        *forfeit(2, 2, 4),
        Result(3, 1, (), F(0), requested_bye=True),
        *game(3, 2, 3, F(1)),
        *bye(3, 4),
    ]
    # Scores: 1: 1+1+0 = 2; 2: 0+1+1 = 2; 3: 1+0+0 = 1; 4: 0+0+1 = 1.
    # adj (16.3): 1's R3 bye is requested and last, so it counts as a draw: 1+1+½ = 2½.
    # 2: forfeit win as awarded: 2. 3: 1. 4: forfeit loss as awarded (0), pairing bye as awarded (1): 1.
    assert tiebreaks(results, bye_points=F(1)) == {
        # 1 met 2 (adj 2, won), 3 (1, won); R3 dummy min(2, ½×3) = 1½ with a loss; R3 is voluntary.
        # BH 2+1+1½ = 4½. cut1 takes the voluntary round's 1½, not the lowest value 1 (16.5): 3.
        # median: that cut, then the highest left (2): 1. SB 2×1 + 1×1 + 1½×0 = 3.
        1: tb("2", "9/2", "3", "1", "3"),
        # 2 met 1 (adj 2½, lost); R2 forfeit win: dummy min(own 2, 4's adj 1) = 1 with a win;
        # met 3 (1, won). BH 2½+1+1 = 4½; cut1 3½; median 3½-2½ = 1; SB 0 + 1 + 1 = 2.
        2: tb("2", "9/2", "7/2", "1", "2"),
        # 3 met 4 (1, won), 1 (2½, lost), 2 (2, lost). BH 5½; cut1 4½; median 4½-2½ = 2; SB 1.
        3: tb("1", "11/2", "9/2", "2", "1"),
        # 4 met 3 (1, lost); R2 forfeit loss: dummy min(own 1, 2's adj 2) = 1 with a loss (voluntary);
        # R3 pairing bye: dummy min(1, 1½) = 1 with a win. BH 1+1+1 = 3; cut1 cuts the voluntary
        # round: 2; median 2-1 = 1; SB 0 + 0 + 1×1 = 1.
        4: tb("1", "3", "2", "1", "1"),
    }


def test_a_requested_bye_followed_by_a_real_round_counts_as_awarded_for_others() -> None:
    # R1: 1 beats 2. R2: 1 takes a requested zero-point bye, 2 gets the pairing bye (1 point).
    # R3: 1 beats 2 again (a small field). 1's R2 bye is followed by a played round (category
    # 16.2.3), so others see it as awarded (0), not as a draw: adj(1) = 1+0+1 = 2 (it would be 2½
    # if the bye were 1's last round). 2's BH: 2 + bye dummy min(own 1, ½×3) = 1, + 2 = 5.
    results = [
        *game(1, 1, 2, F(1)),
        Result(2, 1, (), F(0), requested_bye=True),
        *bye(2, 2),
        *game(3, 1, 2, F(1)),
    ]
    table_ = tiebreaks(results, bye_points=F(1))
    assert table_[2].buchholz == F(5)
    # 1: met 2 (1) twice; R2 dummy min(2, 1½) = 1½ with a loss. BH 1+1½+1 = 3½; the requested
    # bye is voluntary, so cut1 takes it: 2; median 2-1 = 1; SB 1 + 1½×0 + 1 = 2.
    assert table_[1] == tb("2", "7/2", "2", "1", "2")


def test_a_zero_point_requested_bye_at_the_end_counts_as_a_draw_for_others() -> None:
    # 2 beats 1 in R1, then 2 withdraws (R2 a zero-point requested bye) while 1 gets the pairing bye.
    # adj(2) = 1 + ½ (the withdrawal counts as a draw) = 1½, not its score 1.
    results = [*game(1, 2, 1, F(1)), Result(2, 2, (), F(0), requested_bye=True), *bye(2, 1)]
    table_ = tiebreaks(results, bye_points=F(1))
    # 1: met 2 (adj 1½, lost); R2 bye dummy min(own 1, ½×2 = 1) = 1 with a win. BH 2½; SB 1.
    assert (table_[1].buchholz, table_[1].sonneborn_berger) == (F(5, 2), F(1))


def test_multiplayer_tables_of_three() -> None:
    # Match points at a table of three: 1st 1, 2nd ½, 3rd 0; two sharing 1st get (1+½)/2 = ¾ each,
    # two sharing 2nd get (0+½)/2 = ¼ each.
    results = [
        *table(1, {1: 1, 2: 2, 3: 3}),  # 1: 1, 2: ½, 3: 0
        *table(1, {4: 1, 5: 1, 6: 3}),  # 4: ¾, 5: ¾, 6: 0
        *table(2, {4: 1, 1: 2, 6: 3}),  # 4: 1, 1: ½, 6: 0
        *table(2, {2: 1, 3: 2, 5: 2}),  # 2: 1, 3: ¼, 5: ¼
    ]
    # Scores: 1: 1½; 2: 1½; 3: ¼; 4: 1¾; 5: 1; 6: 0 (total 6: each table of three hands out 1½).
    # Each round contributes the mean over the table's two opponents.
    assert tiebreaks(results, bye_points=F(1)) == {
        # 1: R1 opponents 2 (1½), 3 (¼): mean 7/8, ahead of both: SB mean (1½+¼)/2 = 7/8.
        # R2 opponents 4 (1¾), 6 (0): mean 7/8; behind 4, ahead of 6: SB (0 + 0)/2 = 0.
        # BH 7/4; cut1 7/8; median (two rounds) 0; SB 7/8.
        1: tb("3/2", "7/4", "7/8", "0", "7/8"),
        # 2: R1 1 (1½), 3 (¼): 7/8; behind 1, ahead of 3: SB (0 + ¼)/2 = 1/8.
        # R2 3 (¼), 5 (1): 5/8; ahead of both: SB (¼+1)/2 = 5/8. BH 3/2; cut1 7/8; SB 3/4.
        2: tb("3/2", "3/2", "7/8", "0", "3/4"),
        # 3: R1 1, 2 (1½ each): 3/2, behind both: 0. R2 2 (1½), 5 (1): 5/4; behind 2, level
        # with 5: SB (0 + 1×½)/2 = 1/4. BH 11/4; cut1 3/2; SB 1/4.
        3: tb("1/4", "11/4", "3/2", "0", "1/4"),
        # 4: R1 5 (1), 6 (0): 1/2; level with 5, ahead of 6: SB (½ + 0)/2 = 1/4.
        # R2 1 (1½), 6 (0): 3/4; ahead of both: SB 3/4. BH 5/4; cut1 3/4; SB 1.
        4: tb("7/4", "5/4", "3/4", "0", "1"),
        # 5: R1 4 (1¾), 6 (0): 7/8; level with 4 (1¾×½ = 7/8), ahead of 6 (0): SB 7/16.
        # R2 2 (1½), 3 (¼): 7/8; behind 2, level with 3 (¼×½ = 1/8): SB 1/16. BH 7/4; SB 1/2.
        5: tb("1", "7/4", "7/8", "0", "1/2"),
        # 6: R1 4 (1¾), 5 (1): 11/8. R2 1 (1½), 4 (1¾): 13/8. Last at both: SB 0.
        # BH 3; cut1 13/8.
        6: tb("0", "3", "13/8", "0", "0"),
    }


def test_multiplayer_bye_and_forfeit_use_one_dummy_a_round() -> None:
    # R1: a table {1, 2, 3} in that order; 4 has the pairing bye. R2: 4 does not turn up at a table
    # with 1 and 2 (both win by forfeit, no game); 3 has the pairing bye.
    results = [
        *table(1, {1: 1, 2: 2, 3: 3}),
        *bye(1, 4),
        Result(2, 1, (2, 4), F(1), forfeit_win=True),
        Result(2, 2, (1, 4), F(1), forfeit_win=True),
        Result(2, 4, (1, 2), F(0), forfeit_loss=True),
        *bye(2, 3),
    ]
    # Scores (= adj): 1: 2; 2: 1½; 3: 1; 4: 1. Bye cap ½×2 = 1.
    table_ = tiebreaks(results, bye_points=F(1))
    # 1: R1 mean of 2 (1½) and 3 (1) = 5/4, ahead of both: SB 5/4. R2 forfeit win: dummy
    # min(own 2, mean adj of 2 and 4 = 5/4) = 5/4 with a win. BH 5/2; SB 5/2.
    assert table_[1] == tb("2", "5/2", "5/4", "0", "5/2")
    # 4: R1 bye dummy min(1, 1) = 1, a win. R2 forfeit loss: dummy min(1, (2+1½)/2) = 1, a loss,
    # voluntary, so cut1 takes it. BH 2; cut1 1; SB 1.
    assert table_[4] == tb("1", "2", "1", "0", "1")


def test_no_results_no_tiebreaks() -> None:
    assert tiebreaks([], bye_points=F(1)) == {}


def test_the_places_of_a_two_player_table_are_not_needed() -> None:
    with_places = [
        Result(1, 1, (2,), F(1), places={1: 1, 2: 2}),
        Result(1, 2, (1,), F(0), places={1: 1, 2: 2}),
    ]
    assert tiebreaks(with_places, bye_points=F(1)) == tiebreaks(game(1, 1, 2, F(1)), bye_points=F(1))


@pytest.mark.parametrize(
    ("results", "field"),
    [
        ([Result(0, 1, (), F(1))], "round"),
        ([*bye(1, 1), *bye(1, 1)], "round"),
        ([Result(1, 1, (), F(2))], "points"),
        ([Result(1, 1, (), F(1, 2))], "points"),  # a pairing bye scores bye_points
        ([Result(1, 1, (1,), F(1))], "opponents"),
        ([Result(1, 1, (2,), F(1))], "opponents"),  # 2 has no result
        ([Result(1, 1, (2,), F(1), forfeit_win=True, forfeit_loss=True), *bye(1, 2)], "forfeit_win"),
        ([Result(1, 1, (), F(1), forfeit_win=True)], "opponents"),
        ([Result(1, 1, (2,), F(0), requested_bye=True), *bye(1, 2)], "requested_bye"),
        ([Result(1, 1, (2, 3), F(1)), *bye(1, 2), *bye(1, 3)], "places"),
        ([*game(1, 1, 2, F(1))[:1], *bye(1, 2)], "opponents"),  # 1 says it played 2; 2 had a bye
    ],
)
def test_inconsistent_records_are_refused_naming_the_field(results: list[Result], field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        tiebreaks(results, bye_points=F(1))


def test_rounds_fewer_than_played_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^rounds:"):
        tiebreaks(game(3, 1, 2, F(1)), bye_points=F(1), rounds=2)


def test_rounds_raise_the_bye_cap() -> None:
    # 1 beats 2 in R1 and beats 3 in R2, bye in R3: score 3. In a 3-round event the dummy is
    # capped at 1½; declared as 9 rounds (½×9 = 4½) the dummy is the full score 3.
    results = [*game(1, 1, 2, F(1)), *bye(1, 3), *game(2, 1, 3, F(1)), *bye(2, 2), *bye(3, 1), *game(3, 2, 3, F(1, 2))]
    three_rounds = tiebreaks(results, bye_points=F(1))[1].buchholz
    nine_rounds = tiebreaks(results, bye_points=F(1), rounds=9)[1].buchholz
    assert nine_rounds - three_rounds == F(3) - F(3, 2)
