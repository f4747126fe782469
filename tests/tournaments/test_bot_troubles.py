"""A bot that keeps failing its matches: its owner is told once per run of failures, and sees why on its page."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client

from league.agents import BotReport
from league.models import BotVersion
from league.notifications.kinds import Kind
from league.notifications.models import Notification
from tests.factories import BotFactory, BotVersionFactory, CompetitionFactory, EntrantFactory
from tests.tournaments.helpers import started
from tournaments.models import BotRun, Match
from tournaments.services import play
from tournaments.services.bot_troubles import FAILURES_IN_A_ROW, bot_failure_counted
from tournaments.services.play import bot_runs_record

pytestmark = pytest.mark.django_db

CRASHED = BotReport(failure="crash", detail="exit status 1", log="Traceback: KeyError 'hand'", start_ms=3.0)
FINE = BotReport(failure="", detail="", log="", start_ms=3.0)


def uploaded_in_matches(matches: int) -> tuple[BotVersion, list[Match]]:
    """An HTTP bot's version in a round robin with ``matches`` opponents: its matches, oldest first."""
    version = BotVersionFactory(
        bot=BotFactory(game="war", name="Crasher"), kind=BotVersion.Kind.HTTP, strategy="", url="http://bot.example/"
    )
    competition = CompetitionFactory(game="war")
    EntrantFactory(competition=competition, bot_version=version)
    for _ in range(matches):
        EntrantFactory(competition=competition)
    started(competition)
    return version, list(competition.matches.filter(participants__entrant__bot_version=version).order_by("pk"))


def record(match: Match, version: BotVersion, report: BotReport) -> None:
    seats = list(match.participants.order_by("seat").values_list("entrant__bot_version_id", flat=True))
    bot_runs_record(match=match, reports={seats.index(version.pk): report})


def crashing_notices(version: BotVersion) -> list[Notification]:
    return list(Notification.objects.filter(kind=Kind.BOT_CRASHING, player_id=version.bot.owner_id))


def test_the_owner_is_told_once_when_failures_in_a_row_reach_the_mark_and_again_after_a_good_match() -> None:
    version, matches = uploaded_in_matches(2 * FAILURES_IN_A_ROW + 2)
    for match in matches[: FAILURES_IN_A_ROW - 1]:
        record(match, version, CRASHED)
    assert crashing_notices(version) == []
    record(matches[FAILURES_IN_A_ROW - 1], version, BotReport("timeout", "no answer in 200 ms", "", 3.0))
    (told,) = crashing_notices(version)
    assert told.title == f"Crasher (version {version.number}) failed its last {FAILURES_IN_A_ROW} matches"
    assert told.body.startswith("It ran out of time and crashed.")
    assert told.link == f"/bots/{version.bot_id}/#matches"
    record(matches[FAILURES_IN_A_ROW], version, CRASHED)  # still the same run of failures
    assert len(crashing_notices(version)) == 1
    record(matches[FAILURES_IN_A_ROW + 1], version, FINE)
    for match in matches[FAILURES_IN_A_ROW + 2 :]:
        record(match, version, CRASHED)
    assert len(crashing_notices(version)) == 2


def test_a_match_recorded_again_counts_its_failure_once() -> None:
    version, matches = uploaded_in_matches(FAILURES_IN_A_ROW)
    for match in matches[: FAILURES_IN_A_ROW - 1]:
        record(match, version, CRASHED)
    record(matches[FAILURES_IN_A_ROW - 2], version, CRASHED)  # a rerun of the last one: its first run stands
    assert BotRun.objects.filter(participant__entrant__bot_version=version).count() == FAILURES_IN_A_ROW - 1
    assert crashing_notices(version) == []


def test_the_bot_s_page_says_how_it_failed_in_each_match_with_what_it_printed() -> None:
    version, matches = uploaded_in_matches(2)
    record(matches[0], version, CRASHED)
    record(matches[1], version, FINE)
    client = Client()
    client.force_login(version.bot.owner.user)
    page = client.get(f"/bots/{version.bot_id}/").content.decode()
    assert page.count("It crashed") == 1
    assert "exit status 1" in page and "Traceback: KeyError &#x27;hand&#x27;" in page


@pytest.mark.django_db(transaction=True)
def test_two_failures_recorded_at_once_tell_the_owner_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both matches' runs are written before either counts (the barrier): without the version's lock each would
    see its own run and the earlier ones only, find exactly three in a row, and tell the owner."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    version, matches = uploaded_in_matches(FAILURES_IN_A_ROW + 1)
    for match in matches[: FAILURES_IN_A_ROW - 1]:
        record(match, version, CRASHED)
    both_written = threading.Barrier(2, timeout=20)

    def count_when_both_are_written(*, version_id: int) -> None:
        both_written.wait()
        bot_failure_counted(version_id=version_id)

    monkeypatch.setattr(play, "bot_failure_counted", count_when_both_are_written)

    def record_in_thread(match: Match) -> None:
        try:
            record(match, version, CRASHED)
        finally:
            connection.close()

    threads = [threading.Thread(target=record_in_thread, args=(match,)) for match in matches[FAILURES_IN_A_ROW - 1 :]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    runs = BotRun.objects.filter(participant__entrant__bot_version=version, failure="crash")
    assert runs.count() == FAILURES_IN_A_ROW + 1
    assert len(crashing_notices(version)) == 1
