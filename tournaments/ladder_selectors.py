"""Reads for the ladders' pages (the admin competition page, the public page, the Challenge admin):
a challenge ladder's places and its history of challenges with names, and how far a rating ladder has run.

Each function costs a fixed handful of queries however long the ladder or its history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Prefetch, Q

from tournaments.models import Challenge, ChallengeSide, Competition, Entrant, Match, Round


@dataclass(frozen=True)
class OpenChallenge:
    """The open challenge an entrant is in: its id (for links), number and status, and the entrant's role."""

    id: int
    number: int
    status: str
    role: str


@dataclass(frozen=True)
class Rung:
    place: int
    entrant_id: int
    name: str
    #: "person" or "bot".
    kind: str
    challenge: OpenChallenge | None


@dataclass(frozen=True)
class LeftEntrant:
    entrant_id: int
    name: str
    kind: str
    left_at: datetime


@dataclass(frozen=True)
class ChallengeLadder:
    rungs: list[Rung]
    #: Those who left, most recent first: no place, but their results stay in the standings.
    left: list[LeftEntrant]


def _kind(entrant: Entrant) -> str:
    return "person" if entrant.player_id is not None else "bot"


def challenge_ladder(competition: Competition) -> ChallengeLadder:
    """The ladder top place first, each entrant with the open challenge it is in; two queries."""
    entrants = list(Entrant.objects.filter(competition=competition).order_by("position", "id"))
    sides = ChallengeSide.objects.filter(challenge__competition=competition, open=True).values_list(
        "entrant_id", "challenge_id", "challenge__number", "challenge__status", "role"
    )
    open_by_entrant = {
        entrant: OpenChallenge(id=challenge, number=number, status=status, role=role)
        for entrant, challenge, number, status, role in sides
    }
    rungs = [
        Rung(e.position, e.pk, e.name, _kind(e), open_by_entrant.get(e.pk)) for e in entrants if e.position is not None
    ]
    left = [LeftEntrant(e.pk, e.name, _kind(e), e.left_at) for e in entrants if e.left_at is not None]
    left.sort(key=lambda e: e.left_at, reverse=True)
    return ChallengeLadder(rungs=rungs, left=left)


@dataclass(frozen=True)
class PlaceChange:
    """One place of the block of the ladder a challenge decided: who held it before and after."""

    place: int
    before: str
    after: str

    @property
    def moved(self) -> bool:
        return self.before != self.after


@dataclass(frozen=True)
class ChallengeLine:
    challenge: Challenge
    challenger: str
    #: The defenders' names, top place first.
    defenders: list[str]
    #: Empty until the challenge is decided, and for one that ended without deciding places.
    places: list[PlaceChange]

    @property
    def anyone_moved(self) -> bool:
        return any(change.moved for change in self.places)


def place_changes(challenge: Challenge, names: Mapping[int, str]) -> list[PlaceChange]:
    """The places ``challenge`` decided, from its ``top_place`` down, with the names before and after.

    Entrant ids are stored; an id no longer in ``names`` cannot happen (entrants are never deleted from
    a running ladder), but is shown as ``#id`` rather than failing a page.
    """
    if challenge.top_place is None:
        return []
    before: Sequence[int] = challenge.places_before
    after: Sequence[int] = challenge.places_after
    return [
        PlaceChange(place=challenge.top_place + i, before=names.get(b, f"#{b}"), after=names.get(a, f"#{a}"))
        for i, (b, a) in enumerate(zip(before, after, strict=False))
    ]


def entrant_names(competition_id: int) -> dict[int, str]:
    return dict(Entrant.objects.filter(competition_id=competition_id).values_list("id", "name"))


def challenge_lines(competition: Competition, *, limit: int | None = None) -> list[ChallengeLine]:
    """The ladder's history, newest challenge first (``limit``: only the latest ones); three queries."""
    names = entrant_names(competition.pk)
    challenges = (
        Challenge.objects.filter(competition=competition)
        .order_by("-number")
        .prefetch_related(Prefetch("sides", queryset=ChallengeSide.objects.order_by("place")))
    )
    if limit is not None:
        challenges = challenges[:limit]
    return [challenge_line(challenge, names) for challenge in challenges]


def challenge_line(challenge: Challenge, names: Mapping[int, str]) -> ChallengeLine:
    """One challenge with names; its sides should be prefetched (ordered by place) when there are many."""
    sides = sorted(challenge.sides.all(), key=lambda side: side.place)
    return ChallengeLine(
        challenge=challenge,
        challenger=names.get(challenge.challenger_id, f"#{challenge.challenger_id}"),
        defenders=[names.get(s.entrant_id, f"#{s.entrant_id}") for s in sides if s.role == ChallengeSide.Role.DEFENDER],
        places=place_changes(challenge, names),
    )


@dataclass(frozen=True)
class RatingLadderProgress:
    #: Rounds beat has made so far, and how many of them are over (every match done or cancelled).
    rounds: int
    rounds_over: int
    matches_done: int
    matches_total: int
    #: Entrants who left (or whose bot was retired): they play no more and keep their rows.
    left: int


def rating_ladder_progress(competition: Competition) -> RatingLadderProgress:
    """How far the rating ladder has run; four counts, none reading row by row a history that only grows."""
    rounds = Round.objects.filter(competition=competition).count()
    open_rounds = (
        Match.objects.filter(competition=competition)
        .exclude(status__in=Match.OVER)
        .values("round_id")
        .distinct()
        .count()
    )
    matches = Match.objects.filter(competition=competition).aggregate(
        total=Count("id"), done=Count("id", filter=Q(status=Match.Status.DONE))
    )
    return RatingLadderProgress(
        rounds=rounds,
        rounds_over=rounds - open_rounds,
        matches_done=matches["done"],
        matches_total=matches["total"],
        left=Entrant.objects.filter(competition=competition, left_at__isnull=False).count(),
    )
