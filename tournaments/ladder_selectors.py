"""Reads for the ladders' pages (the admin competition page, the public page, the Challenge admin):
a challenge ladder's places and its history of challenges with names, and how far a rating ladder has run.

Each function costs a fixed handful of queries however long the ladder or its history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, F, Prefetch, Q
from django.utils import dateformat, timezone

from tournaments.ladder_places import within_reach
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
    #: The person on this rung (None for a bot): whose place it is, for the page of the person looking.
    player_id: int | None = None
    #: A bot version suspended for forfeiting most of its recent games: nobody may challenge it for now.
    suspended: bool = False


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
    # The suspension comes with the entrants' rows (a join, not a query).
    entrants = list(
        Entrant.objects.filter(competition=competition)
        .annotate(suspended_at=F("bot_version__suspended_at"))
        .order_by("position", "id")
    )
    sides = ChallengeSide.objects.filter(challenge__competition=competition, open=True).values_list(
        "entrant_id", "challenge_id", "challenge__number", "challenge__status", "role"
    )
    open_by_entrant = {
        entrant: OpenChallenge(id=challenge, number=number, status=status, role=role)
        for entrant, challenge, number, status, role in sides
    }
    rungs = [
        Rung(
            e.position,
            e.pk,
            e.name,
            _kind(e),
            open_by_entrant.get(e.pk),
            e.player_id,
            e.suspended_at is not None,
        )
        for e in entrants
        if e.position is not None
    ]
    left = [LeftEntrant(e.pk, e.name, _kind(e), e.left_at) for e in entrants if e.left_at is not None]
    left.sort(key=lambda e: e.left_at, reverse=True)
    return ChallengeLadder(rungs=rungs, left=left)


@dataclass(frozen=True)
class OwnChallenge:
    """The open challenge the person looking is in, as their page shows it."""

    id: int
    number: int
    status: str
    #: "challenger" or "defender": the person's side.
    role: str
    #: The other sides' names, top place first.
    others: list[str]
    deadline: datetime
    #: The deadline as people read it ("Tue 1 Dec, 18:00 UTC").
    deadline_text: str
    #: The deadline from now, in words ("in 2 days"; "passed").
    due_in: str
    #: Whether the person's side has accepted (a challenger's always has).
    accepted: bool
    #: The other sides still to accept, by name.
    waiting_for: list[str]
    match_id: int | None


@dataclass(frozen=True)
class OwnPlace:
    """The person looking, on a challenge ladder: their rung, whom they may challenge, their open challenge."""

    entrant_id: int
    place: int
    #: The rungs a Challenge button is offered on: within reach and in no open challenge (none while the
    #: person is in one). In a game of more than two, the whole table directly above, or nobody.
    challengeable: frozenset[int]
    #: More than two at a table: the names directly above, whom one challenge takes on together.
    table_above: list[str]
    challenge: OwnChallenge | None


#: How a deadline is written for people ("Tue 1 Dec, 18:00 UTC"), on the pages and in their messages.
DEADLINE_FORMAT = "D j M, H:i T"


def plain_deadline(deadline: datetime) -> str:
    return dateformat.format(timezone.localtime(deadline), DEADLINE_FORMAT)


def in_words(deadline: datetime, now: datetime) -> str:
    """A deadline from ``now`` in a person's words, to the nearest unit: "in 2 days", "in 5 hours"; "passed"."""
    seconds = (deadline - now).total_seconds()
    if seconds <= 0:
        return "passed"
    for unit, length in (("day", 86400), ("hour", 3600), ("minute", 60)):
        # Rounded, not floored: a deadline 1 day 23 hours away is "in 2 days", not "in 1 day".
        count = round(seconds / length)
        if count >= 2 or (count == 1 and seconds >= length):
            return f"in {count} {unit}{'s' if count > 1 else ''}"
    return "in less than a minute"


def own_place(ladder: ChallengeLadder, *, player_id: int, reach: int, players: int) -> OwnPlace | None:
    """The person ``player_id``'s place on ``ladder`` (as challenge_ladder read it), or None if they have none;
    at most two more queries (their open challenge and its sides)."""
    mine = next((rung for rung in ladder.rungs if rung.player_id == player_id), None)
    if mine is None:
        return None
    order = [rung.entrant_id for rung in ladder.rungs]
    within = within_reach(order, mine.entrant_id, reach=reach, players=players)
    # A suspended bot is offered to nobody, and challenges nobody (services/challenges.py refuses both).
    free = {rung.entrant_id for rung in ladder.rungs if rung.challenge is None and not rung.suspended}
    challengeable: frozenset[int] = frozenset()
    if mine.challenge is None and not mine.suspended:
        if players > 2:
            challengeable = frozenset(within) if within and free.issuperset(within) else frozenset()
        else:
            challengeable = frozenset(e for e in within if e in free)
    names = {rung.entrant_id: rung.name for rung in ladder.rungs}
    return OwnPlace(
        entrant_id=mine.entrant_id,
        place=mine.place,
        challengeable=challengeable,
        # In ladder order: a set's order is its hash's, which follows the ids ("Cat and Bob" for some of them).
        table_above=[names[e] for e in within if e in challengeable] if players > 2 else [],
        challenge=None if mine.challenge is None else _own_challenge(mine.challenge.id, mine.entrant_id),
    )


def _own_challenge(challenge_id: int, entrant_id: int) -> OwnChallenge:
    challenge = Challenge.objects.prefetch_related(
        Prefetch("sides", queryset=ChallengeSide.objects.select_related("entrant").order_by("place"))
    ).get(pk=challenge_id)
    sides = list(challenge.sides.all())
    own = next(side for side in sides if side.entrant_id == entrant_id)
    others = [side for side in sides if side.entrant_id != entrant_id]
    return OwnChallenge(
        id=challenge.pk,
        number=challenge.number,
        status=challenge.status,
        role=own.role,
        others=[side.entrant.name for side in others],
        deadline=challenge.deadline,
        deadline_text=plain_deadline(challenge.deadline),
        due_in=in_words(challenge.deadline, timezone.now()),
        accepted=own.accepted_at is not None,
        waiting_for=[side.entrant.name for side in others if side.accepted_at is None],
        match_id=challenge.match_id,
    )


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
