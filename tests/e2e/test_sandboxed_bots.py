"""Uploaded bots on a real worker: validated there, contained there, and the worker plays on unharmed."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from engine.record import Record
from league.models import BotVersion
from tests.e2e.conftest import wait_for
from tests.engine.sandbox_support import needs_sandbox
from tests.engine.test_hostile_bots import sandbox_processes
from tests.factories import BotFactory, BotVersionFactory, CompetitionFactory, EntrantFactory, full_options
from tests.league.test_api_support import client_for
from tournaments.models import BotRun, Competition, Game, Match
from tournaments.services.competitions import competition_start
from tournaments.worker_processes import WorkerProcess

pytestmark = needs_sandbox
Start = Callable[..., WorkerProcess]
FAST_BOTS = {"BOT_MOVE_MS": "200", "BOT_BANK_MS": "0"}

GOOD = b"def act(turn):\n    return turn.legal_actions[0]\n"
# Passes its validation game (game 0), then turns hostile in the matches' second game.
TURNS_HOSTILE = b"""
import os


def act(turn):
    if turn.game_number == 1 and turn.seat == 0:
        while True:
            try:
                os.fork()
            except OSError:
                pass
    if turn.game_number == 1:
        while True:
            pass
    return turn.legal_actions[0]
"""


def upload(bot: Any, content: bytes) -> BotVersion:
    response = client_for(bot.owner.user).post(
        f"/api/bots/{bot.pk}/versions/",
        {"kind": "upload", "source": SimpleUploadedFile("bot.py", content)},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    return BotVersion.objects.get(pk=response.json()["id"])


def test_uploads_are_validated_on_the_worker_and_a_hostile_one_costs_only_its_own_games(workers: Start) -> None:
    worker = workers("w1", extra_env=FAST_BOTS)
    good = upload(BotFactory(game="1923"), GOOD)
    hostile = upload(BotFactory(game="1923"), TURNS_HOSTILE)
    broken = upload(BotFactory(game="1923"), b"def act(turn) return 1\n")

    def settled() -> bool:
        return not BotVersion.objects.filter(pk__in=[good.pk, hostile.pk, broken.pk], status="pending").exists()

    wait_for(settled, what="the validations")
    for version in (good, hostile, broken):
        version.refresh_from_db()
    assert (good.status, hostile.status, broken.status) == ("ready", "ready", "failed"), broken.status_detail
    assert "SyntaxError" in broken.log

    competition = CompetitionFactory(game="1923", games_per_match=3, options=full_options("1923", 2))
    for version in (good, hostile):
        EntrantFactory(competition=competition, bot_version=version)
    EntrantFactory(competition=competition, bot_version=BotVersionFactory(bot=BotFactory(game="1923")))
    competition_start(competition=competition)

    def finished() -> bool:
        competition.refresh_from_db()
        return competition.status == Competition.Status.FINISHED

    wait_for(finished, timeout=120, what="the competition")
    assert set(Match.objects.filter(competition=competition).values_list("status", flat=True)) == {"done"}
    hostile_entrant = competition.entrants.get(bot_version=hostile).pk
    for game in Game.objects.filter(match__competition=competition):
        record = Record.from_dict(game.record)
        if hostile_entrant in game.seating and game.number >= 1:
            # Game 1 forfeits on the clock; game 2 because the bot is out of the match.
            assert record.forfeit is not None and record.forfeit.cause == "timeout"
            assert record.forfeit.seat == game.seating.index(hostile_entrant)
        else:
            assert record.forfeit is None
    runs = BotRun.objects.filter(participant__match__competition=competition)
    assert {(r.participant.entrant.bot_version_id, r.failure) for r in runs} == {(good.pk, ""), (hostile.pk, "timeout")}
    assert worker.alive()
    deadline = time.monotonic() + 5
    while sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sandbox_processes() == []
