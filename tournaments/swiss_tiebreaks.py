"""Swiss tiebreaks (Buchholz, its cut and median variants, Sonneborn-Berger) from the pairings played.

Pure arithmetic on exact fractions: no Django, no database. ``tournaments/swiss_standings.py`` turns a
competition's recorded matches and byes into :class:`Result` rows and calls :func:`tiebreaks`.

Definitions (FIDE Handbook C.07, Play-off and Tie-Break Regulations, Articles 8.1, 9.1 and 14):

- **Buchholz** is the sum of the scores of a participant's opponents.
- **Buchholz cut 1** leaves out the least significant of those values; **median Buchholz** (FIDE's
  "Median-1") leaves out the least and then the most significant one.
- **Sonneborn-Berger** sums, over the games, the opponent's score times the points the participant
  scored against that opponent.

Unplayed rounds follow Article 16 of the regulations in force today (the version applied from
1 March 2026; it replaced the 2009 "virtual opponent" of C.02, which gave the absent player's
opponent its score before the round plus half a point for every later round). In our words:

- *Kinds of unplayed round* (16.2): a pairing-allocated bye; a forfeit win; a requested bye
  (a half- or zero-point bye the entrant asked for, or any round after withdrawing) that some later
  round of the entrant is not a "voluntary unplayed round"; a forfeit loss; and a requested bye
  that is the entrant's last round or is followed only by voluntary unplayed rounds. A *voluntary
  unplayed round* is a requested bye or a forfeit loss: a round the entrant was not there for.
- *The score others see* (16.3): when an entrant's score counts in someone else's tiebreak, each of
  its unplayed rounds counts with the points it was awarded, except the last kind above (a requested
  bye with no real round after it), which counts as a draw. So leaving early neither sinks nor
  lifts the Buchholz of those who met the entrant before.
- *The entrant's own tiebreak* (16.4): each unplayed round is a game against a dummy opponent, with
  the result the points awarded. The dummy's score is the entrant's own final score, but no more
  than the scheduled opponent's adjusted score (from 16.3) for a forfeit either way, and no more
  than a draw in every round (½ × rounds) for a bye of any kind.
- *Cutting* (16.5): when a cut removes the least significant value and the entrant has voluntary
  unplayed rounds, the lowest of those rounds' contributions is the one removed (for Buchholz it is
  never below the overall least, so such a round is always the one cut).

Generalisation to tables of more than two (our own, for the multiplayer games; with one opponent it
is exactly the rule above): a round contributes **one** value to each tiebreak, the mean over the
table's opponents. Buchholz takes the mean of the opponents' (adjusted) scores; Sonneborn-Berger the
mean of opponent score × the pairwise result against that opponent, where the pairwise result comes
from the table's finishing order (:attr:`Result.places`): 1 when ahead, ½ when level, 0 when behind.
The mean, rather than the sum, because match points are already the mean pairwise result (DESIGN.md
"Match points"), because Swiss pods can differ in size and a sum would reward sitting at a bigger
table, and because a bye or a forfeit is one dummy per round, so cuts and dummies stay per round.
A forfeit at a larger table caps the dummy by the mean adjusted score of the scheduled opponents.

A round for which an entrant has no :class:`Result` is not part of that entrant's record (an open
round, say): it adds nothing. Pass a withdrawn entrant's remaining rounds as zero-point requested byes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

ZERO = Fraction(0)
HALF = Fraction(1, 2)
ONE = Fraction(1)


@dataclass(frozen=True)
class Result:
    """One entrant's part in one round.

    ``points`` are the match points in [0, 1]: win 1, draw ½, loss 0 with one opponent; the pairwise
    score rate at a larger table. ``opponents`` is empty for a bye; for a forfeit it names the
    scheduled opponents (no game was played). ``places`` is the table's finishing order (entrant →
    place, 1 first, equal numbers for a shared place) and is needed when there is more than one
    opponent.
    """

    round: int
    entrant: int
    opponents: tuple[int, ...]
    points: Fraction
    forfeit_win: bool = False  # won because the opponent did not turn up: no game played
    forfeit_loss: bool = False  # did not turn up
    requested_bye: bool = False  # a half- or zero-point bye asked for, or a round after withdrawing
    places: Mapping[int, int] | None = None

    @property
    def played(self) -> bool:
        return bool(self.opponents) and not (self.forfeit_win or self.forfeit_loss)


@dataclass(frozen=True)
class Tiebreaks:
    score: Fraction
    buchholz: Fraction  # sum of opponents' scores
    buchholz_cut1: Fraction  # minus the least significant one
    median_buchholz: Fraction  # minus the least and the most significant one
    sonneborn_berger: Fraction  # sum of opponent's score × points scored against them


class _Kind(Enum):
    """What a round was for one entrant; the numbers are the categories of C.07 Article 16.2."""

    PLAYED = "played"
    PAIRING_BYE = "16.2.1"
    FORFEIT_WIN = "16.2.2"
    REQUESTED_BYE_THEN_PLAYED = "16.2.3"
    FORFEIT_LOSS = "16.2.4"
    REQUESTED_BYE_AT_END = "16.2.5"


#: Rounds the entrant was not there for ("voluntary unplayed rounds", 16.1.2).
_VOLUNTARY = frozenset({_Kind.REQUESTED_BYE_THEN_PLAYED, _Kind.FORFEIT_LOSS, _Kind.REQUESTED_BYE_AT_END})
_FORFEITS = frozenset({_Kind.FORFEIT_WIN, _Kind.FORFEIT_LOSS})


@dataclass(frozen=True)
class _Contribution:
    buchholz: Fraction
    sonneborn_berger: Fraction
    voluntary: bool


def tiebreaks(results: Sequence[Result], *, bye_points: Fraction, rounds: int | None = None) -> dict[int, Tiebreaks]:
    """Every entrant's tiebreaks, keyed by entrant.

    ``bye_points`` is what the competition awards a pairing-allocated bye; a bye with other points
    must say it was requested. ``rounds`` is the number of rounds in the tournament, for the dummy's
    cap of a draw a round (16.4.2); by default the highest round in ``results``.
    """
    record = _index(results, bye_points)
    rounds = max((r.round for r in results), default=0) if rounds is None else rounds
    if results and rounds < max(r.round for r in results):
        raise ValueError(f"rounds: {rounds} is fewer than the rounds in the results")

    kinds = {entrant: _kinds(by_round) for entrant, by_round in record.items()}
    score = {entrant: sum((r.points for r in by_round.values()), ZERO) for entrant, by_round in record.items()}
    # What the entrant's score counts as in the tiebreaks of others (16.3).
    adjusted = {
        entrant: sum(
            (HALF if kinds[entrant][n] is _Kind.REQUESTED_BYE_AT_END else r.points for n, r in by_round.items()), ZERO
        )
        for entrant, by_round in record.items()
    }
    # A dummy opponent in a bye is worth at most a draw in every round (16.4.2).
    bye_cap = HALF * rounds

    answer: dict[int, Tiebreaks] = {}
    for entrant, by_round in record.items():
        parts: list[_Contribution] = []
        for number, result in sorted(by_round.items()):
            kind = kinds[entrant][number]
            if kind is _Kind.PLAYED:
                parts.append(_played(result, adjusted))
                continue
            cap = _mean([adjusted[o] for o in result.opponents]) if kind in _FORFEITS else bye_cap
            dummy = min(score[entrant], cap)
            # The unplayed round is a game against the dummy with the awarded points as its result (16.4).
            parts.append(_Contribution(dummy, dummy * result.points, kind in _VOLUNTARY))
        buchholz = sum((p.buchholz for p in parts), ZERO)
        after_cut = _cut_least(parts)
        after_median = sorted(p.buchholz for p in after_cut)[:-1]
        answer[entrant] = Tiebreaks(
            score=score[entrant],
            buchholz=buchholz,
            buchholz_cut1=sum((p.buchholz for p in after_cut), ZERO),
            median_buchholz=sum(after_median, ZERO),
            sonneborn_berger=sum((p.sonneborn_berger for p in parts), ZERO),
        )
    return answer


def _index(results: Sequence[Result], bye_points: Fraction) -> dict[int, dict[int, Result]]:
    """Results by entrant and round, after checking that they make one consistent record."""
    record: dict[int, dict[int, Result]] = defaultdict(dict)
    for result in results:
        where = f"round {result.round}, entrant {result.entrant}"
        if result.round < 1:
            raise ValueError(f"round: {where}: rounds are numbered from 1")
        if result.round in record[result.entrant]:
            raise ValueError(f"round: {where}: two results for the same round")
        if not ZERO <= result.points <= ONE:
            raise ValueError(f"points: {where}: {result.points} is outside [0, 1]")
        if result.entrant in result.opponents or len(set(result.opponents)) != len(result.opponents):
            raise ValueError(f"opponents: {where}: an opponent is the entrant itself or is named twice")
        if result.forfeit_win and result.forfeit_loss:
            raise ValueError(f"forfeit_win: {where}: a forfeit is won or lost, not both")
        if (result.forfeit_win or result.forfeit_loss) and not result.opponents:
            raise ValueError(f"opponents: {where}: a forfeit names the scheduled opponents")
        if result.requested_bye and (result.opponents or result.forfeit_win or result.forfeit_loss):
            raise ValueError(f"requested_bye: {where}: a requested bye has no opponent")
        if not result.opponents and not result.requested_bye and result.points != bye_points:
            raise ValueError(f"points: {where}: a pairing bye scores {bye_points}, not {result.points}")
        if result.played and len(result.opponents) > 1:
            placed = result.places or {}
            if any(e not in placed for e in (result.entrant, *result.opponents)):
                raise ValueError(f"places: {where}: a table of more than two needs everyone's place")
        record[result.entrant][result.round] = result
    for entrant, by_round in record.items():
        for number, result in by_round.items():
            for opponent in result.opponents:
                theirs = record.get(opponent, {}).get(number)
                if theirs is None:
                    raise ValueError(f"opponents: round {number}, entrant {entrant}: {opponent} has no result")
                if result.played and not (theirs.played and entrant in theirs.opponents):
                    raise ValueError(f"opponents: round {number}: {entrant} and {opponent} disagree on their game")
    return record


def _kinds(by_round: Mapping[int, Result]) -> dict[int, _Kind]:
    """Each round's kind (16.2); a requested bye's depends on the rounds after it."""
    kinds: dict[int, _Kind] = {}
    # Walking backwards, so that we know whether a real round follows each requested bye.
    real_round_follows = False
    for number in sorted(by_round, reverse=True):
        result = by_round[number]
        if result.played:
            kind = _Kind.PLAYED
        elif result.forfeit_win:
            kind = _Kind.FORFEIT_WIN
        elif result.forfeit_loss:
            kind = _Kind.FORFEIT_LOSS
        elif result.requested_bye:
            kind = _Kind.REQUESTED_BYE_THEN_PLAYED if real_round_follows else _Kind.REQUESTED_BYE_AT_END
        else:
            kind = _Kind.PAIRING_BYE
        kinds[number] = kind
        real_round_follows = real_round_follows or kind not in _VOLUNTARY
    return kinds


def _played(result: Result, adjusted: Mapping[int, Fraction]) -> _Contribution:
    """A round played at a table: the mean over its opponents."""
    against = [_pairwise(result, opponent) for opponent in result.opponents]
    return _Contribution(
        buchholz=_mean([adjusted[o] for o in result.opponents]),
        sonneborn_berger=_mean([adjusted[o] * a for o, a in zip(result.opponents, against, strict=True)]),
        voluntary=False,
    )


def _pairwise(result: Result, opponent: int) -> Fraction:
    """The entrant's result against one opponent: its points with one opponent, else from the places."""
    if len(result.opponents) == 1:
        return result.points
    assert result.places is not None  # checked in _index
    mine, theirs = result.places[result.entrant], result.places[opponent]
    return ONE if mine < theirs else HALF if mine == theirs else ZERO


def _mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, ZERO) / len(values)


def _cut_least(parts: Sequence[_Contribution]) -> list[_Contribution]:
    """The contributions without the least significant one, or the lowest voluntary one (16.5)."""
    if not parts:
        return []
    voluntary = [p for p in parts if p.voluntary]
    cut = min(voluntary or parts, key=lambda p: p.buchholz)
    remaining = list(parts)
    remaining.remove(cut)
    return remaining
