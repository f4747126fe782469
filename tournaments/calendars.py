"""The iCalendar feeds: a person's (their matches, challenge deadlines, rounds) and a club's (competitions and
rounds), written with the ``icalendar`` library from what tournaments/calendar_selectors.py read.

What a calendar app needs to update rather than duplicate: every event's UID names its row ("match-12@host"),
so the same match is the same event on every fetch, and its times move when the match's do. Times are UTC
(a "Z" time needs no VTIMEZONE); what lasts more than a day (correspondence play, a long round) is an all-day
event instead, so it does not fill a week of hours.

An event says only what a match's page says to anyone: names, times, the competition. It never holds a card or
a seed (they are not even read).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from urllib.parse import urlsplit

from django.urls import reverse
from icalendar import Calendar, Event

from league.models import Player, game_choices
from tournaments.calendar_selectors import ClubCalendar, PersonCalendar
from tournaments.models import Challenge, ChallengeSide, Competition, Match, MatchParticipant, Round

#: Builds an absolute address from a path (the request's ``build_absolute_uri``).
Linker = Callable[[str], str]

#: The length given to a moment (a round paired, a competition's start, a deadline) and to a match or round
#: whose end cannot be known yet beyond its clocks.
MOMENT = timedelta(minutes=30)
#: Beyond this an event is shown as whole days.
A_DAY = timedelta(days=1)
#: How often calendar apps that honour it should fetch the feed again.
REFRESH = timedelta(hours=1)


def webcal_address(address: str) -> str:
    """The feed's address as webcal://, which opens the phone's or computer's own calendar app to subscribe."""
    return "webcal://" + address.split("://", 1)[-1]


def person_feed(*, player: Player, calendar: PersonCalendar, link: Linker, now: datetime) -> bytes:
    feed = _calendar(f"{player.display_name}'s card club calendar", link)
    host = _host(link)
    for match in calendar.matches:
        feed.add_component(_match_event(match, player, link, host, now))
    for challenge in calendar.challenges:
        feed.add_component(_challenge_event(challenge, link, host, now))
    for round_ in calendar.rounds:
        feed.add_component(_round_event(round_, link, host, now))
    ical: bytes = feed.to_ical()
    return ical


def club_feed(*, calendar: ClubCalendar, link: Linker, now: datetime) -> bytes:
    feed = _calendar(f"{calendar.club.name}: competitions and rounds", link)
    host = _host(link)
    for competition in calendar.competitions:
        if competition.started_at is not None:
            feed.add_component(_competition_moment(competition, "starts", competition.started_at, link, host, now))
        if competition.finished_at is not None:
            feed.add_component(_competition_moment(competition, "finishes", competition.finished_at, link, host, now))
    for round_ in calendar.rounds:
        feed.add_component(_round_event(round_, link, host, now))
    ical: bytes = feed.to_ical()
    return ical


# --- The calendar and its events -----------------------------------------------------------------------------


def _calendar(name: str, link: Linker) -> Calendar:
    feed = Calendar()
    feed.add("prodid", f"-//Card club//Calendars {_host(link)}//EN")
    feed.add("version", "2.0")
    feed.add("calscale", "GREGORIAN")
    feed.add("method", "PUBLISH")
    # The calendar's name and refresh hint: RFC 7986's properties, and the X- ones Apple and Outlook read.
    feed.add("name", name)
    feed.add("x-wr-calname", name)
    feed.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    feed.add("x-published-ttl", REFRESH)
    return feed


def _host(link: Linker) -> str:
    return urlsplit(link("/")).hostname or "localhost"


def _event(*, uid: str, host: str, summary: str, description: str, url: str, now: datetime) -> Event:
    event = Event()
    event.add("uid", f"{uid}@{host}")
    event.add("dtstamp", now)
    event.add("summary", summary)
    event.add("description", description)
    event.add("url", url)
    return event


def _when(event: Event, start: datetime, end: datetime, *, all_day: bool = False) -> None:
    """Timed in UTC, or whole days (UTC dates) when asked or when it lasts more than a day."""
    if all_day or end - start > A_DAY:
        first: date = start.date()
        event.add("dtstart", first)
        # An all-day event's end is the day after its last.
        event.add("dtend", end.date() + timedelta(days=1))
    else:
        event.add("dtstart", start)
        event.add("dtend", max(end, start + timedelta(minutes=1)))


def _games() -> dict[str, str]:
    return dict(game_choices())


