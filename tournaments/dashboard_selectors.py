"""Reads behind the front page: the clubs and competitions a visitor can look at, and what needs a member.

What needs a member is gathered here and nowhere else; whose turn it is comes from the live tables' own
selector (``my_matches``, as ``/api/players/me/matches/`` serves it), so the page and the API never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Case, Count, IntegerField, Q, QuerySet, Value, When

from league.models import Club, JoinRequest, Membership, Player
from league.selectors import club_list
from tournaments.live_selectors import my_matches
from tournaments.models import Challenge, ChallengeSide, Competition, Match, Standing, Transcript
from tournaments.person_selectors import ResultLine, memberships_of, ratings_of, results_of

# --- For a visitor -----------------------------------------------------------------------------------------


def clubs_to_browse(*, limit: int) -> list[Club]:
    """The first clubs by name, each with ``member_count``: every club is listed publicly (/clubs/)."""
    return list(club_list()[:limit])


def club_count() -> int:
    return Club.objects.count()


def competitions_to_follow(*, limit: int) -> list[Competition]:
    """Competitions open for entry, then running ones, newest first within each; with club and ``entrant_count``."""
    return list(
        Competition.objects.filter(status__in=(Competition.Status.OPEN, Competition.Status.RUNNING))
        .select_related("club")
        .annotate(
            entrant_count=Count("entrants", distinct=True),
            open_first=Case(
                When(status=Competition.Status.OPEN, then=Value(0)), default=Value(1), output_field=IntegerField()
            ),
        )
        .order_by("open_first", "-created_at", "-id")[:limit]
    )


# --- For a member ------------------------------------------------------------------------------------------


def challenges_to_answer(*, player: Player) -> QuerySet[ChallengeSide]:
    """Challenges where the person defends and has not yet accepted, the nearest deadline first.

    Only a person answers for themself: a bot's side accepts the moment it is challenged
    (tournaments/services/challenges.py).
    """
    return (
        ChallengeSide.objects.filter(
            entrant__player=player,
            role=ChallengeSide.Role.DEFENDER,
            accepted_at__isnull=True,
            open=True,
            challenge__status=Challenge.Status.ISSUED,
        )
        .select_related("challenge__competition", "challenge__challenger")
        .order_by("challenge__deadline", "challenge_id")
    )


def _organised_competitions(player: Player) -> QuerySet[Competition]:
    """Competitions the person runs, by the rule of tournaments.selectors.competition_role: every competition
    of a club they organise, and one they are named on while a member of its club."""
    organiser_of = Membership.objects.filter(player=player, role=Membership.Role.ORGANISER).values("club_id")
    member_of = Membership.objects.filter(player=player).values("club_id")
    named_on = Competition.organisers.through.objects.filter(player=player).values("competition_id")
    return Competition.objects.filter(Q(club_id__in=organiser_of) | Q(pk__in=named_on, club_id__in=member_of))


def join_requests_to_decide(*, player: Player) -> list[Club]:
    """The clubs the person organises that have requests to join waiting, each with ``waiting``; one query."""
    organiser_of = Membership.objects.filter(player=player, role=Membership.Role.ORGANISER).values("club_id")
    return list(
        Club.objects.filter(pk__in=organiser_of)
        .annotate(waiting=Count("join_requests", filter=Q(join_requests__status=JoinRequest.Status.PENDING)))
        .filter(waiting__gt=0)
        .order_by("name", "id")
    )


def disputes_to_settle(*, player: Player) -> list[Competition]:
    """The competitions the person runs with disputed transcripts, each with ``disputes``; one query."""
    return list(
        _organised_competitions(player)
        .annotate(
            disputes=Count("matches__transcripts", filter=Q(matches__transcripts__status=Transcript.Status.DISPUTED))
        )
        .filter(disputes__gt=0)
        .order_by("name", "id")
    )


@dataclass(frozen=True)
class TableLine:
    """One of the person's live or pending matches, from the live tables' summary of it."""

    match_id: int
    competition_name: str
    round: int
    #: The game being played, from 1; None before the first starts.
    game: int | None
    live: bool
    #: The others at the table, a bot named as one.
    opponents: list[str]
    #: While it is the person's turn, when their time for it runs out.
    deadline: datetime | None = None

    @classmethod
    def of(cls, summary: dict[str, Any]) -> TableLine:
        number = summary["game_number"]
        return cls(
            match_id=summary["id"],
            competition_name=summary["competition"]["name"],
            round=summary["round"],
            game=None if number is None else number + 1,
            live=summary["status"] == Match.Status.LIVE,
            opponents=[
                f"{seat['name']} (bot)" if seat["kind"] == "bot" else seat["name"]
                for seat in summary["participants"]
                if not seat["you"]
            ],
            deadline=summary["my_deadline"],
        )


#: How many results and ratings the dashboard shows; the person's page has the rest.
LATEST = 5


@dataclass(frozen=True)
class Dashboard:
    """What needs a member, most urgent first, then what they follow."""

    my_turn: list[TableLine]
    challenges: list[ChallengeSide]
    join_requests: list[Club]
    disputes: list[Competition]
    memberships: list[Membership]
    next_matches: list[TableLine]
    results: list[ResultLine]
    ratings: list[Standing]

    @property
    def needs_me(self) -> bool:
        return bool(self.my_turn or self.challenges or self.join_requests or self.disputes)


def dashboard_of(*, player: Player | None) -> Dashboard:
    """A member's dashboard; an account with no player profile yet has nothing on it."""
    if player is None:
        return Dashboard([], [], [], [], [], [], [], [])
    matches = my_matches(player=player)
    return Dashboard(
        my_turn=[TableLine.of(match) for match in matches if match["my_turn"]],
        challenges=list(challenges_to_answer(player=player)),
        join_requests=join_requests_to_decide(player=player),
        disputes=disputes_to_settle(player=player),
        memberships=list(memberships_of(player=player)),
        next_matches=[TableLine.of(match) for match in matches if not match["my_turn"]],
        results=results_of(player=player, limit=LATEST),
        ratings=ratings_of(player=player, limit=LATEST),
    )
