"""What the competitions tell people (league/notifications/): each function is called by the service of its
event, inside that service's transaction, and names who hears of it and in which words.

People only: an entrant that is a bot has nobody at a table to tell, and a bot ladder's thousands of matches
would bury its owner's inbox (a bot's owner hears of its competitions starting and finishing, and of its
troubles, through league/notifications' bot kinds).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.urls import reverse
from django.utils import timezone

from league.models import BotVersion, Membership
from league.notifications.kinds import Kind
from league.notifications.models import Notification
from league.notifications.services import Message, notifications_withdrawn, notify, notify_each
from tournaments import club_events
from tournaments.models import Challenge, ChallengeSide, Competition, Entrant, Match, MatchParticipant, Transcript
from tournaments.result_words import failed_by, listed, outcome, places_words


def _competition_link(competition_id: int) -> str:
    return reverse("site:competition", args=[competition_id])


def _people_of(entrants: Iterable[Entrant]) -> list[int]:
    return [entrant.player_id for entrant in entrants if entrant.player_id is not None]


def _people_and_owners(entrants: Iterable[Entrant]) -> set[int]:
    """Each entrant's person, or its bot's owner."""
    return {
        entrant.player_id if entrant.player_id is not None else entrant.bot_version.bot.owner_id  # type: ignore[union-attr]
        for entrant in entrants
    }


# --- a challenge ladder ---------------------------------------------------------------------------------------


def challenged(competition: Competition, challenge: Challenge, sides: Sequence[ChallengeSide]) -> None:
    """The defenders who must answer: who challenged them, and by when."""
    waiting = [side.entrant for side in sides if side.role == ChallengeSide.Role.DEFENDER and side.accepted_at is None]
    club_events.challenged(competition, challenge, sides)
    notify(
        players=_people_of(waiting),
        kind=Kind.CHALLENGED,
        title=f"{challenge.challenger.name} challenged you in {competition.name}",
        body=f"Accept and play by {challenge.deadline:%a %d %b, %H:%M} UTC, or decline. Letting the time run out "
        "counts as a loss.",
        link=_competition_link(competition.pk),
        club=competition.club_id,
    )


def challenge_answered(
    competition: Competition, challenge: Challenge, sides: Sequence[ChallengeSide], how: str
) -> None:
    """Everyone in the challenge but whoever answered: ``how`` is "accepted", "declined" or "withdrawn"."""
    club_events.challenge_answered(competition, challenge, sides, how)
    if how == "withdrawn":
        told = [side.entrant for side in sides if side.role == ChallengeSide.Role.DEFENDER]
        title = f"{challenge.challenger.name} withdrew the challenge in {competition.name}"
        body = "Nothing changes on the ladder."
    else:
        told = [side.entrant for side in sides if side.role == ChallengeSide.Role.CHALLENGER]
        title = f"Your challenge in {competition.name} is {how}"
        body = "Play the match from its table." if how == "accepted" else "You take the place by default."
    notify(
        players=_people_of(told),
        kind=Kind.CHALLENGE_ANSWERED,
        title=title,
        body=body,
        link=_competition_link(competition.pk),
        club=competition.club_id,
    )


def challenge_deadline_near(competition: Competition, challenge: Challenge, waiting: Sequence[Entrant]) -> None:
    """The defenders who have not accepted yet, once, as the deadline nears: a bot's owner answers for it."""
    notify(
        players=_people_and_owners(waiting),
        kind=Kind.CHALLENGE_DEADLINE,
        title=f"Answer {challenge.challenger.name}'s challenge in {competition.name} by "
        f"{challenge.deadline:%a %d %b, %H:%M} UTC",
        body="Accept and play it, or decline. Past the deadline you forfeit your place.",
        link=_competition_link(competition.pk),
        club=competition.club_id,
    )


# --- matches and rounds ---------------------------------------------------------------------------------------


