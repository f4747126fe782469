"""A match's result in the words the person's page and a bot's page share (tournaments/result_words.py)."""

from __future__ import annotations

import pytest

from tournaments.result_words import match_words, outcome, places_words


@pytest.mark.parametrize(
    ("rank", "others", "kind", "words"),
    [
        (1, [2], "won", "Won"),
        (2, [1], "lost", "Lost"),
        (1, [1], "drawn", "Drew"),
        (2, [1, 3, 4], "placed", "2nd of 4"),
        (1, [1, 3], "placed", "1st= of 3"),
        (11, [*range(1, 11)], "placed", "11th of 11"),
        (3, [1, 2], "placed", "3rd of 3"),
        (22, [*range(1, 22)], "placed", "22nd of 22"),
    ],
)
def test_a_match_result_reads_as_people_say_it(rank: int, others: list[int], kind: str, words: str) -> None:
    ended = outcome(rank, others)
    assert (ended.kind, ended.words) == (kind, words)


def test_a_match_in_words_says_who_beat_whom_a_draw_or_the_places_with_shared_ones_marked() -> None:
    assert match_words([(1, "Ann"), (2, "Bob")]) == "Ann beat Bob"
    assert match_words([(1, "Ann"), (1, "Bob")]) == "Ann and Bob drew"
    assert match_words([(1, "Ann"), (2, "Bob"), (2, "Cy")]) == "1st Ann, 2nd= Bob, 2nd= Cy"
    assert places_words([(1, "Ann"), (2, "Bob")]) == "1st Ann, 2nd Bob"
