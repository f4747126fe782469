"""A match's result in the words the person's page and a bot's page share (tournaments/result_words.py)."""

from __future__ import annotations

import pytest

from tournaments.result_words import outcome


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
