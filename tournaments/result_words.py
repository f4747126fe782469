"""How one seat's match ended, in the words the pages use: Won, Drew or Lost at a table of two, a place
("2nd of 4", "2nd= of 4" when shared) at a larger one. The person's page and a bot's page say it alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    #: won, drawn, lost, or placed (a larger table): for the outcome's colour.
    kind: str
    #: "Won", "Drew", "Lost", or "2nd of 4" / "2nd= of 4".
    words: str


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def outcome(rank: int, others: list[int]) -> Outcome:
    """The outcome of a seat ranked ``rank`` (1 is first) against the other seats' ranks."""
    if len(others) == 1:
        kind = "won" if rank < others[0] else "drawn" if rank == others[0] else "lost"
        return Outcome(kind, {"won": "Won", "drawn": "Drew", "lost": "Lost"}[kind])
    shared = rank in others
    return Outcome("placed", f"{ordinal(rank)}{'=' if shared else ''} of {len(others) + 1}")


#: What each forfeit cause says of the bot that forfeited, for its owner: "it crashed".
FAILED_BY = {
    "timeout": "ran out of time",
    "crash": "crashed",
    "illegal_action": "made a move the rules do not allow",
    "bad_output": "answered with something that is not a move",
    "init_failure": "did not start",
}


def failed_by(cause: str) -> str:
    return FAILED_BY.get(cause, cause.replace("_", " "))


def listed(words: Sequence[str]) -> str:
    """ "Ann", "Ann and Ben", "Ann, Ben and Cy"; empty for none."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def places_words(ranked: Sequence[tuple[int, str]]) -> str:
    """(rank, name) pairs in rank order as "1st Ann, 2nd= Bob, 2nd= Cy": a shared place is marked =."""
    ranks = [rank for rank, _ in ranked]
    return ", ".join(f"{ordinal(rank)}{'=' if ranks.count(rank) > 1 else ''} {name}" for rank, name in ranked)


def match_words(ranked: Sequence[tuple[int, str]]) -> str:
    """How a match ended, from its (rank, name) pairs in rank order: "Ann beat Bob" or "Ann and Bob drew" at a
    table of two, its places at a larger one."""
    if len(ranked) == 2:
        (first, winner), (second, other) = ranked
        return f"{winner} and {other} drew" if first == second else f"{winner} beat {other}"
    return places_words(ranked)