def _in_words(seconds: int) -> str:
    if seconds % 86400 == 0:
        days = seconds // 86400
        return f"{days} day{'s' if days != 1 else ''}"
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return f"{hours} hour{'s' if hours != 1 else ''}"
    minutes = max(1, seconds // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def _clocks(competition: Competition) -> str:
    if competition.people_play == Competition.PeoplePlay.TRANSCRIPT:
        return "Played with real cards at the club; the game record is sent in afterwards."
    return (
        f"Up to {_in_words(competition.move_seconds)} a move and "
        f"{_in_words(competition.game_seconds)} a game for each player."
    )


def _longest(competition: Competition) -> timedelta:
    """As long as the match can last by its clocks: every seat's whole game time, for every game."""
    return timedelta(seconds=competition.game_seconds * competition.players_per_match * competition.games_per_match)


_MATCH_WORDS: dict[str, str] = {
    Match.Status.PENDING: "Not started yet.",
    Match.Status.RUNNING: "Being played.",
    Match.Status.LIVE: "Under way.",
    Match.Status.DONE: "Finished.",
    Match.Status.ERROR: "Stopped by an error: the organisers have been told.",
}


def _opponents(match: Match, player: Player) -> str:
    seats: list[MatchParticipant] = list(match.participants.all())
    names = [
        f"{seat.entrant.name} (bot)" if seat.entrant.bot_version_id is not None else seat.entrant.name
        for seat in seats
        if seat.entrant.player_id != player.pk
    ]
    if not names:
        return "no one yet"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _match_event(match: Match, player: Player, link: Linker, host: str, now: datetime) -> Event:
    competition = match.competition
    round_: Round = match.round
    event = _event(
        uid=f"match-{match.pk}",
        host=host,
        summary=f"{competition.name}, round {round_.number}: you against {_opponents(match, player)}",
        description=" ".join(
            [
                f"{_games().get(competition.game, competition.game)} in {competition.club.name}.",
                _clocks(competition),
                _MATCH_WORDS.get(match.status, ""),
            ]
        ).strip(),
        url=link(reverse("site:table", args=[match.pk])),
        now=now,
    )
    # When it was paired, or started at its table.
    start = match.started_at or match.created_at
    # Played with real cards whenever its players meet: no hour to give, only days.
    real_cards = competition.people_play == Competition.PeoplePlay.TRANSCRIPT
    if match.finished_at is not None:
        end = match.finished_at
    elif real_cards:
        end = start
    else:
        end = start + max(MOMENT, _longest(competition))
    _when(event, start, end, all_day=real_cards)
    return event


def _challenge_event(challenge: Challenge, link: Linker, host: str, now: datetime) -> Event:
    competition = challenge.competition
    defenders = [side.entrant.name for side in challenge.sides.all() if side.role == ChallengeSide.Role.DEFENDER]
    to_do = "Accept and play it by this time" if challenge.status == Challenge.Status.ISSUED else "Play it by this time"
    event = _event(
        uid=f"challenge-{challenge.pk}",
        host=host,
        summary=f"Challenge deadline: {challenge.challenger.name} against {' and '.join(defenders)}",
        description=(f"{competition.name} in {competition.club.name}. {to_do}, or it is decided without being played."),
        url=link(reverse("site:competition", args=[competition.pk])),
        now=now,
    )
    # Timed at the deadline itself, so the reminder a calendar app sets comes before it.
    _when(event, challenge.deadline, challenge.deadline + MOMENT)
    return event


def _round_event(round_: Round, link: Linker, host: str, now: datetime) -> Event:
    competition = round_.competition
    matches = int(getattr(round_, "match_count", 0))
    left = int(getattr(round_, "matches_left", 0))
    last: datetime | None = getattr(round_, "last_finished_at", None)
    state = "all played" if left == 0 else f"{left} of {matches} still to play"
    event = _event(
        uid=f"round-{round_.pk}",
        host=host,
        summary=f"{competition.name}: round {round_.number}",
        description=(
            f"{_games().get(competition.game, competition.game)} in {competition.club.name}. "
            f"{matches} match{'es' if matches != 1 else ''}, {state}."
        ),
        url=link(reverse("site:competition", args=[competition.pk])),
        now=now,
    )
    start = round_.created_at
    end = last if left == 0 and last is not None and last > start else start + MOMENT
    _when(event, start, end)
    return event


def _competition_moment(
    competition: Competition, moment: str, at: datetime, link: Linker, host: str, now: datetime
) -> Event:
    event = _event(
        uid=f"competition-{competition.pk}-{moment}",
        host=host,
        summary=f"{competition.name} {moment}",
        description=f"{_games().get(competition.game, competition.game)} in {competition.club.name}.",
        url=link(reverse("site:competition", args=[competition.pk])),
        now=now,
    )
    _when(event, at, at + MOMENT)
    return event