def matches_ready(match_ids: Sequence[int]) -> None:
    """The people of matches just paired (a round, a challenge's match): which table is theirs now."""
    seats = (
        MatchParticipant.objects.filter(match_id__in=match_ids)
        .select_related("entrant", "match__competition", "match__round")
        .order_by("match_id", "seat")
    )
    by_match: dict[int, list[MatchParticipant]] = {}
    for participant in seats:
        by_match.setdefault(participant.match_id, []).append(participant)
    messages = []
    for match_id, seated in by_match.items():
        match, competition = seated[0].match, seated[0].match.competition
        for participant in seated:
            if participant.entrant.player_id is None:
                continue
            opponents = [p.entrant.name for p in seated if p is not participant]
            messages.append(
                Message(
                    player_id=participant.entrant.player_id,
                    title=f"Round {match.round.number} of {competition.name}: you play {', '.join(opponents)}",
                    body="Your table is open: play it from “My matches”.",
                    link=reverse("site:table", args=[match_id]),
                    club_id=competition.club_id,
                )
            )
    notify_each(kind=Kind.ROUND_PAIRED, messages=messages)
    club_events.matches_paired(by_match.values())


def match_recorded(match_id: int) -> None:
    """The people of a match just recorded: how it ended for them."""
    seated = list(
        MatchParticipant.objects.filter(match_id=match_id)
        .select_related("entrant", "match__competition", "match__round")
        .order_by("seat")
    )
    if not any(p.entrant.player_id is not None for p in seated):
        return
    match = seated[0].match
    competition = match.competition
    ranked = sorted((p for p in seated if p.rank is not None), key=lambda p: (p.rank, p.seat))
    table = places_words([(p.rank, p.entrant.name) for p in ranked])  # type: ignore[misc]
    messages = []
    for participant in seated:
        if participant.entrant.player_id is None or participant.rank is None:
            continue
        others = [p.rank for p in seated if p is not participant and p.rank is not None]
        messages.append(
            Message(
                player_id=participant.entrant.player_id,
                title=f"{outcome(participant.rank, others).words}: round {match.round.number} of {competition.name}",
                body=f"The match is recorded: {table}." if len(seated) > 2 else "The match is recorded.",
                link=_competition_link(competition.pk),
                club_id=competition.club_id,
            )
        )
    notify_each(kind=Kind.MATCH_RECORDED, messages=messages)
    club_events.match_recorded(match, competition, seated)


# --- competitions ---------------------------------------------------------------------------------------------


def _entrants_people_and_owners(competition_id: int) -> set[int]:
    return _people_and_owners(
        Entrant.objects.filter(competition_id=competition_id, left_at__isnull=True).select_related("bot_version__bot")
    )


def competition_started(competition: Competition) -> None:
    club_events.competition_started(competition)
    notify(
        players=_entrants_people_and_owners(competition.pk),
        kind=Kind.COMPETITION_STARTED,
        title=f"{competition.name} has started",
        body="The first matches are paired: see them on the competition's page.",
        link=_competition_link(competition.pk),
        club=competition.club_id,
    )


def competition_finished(competition_id: int) -> None:
    competition = Competition.objects.get(pk=competition_id)
    club_events.competition_finished(competition)
    notify(
        players=_entrants_people_and_owners(competition_id),
        kind=Kind.COMPETITION_FINISHED,
        title=f"{competition.name} is finished",
        body="The final standings are on the competition's page.",
        link=_competition_link(competition_id),
        club=competition.club_id,
    )


# --- written-down games ---------------------------------------------------------------------------------------


def dispute_opened(transcript: Transcript, match: Match, by_name: str, note: str) -> None:
    """The organisers and referees of the club, who settle it."""
    competition = match.competition
    club_events.dispute_opened(transcript, match, by_name)
    settlers = Membership.objects.filter(
        club_id=competition.club_id, role__in=[Membership.Role.ORGANISER, Membership.Role.REFEREE]
    ).values_list("player_id", flat=True)
    notify(
        players=list(settlers),
        kind=Kind.DISPUTE,
        title=f"{by_name} disputes a written-down game in {competition.name}",
        body=f"Game {transcript.game_number + 1}: “{note}”. Compare the versions and accept the right one.",
        link=reverse("site:competition-manage", args=[competition.pk]) + "#disputes",
        club=competition.club_id,
    )


