"""Reads about one person, as their public page and their dashboard show them: their clubs, their results,
their ratings and how they fared against each opponent.

Only what standings already make public: finished matches (never a seed or a table still being played),
names and places. Each selector is a fixed number of queries however many matches the person played.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch, QuerySet

from league.models import Membership, Player
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Standing
from tournaments.result_words import outcome
from tournaments.selectors import RatingHistory, rating_points


def memberships_of(*, player: Player) -> QuerySet[Membership]:
    """The person's clubs, by name, with their role in each."""
    return Membership.objects.filter(player=player).select_related("club").order_by("club__name", "club_id")


def ratings_of(*, player: Player, limit: int | None = None) -> list[Standing]:
    """The person's rating in each competition where they have played, the most recently changed first.

    Ratings are kept per competition (each starts everyone at 25), so there is one per competition.
    """
    standings = (
        Standing.objects.filter(entrant__player=player, played__gt=0)
        .select_related("competition")
        .order_by("-updated_at", "-id")
    )
    return list(standings if limit is None else standings[:limit])


@dataclass(frozen=True)
class Opponent:
    #: As the competition's standings name them.
    name: str
    #: A person's user name, for a link to their page; empty for a bot.
    username: str


@dataclass(frozen=True)
class ResultLine:
    match_id: int
    competition: Competition
    finished_at: datetime | None
    opponents: list[Opponent]
    #: "Won", "Drew", "Lost" at a table of two; "2nd of 4" (or "2nd= of 4" when shared) at a larger one.
    outcome: str
    #: won, drawn, lost, or placed (a larger table): for the outcome's colour.
    kind: str
    #: The games' scores at a table of two playing several games ("2–1"); empty otherwise.
    score: str


def _people_seated() -> QuerySet[MatchParticipant]:
    return MatchParticipant.objects.select_related("entrant__player__user").order_by("seat")


def results_of(*, player: Player, limit: int) -> list[ResultLine]:
    """The person's latest finished matches, newest first, with who they played and how it ended. Two queries."""
    seats = (
        MatchParticipant.objects.filter(entrant__player=player, match__status=Match.Status.DONE)
        .select_related("match__competition")
        .prefetch_related(Prefetch("match__participants", queryset=_people_seated()))
        .order_by("-match__finished_at", "-match_id")[:limit]
    )
    return [_result_line(seat) for seat in seats]


def _result_line(mine: MatchParticipant) -> ResultLine:
    match = mine.match
    table = list(match.participants.all())
    others = [seat for seat in table if seat.pk != mine.pk]
    ended = outcome(mine.rank or 0, [seat.rank or 0 for seat in others])
    score = ""
    if len(table) == 2 and match.competition.games_per_match > 1 and mine.score is not None:
        score = f"{_games(mine)}–{_games(others[0])}"
    return ResultLine(
        match_id=match.pk,
        competition=match.competition,
        finished_at=match.finished_at,
        opponents=[_opponent(seat.entrant) for seat in others],
        outcome=ended.words,
        kind=ended.kind,
        score=score,
    )


def _games(seat: MatchParticipant) -> str:
    # The summed game score rates: at a table of two, games won, with a drawn game as a half.
    value = seat.score or 0
    return f"{value:.1f}".removesuffix(".0")


def _opponent(entrant: Entrant) -> Opponent:
    person = entrant.player
    return Opponent(name=entrant.name, username=person.user.get_username() if person is not None else "")


@dataclass(frozen=True)
class Record:
    """How the person fared against one opponent over every finished match they shared."""

    opponent: Opponent
    won: int
    drawn: int
    lost: int

    @property
    def played(self) -> int:
        return self.won + self.drawn + self.lost


def head_to_head_of(*, player: Player) -> list[Record]:
    """Won, drawn and lost against each person and bot the player has met, the most met first. Two queries.

    At a table of more than two, each other seat counts as a meeting: finishing ahead of it is a win, level a
    draw, behind a loss (as the competition pages' head to head counts). A person is one opponent across
    competitions; a bot is one opponent whatever its version.
    """
    mine = dict(
        MatchParticipant.objects.filter(entrant__player=player, match__status=Match.Status.DONE).values_list(
            "match_id", "rank"
        )
    )
    others = (
        MatchParticipant.objects.filter(match_id__in=list(mine))
        .exclude(entrant__player=player)
        .values_list(
            "match_id",
            "rank",
            "entrant__player_id",
            "entrant__player__display_name",
            "entrant__player__user__username",
            "entrant__bot_version__bot_id",
            "entrant__bot_version__bot__name",
        )
    )
    tallies: dict[tuple[str, int], list[int]] = {}
    names: dict[tuple[str, int], Opponent] = {}
    for match_id, rank, person_id, display_name, username, bot_id, bot_name in others:
        key = ("person", person_id) if person_id is not None else ("bot", bot_id)
        names.setdefault(key, Opponent(display_name, username) if person_id is not None else Opponent(bot_name, ""))
        mine_rank, their_rank = mine[match_id] or 0, rank or 0
        tally = tallies.setdefault(key, [0, 0, 0])
        tally[0 if mine_rank < their_rank else 1 if mine_rank == their_rank else 2] += 1
    records = [Record(names[key], *tally) for key, tally in tallies.items()]
    return sorted(records, key=lambda r: (-r.played, r.opponent.name.casefold()))


#: The most competitions a person's rating chart draws, the most recently played: more lines are unreadable.
CHART_LINES = 8


def rating_histories_of(*, player: Player) -> list[RatingHistory]:
    """The person's rating after each rated match, one history per competition, the most recently played
    first (at most ``CHART_LINES``); each history's entrant carries its competition. Two queries."""
    points = rating_points(MatchParticipant.objects.filter(entrant__player=player))
    entrants = Entrant.objects.filter(pk__in=list(points)).select_related("competition").in_bulk()

    def last_played(entrant_id: int) -> datetime:
        finished = [point.finished_at for point in points[entrant_id] if point.finished_at is not None]
        return max(finished) if finished else entrants[entrant_id].joined_at

    latest = sorted(points, key=last_played, reverse=True)[:CHART_LINES]
    return [RatingHistory(entrant=entrants[entrant_id], points=points[entrant_id]) for entrant_id in latest]
