"""What the drills share (docs/drill.md): a bot competition played twice, compared game by game and row by row.

A drill plays a round robin of built-in bots undisturbed, then again with the same seed and
entrants while it takes something down; the disturbed run must record every game once and
end with the very same games, standings and ratings. ``DRILL=full`` (``make drill``) selects
the long form of every drill; the suite runs the short one.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db import connection
from django.db.models import Count
from django.db.utils import Error as DatabaseError
from django.utils import timezone

from league.models import BotVersion
from league.standings import FIGURE_COLUMNS
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, PlayerFactory
from tournaments.models import Competition, Game, Match, Standing
from tournaments.services.competitions import competition_create, competition_start, entrant_join

#: The long form of every drill (``make drill``); the suite's own run takes the short one.
FULL = os.environ.get("DRILL", "") == "full"

#: The bot competitions' game, and each entrant's name and built-in strategy in joining order (the
#: schedule follows it): a single round robin of 28 matches.
GAME = "banter"
ENTRANTS = [
    ("ada", "upgrader"),
    ("bo", "random"),
    ("cy", "upgrader"),
    ("di", "random"),
    ("ed", "upgrader"),
    ("flo", "random"),
    ("gus", "upgrader"),
    ("hal", "random"),
]
MATCHES = len(ENTRANTS) * (len(ENTRANTS) - 1) // 2

STANDING_FIELDS = (
    "played",
    "won",
    "drawn",
    "lost",
    "match_units",
    "games_played",
    "games_won",
    *FIGURE_COLUMNS,
    "mu",
    "sigma",
    "ordinal",
)


@dataclass
class Timeline:
    """What a drill did and saw, in seconds from its start; printed with ``-s``."""

    start: datetime = field(default_factory=timezone.now)
    lines: list[str] = field(default_factory=list)

    def note(self, what: str, *, at: datetime | None = None) -> None:
        self.lines.append(f"  {self.since(at or timezone.now()):6.1f} s  {what}")

    def since(self, moment: datetime) -> float:
        return (moment - self.start).total_seconds()

    def __str__(self) -> str:
        return "\n".join(self.lines)


def entrant_versions(game: str, entrants: list[tuple[str, str]]) -> list[BotVersion]:
    """One built-in bot version for each (name, strategy), all of one owner."""
    owner = PlayerFactory()
    return [
        BotVersionFactory(bot=BotFactory(owner=owner, name=name, game=game), number=1, strategy=strategy)
        for name, strategy in entrants
    ]


def started_competition(name: str, versions: list[BotVersion], *, games_per_match: int, seed: int) -> Competition:
    """A round robin of ``versions`` in their order (the schedule follows it), started and committed."""
    owner = versions[0].bot.owner
    competition = competition_create(
        club=ClubFactory(),
        created_by=owner,
        name=name,
        game=versions[0].bot.game,
        settings={"games_per_match": games_per_match},
        seed=seed,
    )
    for version in versions:
        entrant_join(competition=competition, bot_version=version)
    # Committed at once (transactional_db): its on_commit sends the first matches to the workers.
    return competition_start(competition=competition)


def wait_until_finished(
    competition: Competition,
    *,
    logs: list[Path],
    timeout: float,
    on_tick: Callable[[], None] = lambda: None,
) -> float:
    """Seconds until the competition is finished, calling ``on_tick`` between polls.

    A poll that finds the database away (a drill took it down) just waits for the next one.
    """
    start = time.monotonic()
    while True:
        try:
            competition.refresh_from_db(fields=["status"])
            if competition.status == Competition.Status.FINISHED:
                return time.monotonic() - start
        except DatabaseError:
            connection.close()
        if time.monotonic() - start > timeout:
            counts = dict(competition.matches.values_list("status").annotate(n=Count("id")))
            tails = "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}" for log in logs)
            raise AssertionError(f"{competition.name} did not finish in {timeout:.0f} s: {counts}\n{tails}")
        on_tick()
        time.sleep(0.05)


def matches_done(competition: Competition) -> int:
    return competition.matches.filter(status=Match.Status.DONE).count()


def running_matches(competition: Competition) -> list[tuple[datetime | None, int]]:
    """Heartbeat and attempt of each running match."""
    return list(competition.matches.filter(status=Match.Status.RUNNING).values_list("heartbeat_at", "attempts"))


def reaper_says(logs: list[Path], *, skip: dict[Path, int]) -> str:
    """What the reaper did, from the workers' logs past ``skip`` lines (beat sends it, either worker runs it)."""
    totals = [0, 0, 0]
    lines = [line for log in logs for line in log.read_text(errors="replace").splitlines()[skip.get(log, 0) :]]
    for line in lines:
        found = re.search(r"reaper: requeued (\d+) running, gave up (\d+), re-sent (\d+) pending", line)
        if found:
            totals = [total + int(n) for total, n in zip(totals, found.groups(), strict=True)]
    return f"requeued {totals[0]} running, gave up {totals[1]}, re-sent {totals[2]} pending"


