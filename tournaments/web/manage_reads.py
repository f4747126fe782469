"""What an organiser's page reads about one competition: who is in, who could be added, matches that failed and
transcript disputes to settle. Each read is a fixed number of queries however many rows there are."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count, Min, Prefetch, QuerySet

from engine.match import seating_for
from league.models import BotVersion, Player
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Transcript, TranscriptEvent
from tournaments.selectors import competition_entrants
from tournaments.services.transcripts import OPEN_STATUSES, competition_disputes
from tournaments.web.transcript_builder import UNSEATED

#: How a transcript's state reads on the page.
TRANSCRIPT_WORDS: dict[str, str] = {
    Transcript.Status.SUBMITTED: "waiting for the check",
    Transcript.Status.VERIFIED: "checked by the server",
    Transcript.Status.REJECTED: "refused by the check",
    Transcript.Status.ACCEPTED: "accepted",
    Transcript.Status.DISPUTED: "disputed",
    Transcript.Status.VOIDED: "set aside",
}
PLACES = {1: "1st", 2: "2nd", 3: "3rd"}


def entrants_of(competition: Competition) -> list[Entrant]:
    return list(competition_entrants(competition=competition))


def members_to_add(competition: Competition) -> QuerySet[Player]:
    """The club's members not yet in the competition, by name."""
    entered = Entrant.objects.filter(competition=competition, player__isnull=False).values("player_id")
    return (
        Player.objects.filter(memberships__club_id=competition.club_id)
        .exclude(pk__in=entered)
        .order_by("display_name", "id")
        .distinct()
    )


def bot_versions_to_add(competition: Competition) -> QuerySet[BotVersion]:
    """Ready versions of the club's members' bots for this game, not retired and not entered."""
    # NOT IN over a subquery with NULLs matches nothing, so the subquery keeps the bot entrants only.
    entered = Entrant.objects.filter(competition=competition, bot_version__isnull=False).values("bot_version_id")
    return (
        BotVersion.objects.filter(
            bot__game=competition.game,
            status=BotVersion.Status.READY,
            bot__retired_at__isnull=True,
            bot__owner__memberships__club_id=competition.club_id,
        )
        .exclude(pk__in=entered)
        .select_related("bot__owner")
        .order_by("bot__name", "-number")
        .distinct()
    )


def bot_version_words(version: BotVersion) -> str:
    return f"{version.bot.name} v{version.number} ({version.bot.owner.display_name}'s)"


def failed_matches(competition: Competition) -> list[Match]:
    """Matches in error, with who plays them."""
    participants = MatchParticipant.objects.select_related("entrant").order_by("seat")
    return list(
        Match.objects.filter(competition=competition, status=Match.Status.ERROR)
        .select_related("round")
        .prefetch_related(Prefetch("participants", queryset=participants))
        .order_by("round__number", "number")
    )


@dataclass(frozen=True)
class Waiting:
    """Bots' matches sent to the workers and not yet picked up."""

    count: int
    since: datetime | None


def waiting_for_workers(competition: Competition) -> Waiting:
    found = Match.objects.filter(
        competition=competition, status=Match.Status.PENDING, queued_at__isnull=False
    ).aggregate(count=Count("id"), since=Min("queued_at"))
    return Waiting(count=found["count"], since=found["since"])


@dataclass(frozen=True)
class TranscriptSummary:
    transcript: Transcript
    submitted_by: str
    state: str
    #: Each player's place and score as the transcript states them, best first.
    result: list[str]
    steps: int
    disputes: list[str]
    settle: bool


@dataclass
class Dispute:
    """One game of one match with a disputed transcript, and every transcript given for that game."""

    match: Match
    game_number: int
    players: list[str]
    transcripts: list[TranscriptSummary] = field(default_factory=list)


def _result_lines(record: Mapping[str, Any], game_number: int, names: list[str]) -> list[str]:
    result = record.get("result")
    if not isinstance(result, Mapping) or not isinstance(result.get("ranks"), list):
        return ["No result stated"]
    ranks, scores = result["ranks"], result.get("scores")
    seats = seating_for(game_number, len(names), len(ranks)) if names else ()
    lines = []
    for seat, rank in sorted(
        enumerate(ranks), key=lambda pair: (pair[1] if isinstance(pair[1], int) else len(ranks), pair[0])
    ):
        who = seats[seat] if seat < len(seats) else None
        name = names[who] if who is not None else UNSEATED
        score = f", {scores[seat]} points" if isinstance(scores, list) and seat < len(scores) else ""
        lines.append(f"{PLACES.get(rank, f'{rank}th')}: {name}{score}")
    return lines


def _summary(transcript: Transcript, names: list[str]) -> TranscriptSummary:
    record = transcript.record if isinstance(transcript.record, Mapping) else {}
    actions = record.get("actions")
    notes = [
        f"{event.actor.display_name if event.actor else 'The server'}: “{event.note}”"
        for event in transcript.events.all()
        if event.action == "dispute" and event.note
    ]
    return TranscriptSummary(
        transcript=transcript,
        submitted_by=transcript.submitted_by.display_name,
        state=TRANSCRIPT_WORDS.get(transcript.status, transcript.status),
        result=_result_lines(record, transcript.game_number, names),
        steps=len(actions) if isinstance(actions, list) else 0,
        disputes=notes,
        settle=transcript.status in OPEN_STATUSES,
    )


def disputes_of(competition: Competition) -> list[Dispute]:
    """Every game with a disputed transcript, with all of that game's transcripts summarised side by side."""
    disputed = list(competition_disputes(competition=competition).values_list("match_id", "game_number"))
    if not disputed:
        return []
    wanted = set(disputed)
    match_ids = {match_id for match_id, _ in disputed}
    events = TranscriptEvent.objects.select_related("actor").order_by("at", "id")
    transcripts = (
        Transcript.objects.filter(match_id__in=match_ids)
        .select_related("submitted_by")
        .prefetch_related(Prefetch("events", queryset=events))
        .order_by("match_id", "game_number", "number")
    )
    participants = MatchParticipant.objects.filter(match_id__in=match_ids).select_related("entrant").order_by("seat")
    names: dict[int, list[str]] = defaultdict(list)
    for participant in participants:
        names[participant.match_id].append(participant.entrant.name)
    matches = Match.objects.in_bulk(match_ids)
    games: dict[tuple[int, int], Dispute] = {}
    for transcript in transcripts:
        key = (transcript.match_id, transcript.game_number)
        if key not in wanted:
            continue
        dispute = games.setdefault(
            key, Dispute(matches[transcript.match_id], transcript.game_number, names[transcript.match_id])
        )
        dispute.transcripts.append(_summary(transcript, names[transcript.match_id]))
    return [games[key] for key in sorted(games)]
