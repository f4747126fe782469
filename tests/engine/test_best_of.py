"""A best-of-N match between two ends once the trailing side can no longer catch up (engine.match.decided_early)."""

from __future__ import annotations

from engine.match import GamePlayed, decided_early, play_match
from engine.record import Record


def game(number: int, first_seat_rank: int, second_seat_rank: int) -> GamePlayed:
    """Game ``number`` with the given ranks by seat; participants rotate seats as play_match seats them."""
    seating = (number % 2, (number + 1) % 2)
    ranks = {"ranks": [first_seat_rank, second_seat_rank]}
    record = Record(game="war", seed=0, players=2, options={}, deal=None, result=ranks)
    return GamePlayed(number=number, seating=seating, record=record)


def won_by(participant: int, number: int) -> GamePlayed:
    """Game ``number`` won by ``participant`` (seat (p + g) % 2)."""
    seat = (participant + number) % 2
    return game(number, 1 if seat == 0 else 2, 1 if seat == 1 else 2)


def test_two_wins_of_three_decide_and_one_does_not() -> None:
    assert not decided_early([won_by(0, 0)], participants=2, games=3, duplicate=False)
    assert decided_early([won_by(0, 0), won_by(0, 1)], participants=2, games=3, duplicate=False)
    assert not decided_early([won_by(0, 0), won_by(1, 1)], participants=2, games=3, duplicate=False)


def test_a_gap_equal_to_the_games_left_is_not_decided_as_a_level_match_would_go_to_seeds() -> None:
    # 3-1 after four of six: two left could make it 3-3.
    played = [won_by(0, 0), won_by(0, 1), won_by(1, 2), won_by(0, 3)]
    assert not decided_early(played, participants=2, games=6, duplicate=False)
    assert decided_early([*played, won_by(0, 4)], participants=2, games=6, duplicate=False)


def test_draws_count_half_each() -> None:
    drawn = game(0, 1, 1)
    # ½ + 1 against ½ + 0 after two of three: a gap of 1 with one left is not decided.
    assert not decided_early([drawn, won_by(0, 1)], participants=2, games=3, duplicate=False)
    assert decided_early([drawn, won_by(0, 1), won_by(0, 2)], participants=2, games=4, duplicate=False)


def test_duplicate_deals_stop_only_between_rotations_and_bigger_tables_never() -> None:
    three_wins = [won_by(0, n) for n in range(3)]
    assert not decided_early(three_wins, participants=2, games=6, duplicate=True)  # mid-rotation
    assert decided_early([*three_wins, won_by(0, 3)], participants=2, games=6, duplicate=True)
    assert not decided_early(three_wins, participants=3, games=5, duplicate=False)
    assert not decided_early([won_by(0, n) for n in range(3)], participants=2, games=3, duplicate=False)  # all played


def test_play_match_stops_a_best_of_once_decided_and_plays_all_without_it() -> None:
    def agents(number: int, seating: object, seed: int) -> list[None]:
        return [None, None]

    for seed in range(20):
        full = play_match("war", participants=2, agents_for_game=agents, seats=2, games=5, seed=seed)
        short = play_match("war", participants=2, agents_for_game=agents, seats=2, games=5, seed=seed, best_of=True)
        assert len(full.games) == 5
        # The same games, up to the first point where the match was decided.
        stop = next(
            (n for n in range(1, 6) if decided_early(full.games[:n], participants=2, games=5, duplicate=False)), 5
        )
        assert len(short.games) == stop
        assert [g.record.result for g in short.games] == [g.record.result for g in full.games[:stop]]
        assert short.ranks == full.ranks or stop < 5