def worker_log_lines(logs: list[Path], pattern: str, *, skip: dict[Path, int]) -> list[tuple[datetime, re.Match[str]]]:
    """The workers' log lines past ``skip`` that match ``pattern``, with the time each was logged."""
    found = []
    for log in logs:
        for line in log.read_text(errors="replace").splitlines()[skip.get(log, 0) :]:
            stamp, hit = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}):", line), re.search(pattern, line)
            if stamp and hit:
                # Celery logs this machine's local time, without a zone.
                found.append((datetime.strptime(stamp[1], "%Y-%m-%d %H:%M:%S,%f").astimezone(), hit))
    return sorted(found, key=lambda item: item[0])


def log_marks(logs: list[Path]) -> dict[Path, int]:
    """How many lines each log has now, to read only what comes after."""
    return {log: len(log.read_text(errors="replace").splitlines()) for log in logs}


def assert_complete(competition: Competition, *, matches: int, games_per_match: int) -> None:
    """Every match done and rated, every game recorded exactly once."""
    played = competition.matches
    assert played.count() == matches
    assert not played.exclude(status=Match.Status.DONE).exists(), "a match is not done"
    assert played.filter(rated=True).count() == matches
    rows = Game.objects.filter(match__competition=competition)
    assert rows.count() == matches * games_per_match
    assert rows.values("match", "number").distinct().count() == matches * games_per_match
    per_match = set(rows.values("match").annotate(n=Count("id")).values_list("n", flat=True))
    assert per_match == {games_per_match}


def table(competition: Competition) -> dict[str, dict[str, Any]]:
    """Each entrant's standings row and rating, by name (entrant ids differ between competitions)."""
    return {
        row.entrant.name: {name: getattr(row, name) for name in STANDING_FIELDS}
        for row in Standing.objects.filter(competition=competition).select_related("entrant")
    }


def games(competition: Competition) -> dict[tuple[int, int, int], tuple[Any, ...]]:
    """Every recorded game by (round, match, game number): seating by name, seed, result and record."""
    names = dict(competition.entrants.values_list("id", "name"))
    return {
        (game.match.round.number, game.match.number, game.number): (
            [None if who is None else names[who] for who in game.seating],
            game.seed,
            game.result,
            game.record,
        )
        for game in Game.objects.filter(match__competition=competition).select_related("match__round")
    }


def assert_identical(
    calm_games: dict[tuple[int, int, int], tuple[Any, ...]],
    calm_table: dict[str, dict[str, Any]],
    stormy: Competition,
) -> None:
    """The disturbed competition recorded the very games, standings and ratings of the undisturbed one."""
    stormy_games = games(stormy)
    assert stormy_games.keys() == calm_games.keys()
    # Listed rather than diffed: a diff of thousands of records would bury the answer.
    assert [key for key, game in calm_games.items() if stormy_games[key] != game] == []
    # Ratings are floats compared exactly: they are applied in a fixed order, so they must be bit-identical.
    assert table(stormy) == calm_table


def first_after(competition: Competition, column: str, moment: datetime) -> datetime | None:
    """The earliest ``column`` (started_at, finished_at) of the competition's matches at or after ``moment``."""
    return (
        competition.matches.filter(**{f"{column}__gte": moment}).order_by(column).values_list(column, flat=True).first()
    )


def now() -> datetime:
    return timezone.now()
