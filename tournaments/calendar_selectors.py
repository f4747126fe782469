"""Reads behind the calendar feeds: a person's matches, challenge deadlines and rounds; a club's competitions
and rounds.

Each list is one query however long the history (two for the lists whose rows name their people), bounded to
what a calendar needs: everything not over yet, and what ended in the last HISTORY_DAYS, up to a cap. Rows
are read with ``only()`` the columns an event shows, so a match's seed and salt are never even loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Exists, Max, OuterRef, Prefetch, Q, QuerySet
from django.utils import timezone

from league.models import Club, Player
from tournaments.calendar_tokens import token_hash, token_of
from tournaments.formats.registry import all_formats
from tournaments.models import (
    CalendarFeed,
    Challenge,
    ChallengeSide,
    Competition,
    Entrant,
    Match,
    MatchParticipant,
    Round,
)

#: How far back a feed reaches: calendar apps keep what they have already shown.
HISTORY_DAYS = 180
#: The most events of each kind one feed lists, newest first: a feed is fetched every few hours by every
#: subscriber, and must stay a small answer.
MATCHES_SHOWN = 300
ROUNDS_SHOWN = 300
COMPETITIONS_SHOWN = 200

#: The competition columns an event uses (names, clocks and how people play).
_COMPETITION_FIELDS = (
    "id",
    "name",
    "game",
    "format",
    "status",
    "people_play",
    "move_seconds",
    "game_seconds",
    "games_per_match",
    "players_per_match",
    "created_at",
    "started_at",
    "finished_at",
    "club_id",
    "club__id",
    "club__name",
    "club__slug",
)


# --- The address ---------------------------------------------------------------------------------------------


def calendar_feed_owner(*, token: str) -> Player | None:
    """Whose calendar address this is, or None (unknown, or replaced by a newer one); one query."""
    feed = CalendarFeed.objects.select_related("player").filter(token_hash=token_hash(token)).first()
    return None if feed is None else feed.player


def calendar_token_of(*, player: Player) -> str | None:
    """The person's current calendar token, for their own page only; None until they make one."""
    nonce = CalendarFeed.objects.filter(player=player).values_list("nonce", flat=True).first()
    return None if nonce is None else token_of(nonce)


# --- A person's feed -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PersonCalendar:
    matches: list[Match]
    challenges: list[Challenge]
    rounds: list[Round]


def _within_history(now: datetime, field: str = "created_at") -> Q:
    """Rows whose ``field`` falls within the history a feed keeps (callers add "or not over yet")."""
    return Q(**{f"{field}__gte": now - timedelta(days=HISTORY_DAYS)})


def _round_competitions() -> list[str]:
    """Formats whose rounds are worth a calendar entry: those that finish by themselves. A ladder's "rounds"
    are its challenges' single matches, listed as matches and challenges already."""
    return [format.key for format in all_formats() if format.ends_by_itself]


def person_matches(*, player: Player, now: datetime) -> list[Match]:
    """The matches the person sits at (not their bots': those are the bots' business), not cancelled, with
    ``participants`` (and each one's entrant) prefetched; two queries."""
    mine = MatchParticipant.objects.filter(entrant__player=player).values("match_id")
    matches = (
        Match.objects.filter(pk__in=mine)
        .exclude(status=Match.Status.CANCELLED)
        .filter(_within_history(now) | ~Q(status__in=Match.OVER))
        .select_related("competition__club", "round")
        .only(
            "id",
            "number",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "round__id",
            "round__number",
            *(f"competition__{name}" for name in _COMPETITION_FIELDS),
        )
        .prefetch_related(
            Prefetch(
                "participants",
                queryset=MatchParticipant.objects.select_related("entrant")
                .only(
                    "id",
                    "match_id",
                    "seat",
                    "entrant__id",
                    "entrant__name",
                    "entrant__player_id",
                    "entrant__bot_version_id",
                )
                .order_by("seat"),
            )
        )
        .order_by("-created_at", "-id")
    )
    return list(matches[:MATCHES_SHOWN])


def person_challenges(*, player: Player) -> list[Challenge]:
    """Open challenges the person is in (either side) or issued, with ``sides`` prefetched; two queries. Only
    open ones: a decided challenge has no deadline left, and leaving the feed takes it off the calendar."""
    sides = ChallengeSide.objects.filter(entrant__player=player).values("challenge_id")
    return list(
        Challenge.objects.filter(Q(pk__in=sides) | Q(issued_by=player), status__in=Challenge.OPEN)
        .select_related("competition__club", "challenger")
        .only(
            "id",
            "number",
            "status",
            "deadline",
            "issued_at",
            "challenger__id",
            "challenger__name",
            *(f"competition__{name}" for name in _COMPETITION_FIELDS),
        )
        .prefetch_related(
            Prefetch(
                "sides",
                queryset=ChallengeSide.objects.select_related("entrant")
                .only("id", "challenge_id", "role", "place", "entrant__id", "entrant__name", "entrant__player_id")
                .order_by("place"),
            )
        )
        .order_by("deadline", "id")
    )


def _rounds(competitions: QuerySet[Competition], now: datetime) -> list[Round]:
    """The rounds of these competitions (not cancelled, of formats with rounds), each with ``matches_left``
    (not over), ``match_count`` and ``last_finished_at``; one query."""
    # The window is a WHERE, not a HAVING on the counts: a club with years of rounds counts only the few kept.
    under_way = Exists(Match.objects.filter(round=OuterRef("pk")).exclude(status__in=Match.OVER))
    return list(
        Round.objects.filter(competition__in=competitions, competition__format__in=_round_competitions())
        .exclude(competition__status=Competition.Status.CANCELLED)
        .filter(_within_history(now) | Q(under_way))
        .annotate(
            matches_left=Count("matches", filter=~Q(matches__status__in=Match.OVER)),
            match_count=Count("matches"),
            last_finished_at=Max("matches__finished_at"),
        )
        .select_related("competition__club")
        .only("id", "number", "created_at", *(f"competition__{name}" for name in _COMPETITION_FIELDS))
        .order_by("-created_at", "-id")[:ROUNDS_SHOWN]
    )


def person_rounds(*, player: Player, now: datetime) -> list[Round]:
    """The rounds of the competitions the person entered, themself or with one of their bots."""
    entered = Entrant.objects.filter(Q(player=player) | Q(bot_version__bot__owner=player)).values("competition_id")
    return _rounds(Competition.objects.filter(pk__in=entered), now)


def person_calendar(*, player: Player, now: datetime | None = None) -> PersonCalendar:
    """Everything on a person's calendar; five queries however many matches they have played."""
    now = now or timezone.now()
    return PersonCalendar(
        matches=person_matches(player=player, now=now),
        challenges=person_challenges(player=player),
        rounds=person_rounds(player=player, now=now),
    )


# --- A club's feed -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClubCalendar:
    club: Club
    competitions: list[Competition]
    rounds: list[Round]


def club_calendar(*, club: Club, now: datetime | None = None) -> ClubCalendar:
    """A club's competitions that have started (not cancelled) and their rounds; two queries."""
    now = now or timezone.now()
    competitions = (
        Competition.objects.filter(club=club, started_at__isnull=False)
        .exclude(status=Competition.Status.CANCELLED)
        .filter(Q(finished_at__isnull=True) | _within_history(now, "finished_at"))
        .select_related("club")
        .only(*_COMPETITION_FIELDS)
        .order_by("-started_at", "-id")
    )
    return ClubCalendar(
        club=club,
        competitions=list(competitions[:COMPETITIONS_SHOWN]),
        rounds=_rounds(Competition.objects.filter(club=club), now),
    )
