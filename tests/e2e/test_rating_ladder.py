"""A rating ladder of 8 bots run by Celery beat on a real worker, twice: undisturbed, and with the worker
SIGKILLed in the middle of a match and another started. Standings and every rating point are identical
(DESIGN.md, "Ratings"; issue 13, "Done means")."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import wait_for
from tests.factories import BotFactory, BotVersionFactory, CompetitionFactory, EntrantFactory, full_options
from tournaments.models import Competition, Match, MatchParticipant, Standing
from tournaments.services.competitions import competition_start
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]

ROUNDS = 6
#: Beat's tick every second: a round a second at most.
BEAT = {"RATING_LADDER_TICK_SECONDS": "1"}
#: Every Standing field that the results determine.
STANDING_FIELDS = (
    "played", "won", "drawn", "lost", "match_units", "games_played", "games_won",
    "figure_1", "figure_2", "figure_3", "figure_4", "mu", "sigma", "ordinal",
)  # fmt: skip


def ladder(versions: list[Any]) -> Competition:
    """The same ladder each time: the same seed, the same bots entered in the same order."""
    competition = CompetitionFactory(
        game="banter",
        options=full_options("banter", 2),
        format="rating_ladder",
        games_per_match=60,
        settings={"ladder_rounds": ROUNDS},
        seed=20261124,
    )
    for version in versions:
        EntrantFactory(competition=competition, bot_version=version)
    return competition_start(competition=competition)


def finished(competition: Competition) -> bool:
    competition.refresh_from_db()
    return competition.status == Competition.Status.FINISHED


def outcome(competition: Competition) -> tuple[dict[str, tuple[Any, ...]], dict[tuple[str, int], tuple[Any, ...]]]:
    """The standings by entrant name, and each entrant's result and rating after each round."""
    standings = {
        row["entrant__name"]: tuple(row[field] for field in STANDING_FIELDS)
        for row in Standing.objects.filter(competition=competition).values("entrant__name", *STANDING_FIELDS)
    }
    fields = ("match__number", "seat", "rank", "match_units", "mu_after", "sigma_after")
    rows = MatchParticipant.objects.filter(match__competition=competition).values(
        "entrant__name", "match__round__number", *fields
    )
    history = {(row["entrant__name"], row["match__round__number"]): tuple(row[f] for f in fields) for row in rows}
    return standings, history


def caught_running(competition: Competition, from_round: int, timeout: float = 30) -> bool:
    """Wait for a match of ``from_round`` or later to be running (polled tightly: a match lasts a fraction of a
    second); False if the ladder finished first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Match.objects.filter(
            competition=competition, round__number__gte=from_round, status=Match.Status.RUNNING
        ).exists():
            return True
        if finished(competition):
            return False
        time.sleep(0.005)
    raise AssertionError(f"no match of round {from_round} or later ran within {timeout} s")


def test_a_rating_ladder_on_beat_is_identical_when_its_worker_is_killed_midway(workers: Start) -> None:
    versions = [
        BotVersionFactory(bot=BotFactory(game="banter", name=f"ladder-{n}"), strategy=strategy)
        for n, strategy in enumerate(["upgrader", "random"] * 4)
    ]
    undisturbed = ladder(versions)
    first = workers("calm", beat=True, extra_env=BEAT)
    wait_for(lambda: finished(undisturbed), timeout=60, what="the undisturbed ladder to finish")
    first.kill()  # its beat would tick the second ladder too

    disturbed = ladder(versions)
    victim = workers("victim", beat=True, extra_env=BEAT)
    assert caught_running(disturbed, from_round=3), "the ladder finished before a match of round 3 ran"
    victim.kill()
    killed_in = Match.objects.get(competition=disturbed, status=Match.Status.RUNNING)
    workers("rescuer", beat=True, extra_env=BEAT)
    wait_for(lambda: finished(disturbed), timeout=60, what="the disturbed ladder to finish")

    # The killed worker's match was played again from the start, by the rescuer.
    killed_in.refresh_from_db()
    assert killed_in.status == Match.Status.DONE and killed_in.attempts >= 2
    for competition in (undisturbed, disturbed):
        assert competition.rounds.count() == ROUNDS
        assert competition.matches.filter(status=Match.Status.DONE, rated=True).count() == ROUNDS * 4
    standings, history = outcome(undisturbed)
    assert len(standings) == 8 and len(history) == ROUNDS * 8
    assert len({row[-1] for row in standings.values()}) > 1  # the ratings moved apart
    assert outcome(disturbed) == (standings, history)