# --- bots -----------------------------------------------------------------------------------------------------


def bot_crashing(version: BotVersion, causes: Sequence[str]) -> None:
    """The owner of a bot version that failed its last matches; ``causes`` newest first."""
    bot = version.bot
    said = listed(list(dict.fromkeys(failed_by(cause) for cause in causes)))
    notify(
        players=[bot.owner_id],
        kind=Kind.BOT_CRASHING,
        title=f"{bot.name} (version {version.number}) failed its last {len(causes)} matches",
        body=f"It {said}. Each match on the bot's page says how it failed, with what the bot printed: fix it and "
        "add a new version. A version that forfeits most of its recent games is suspended.",
        link=reverse("site:bot", args=[bot.pk]) + "#matches",
    )


def bot_suspended(version: BotVersion, causes: Mapping[str, int], games: int) -> None:
    """The owner of a bot version just suspended (services/bot_suspension.py); ``causes`` counts its forfeits
    among its last ``games`` games by cause, most first."""
    bot = version.bot
    forfeits = sum(causes.values())
    said = listed([f"{failed_by(cause)} in {count} game{'' if count == 1 else 's'}" for cause, count in causes.items()])
    notify(
        players=[bot.owner_id],
        kind=Kind.BOT_SUSPENDED,
        title=f"{bot.name} (version {version.number}) is suspended: it forfeited {forfeits} of its last {games} games",
        body=f"It {said}. It is not paired in rating ladders, cannot be challenged, and enters no competition "
        "that has not started, until you reinstate it on the bot's page; competitions it is already playing go "
        "on. Each match there says how it failed, with what the bot printed.",
        link=reverse("site:bot", args=[bot.pk]) + "#matches",
    )


# --- live tables ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One person whose turn it is at a live table: whom they play, and when their time for it runs out."""

    player_id: int
    opponents: Sequence[str]
    deadline: datetime


def your_turn(competition: Competition, match_id: int, game_number: int, turns: Sequence[Turn]) -> dict[int, int]:
    """The people now to act at a live table (tournaments/services/live_turns.py decides who and when): each
    player's id to their notification's, for those their settings wrote one for.

    The words name the opponents, the competition, the game and the deadline, and nothing of the cards: a
    notification is read by whoever reads the person's mail.
    """
    which = f" (game {game_number + 1})" if competition.games_per_match > 1 else ""
    link = reverse("site:table", args=[match_id])
    messages = [
        Message(
            player_id=turn.player_id,
            title=f"Your turn against {listed(turn.opponents) or 'nobody'} in {competition.name}{which}",
            body=f"Your time for this decision runs out {turn.deadline:%a %d %b, %H:%M} UTC.",
            link=link,
            club_id=competition.club_id,
        )
        for turn in turns
    ]
    made = notify_each(kind=Kind.YOUR_TURN, messages=messages)
    return {notification.player_id: notification.pk for notification in made}


def your_turn_passed(notification_ids: Collection[int]) -> None:
    """Their turn is played (or its game is over): a "your turn" not yet mailed is no news any more and goes, so
    no mail ever tells of a turn already played and a live game leaves no trail of them in the inbox; one that
    was mailed stays, read, as the mail did.

    One being mailed at this moment is skipped, not waited for: a move never waits on a mail server.
    """
    ids = [pk for pk in notification_ids if pk]
    # Most turns are played before their mail is due: all went, and there is nothing left to mark.
    if notifications_withdrawn(ids) < len(ids):
        free = Notification.objects.select_for_update(skip_locked=True).filter(pk__in=ids).values("pk")
        Notification.objects.filter(pk__in=free, read_at__isnull=True).update(read_at=timezone.now())
