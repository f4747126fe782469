"""What a club's webhooks hear of its competitions (league/webhooks/): one line per event, once however many
people it concerns, in public words only: names, rounds, results, deadlines. Never a card, a deal or a seed.

Each function is called by the matching hook of tournaments/notices.py, in the event's transaction, with what
that hook has read already, so telling the webhooks costs one query (the club's webhooks) per event. Like the
notifications, only matches with a person in them are told of: a bot ladder's thousands of matches would bury
a club's chat.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.urls import reverse

from league.notifications.kinds import Kind
from league.webhooks.services import ClubEvent, club_event, club_events
from tournaments.models import Challenge, ChallengeSide, Competition, Match, MatchParticipant, Transcript
from tournaments.result_words import listed, match_words

#: Tables a "round paired" line names; the rest are counted.
MOST_TABLES_NAMED = 10


def _competition_link(competition_id: int) -> str:
    return reverse("site:competition", args=[competition_id])


def challenged(competition: Competition, challenge: Challenge, sides: Sequence[ChallengeSide]) -> None:
    defenders = [side.entrant.name for side in sides if side.role == ChallengeSide.Role.DEFENDER]
    club_event(
        club_id=competition.club_id,
        kind=Kind.CHALLENGED,
        text=f"{challenge.challenger.name} challenged {listed(defenders)} in {competition.name} "
        f"(to be answered by {challenge.deadline:%a %d %b, %H:%M} UTC)",
        link=_competition_link(competition.pk),
        data={"competition": competition.pk, "challenge": challenge.number},
    )


def challenge_answered(
    competition: Competition, challenge: Challenge, sides: Sequence[ChallengeSide], how: str
) -> None:
    defenders = [side.entrant.name for side in sides if side.role == ChallengeSide.Role.DEFENDER]
    club_event(
        club_id=competition.club_id,
        kind=Kind.CHALLENGE_ANSWERED,
        text=f"{challenge.challenger.name}'s challenge to {listed(defenders)} in {competition.name} is {how}",
        link=_competition_link(competition.pk),
        data={"competition": competition.pk, "challenge": challenge.number, "answer": how},
    )


def matches_paired(tables: Iterable[Sequence[MatchParticipant]]) -> None:
    """One line per round (of one competition) among the tables just paired, each table's seats in order."""
    rounds: dict[tuple[int, int], list[Sequence[MatchParticipant]]] = {}
    for seated in tables:
        if seated:
            match = seated[0].match
            rounds.setdefault((match.competition_id, match.round.number), []).append(seated)
    by_club: dict[int, list[ClubEvent]] = {}
    for (competition_id, number), paired in rounds.items():
        competition = paired[0][0].match.competition
        named = [" v ".join(p.entrant.name for p in seated) for seated in paired[:MOST_TABLES_NAMED]]
        more = len(paired) - len(named)
        text = f"Round {number} of {competition.name} is paired: {'; '.join(named)}"
        by_club.setdefault(competition.club_id, []).append(
            ClubEvent(
                kind=Kind.ROUND_PAIRED,
                text=text + (f"; and {more} more" if more else ""),
                link=_competition_link(competition_id),
                data={"competition": competition_id, "round": number, "matches": [s[0].match_id for s in paired]},
            )
        )
    for club_id, events in by_club.items():
        club_events(club_id=club_id, events=events)


def match_recorded(match: Match, competition: Competition, seated: Sequence[MatchParticipant]) -> None:
    ranked = sorted((p for p in seated if p.rank is not None), key=lambda p: (p.rank, p.seat))
    where = f"round {match.round.number} of {competition.name}"
    words = match_words([(p.rank, p.entrant.name) for p in ranked])  # type: ignore[misc]
    text = f"{words} in {where}" if len(ranked) == 2 else f"The match of {where} is recorded: {words}"
    club_event(
        club_id=competition.club_id,
        kind=Kind.MATCH_RECORDED,
        text=text,
        link=_competition_link(competition.pk),
        data={
            "competition": competition.pk,
            "round": match.round.number,
            "match": match.pk,
            "places": [{"entrant": p.entrant_id, "name": p.entrant.name, "rank": p.rank} for p in ranked],
        },
    )


def competition_started(competition: Competition) -> None:
    club_event(
        club_id=competition.club_id,
        kind=Kind.COMPETITION_STARTED,
        text=f"{competition.name} has started",
        link=_competition_link(competition.pk),
        data={"competition": competition.pk},
    )


def competition_finished(competition: Competition) -> None:
    club_event(
        club_id=competition.club_id,
        kind=Kind.COMPETITION_FINISHED,
        text=f"{competition.name} is finished: the final standings are on its page",
        link=_competition_link(competition.pk),
        data={"competition": competition.pk},
    )


def dispute_opened(transcript: Transcript, match: Match, by_name: str) -> None:
    """Not the note: it is written to the referees, and a chat may be read more widely."""
    competition = match.competition
    club_event(
        club_id=competition.club_id,
        kind=Kind.DISPUTE,
        text=f"{by_name} disputes a written-down game of round {match.round.number} in {competition.name}",
        link=reverse("site:competition-manage", args=[competition.pk]) + "#disputes",
        data={"competition": competition.pk, "match": match.pk, "game": transcript.game_number + 1},
    )
