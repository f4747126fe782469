"""When a bot breaks (tournaments/services/bot_suspension.py): a version that crashes on every game is suspended at
the rule's count, its owner is told, its pending rating-ladder matches stop, and its owner reinstates it; a version
that loses by play, or whose opponents forfeit, never is."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import Client

from engine.sdk import make_http_server
from league.errors import Conflict
from league.models import BotVersion
from league.notifications.kinds import Kind
from league.notifications.models import Notification
from league.services import bot_version_reinstate
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    UserFactory,
)
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import started
from tests.tournaments.test_bot_troubles import CRASHED, record, uploaded_in_matches
from tournaments.models import Competition, Entrant, Match
from tournaments.services import bot_suspension
from tournaments.services.bot_suspension import (
    FORFEITS_TO_SUSPEND,
    RECENT_GAMES,
    RecentGame,
    breaks_the_rule,
    recent_games,
)
from tournaments.services.bot_troubles import FAILURES_IN_A_ROW
from tournaments.services.challenges import challenge_issue
from tournaments.services.competitions import competition_start, entrant_join
from tournaments.services.play import competition_play_pending, match_play
from tournaments.services.rating_ladder import rating_ladders_tick

pytestmark = pytest.mark.django_db

GAME = "banter"


def serve(act: Callable[[Any], str]) -> Iterator[str]:
    server = make_http_server(act, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/move"
    server.shutdown()
    server.server_close()


@pytest.fixture
def crashing_url(settings: Any) -> Iterator[str]:
    """An HTTP bot that raises on every decision: its server answers 500, which is a crash."""
    settings.BOT_HTTP_ALLOW_PRIVATE = True

    def act(turn: Any) -> str:
        raise KeyError("hand")

    yield from serve(act)


@pytest.fixture
def fair_url(settings: Any) -> Iterator[str]:
    """An HTTP bot that always plays its first legal move: no forfeits, and mostly losses against anyone trying."""
    settings.BOT_HTTP_ALLOW_PRIVATE = True
    yield from serve(lambda turn: str(turn.legal_actions[0]))


def http_version(url: str, name: str) -> BotVersion:
    return BotVersionFactory(bot=BotFactory(game=GAME, name=name), kind=BotVersion.Kind.HTTP, strategy="", url=url)


def round_robin_with(version: BotVersion, opponents: int, **fields: Any) -> tuple[Competition, list[Match]]:
    """A started round robin of one game a match: ``version`` against ``opponents`` built-in bots; its matches."""
    competition = CompetitionFactory(game=GAME, games_per_match=1, **fields)
    EntrantFactory(competition=competition, bot_version=version)
    for _ in range(opponents):
        EntrantFactory(competition=competition, bot_version__strategy="upgrader")
    started(competition)
    return competition, list(competition.matches.filter(participants__entrant__bot_version=version).order_by("pk"))


def suspended_notices(version: BotVersion) -> list[Notification]:
    return list(Notification.objects.filter(kind=Kind.BOT_SUSPENDED, player_id=version.bot.owner_id).order_by("id"))


def refreshed(version: BotVersion) -> BotVersion:
    version.refresh_from_db()
    return version


def test_the_rule_counts_own_forfeits_in_the_last_games_from_two_matches_at_least() -> None:
    crashes = [RecentGame(match_id=n, forfeit="crash") for n in range(FORFEITS_TO_SUSPEND)]
    assert breaks_the_rule(crashes)
    assert not breaks_the_rule(crashes[:-1])  # one forfeit short
    assert not breaks_the_rule([RecentGame(match_id=1, forfeit="crash")] * RECENT_GAMES)  # one bad match of ten games
    played = [RecentGame(match_id=100 + n, forfeit="") for n in range(RECENT_GAMES - FORFEITS_TO_SUSPEND)]
    assert breaks_the_rule(played + crashes)  # 8 of 10
    assert not breaks_the_rule([*played, RecentGame(match_id=99, forfeit=""), *crashes[1:]])  # 7 of 10
    # Two long matches: the window holds both, and needs as great a share.
    long_ones = [RecentGame(match_id=1 + n // RECENT_GAMES, forfeit="crash") for n in range(2 * RECENT_GAMES)]
    assert breaks_the_rule(long_ones)
    assert not breaks_the_rule(long_ones[:-5] + [RecentGame(match_id=2, forfeit="")] * 5)


def test_a_version_that_crashes_on_every_game_is_suspended_at_the_rules_count_and_its_owner_told_once(
    crashing_url: str, sent: list[int], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    version = http_version(crashing_url, "Crasher")
    _, matches = round_robin_with(version, FORFEITS_TO_SUSPEND + 2)
    for played, match in enumerate(matches, start=1):
        with django_capture_on_commit_callbacks(execute=True):
            assert match_play(match_id=match.pk) is not None
        assert (refreshed(version).suspended_at is not None) == (played >= FORFEITS_TO_SUSPEND), played
    # A competition already running goes on with it, and keeps its results.
    assert all(match.status == Match.Status.DONE for match in Match.objects.filter(pk__in=[m.pk for m in matches]))
    assert version.suspension_causes == {"crash": FORFEITS_TO_SUSPEND}
    (told,) = suspended_notices(version)
    assert told.title == (
        f"Crasher (version {version.number}) is suspended: it forfeited {FORFEITS_TO_SUSPEND} of its last "
        f"{FORFEITS_TO_SUSPEND} games"
    )
    assert told.body.startswith(f"It crashed in {FORFEITS_TO_SUSPEND} games. It is not paired in rating ladders")
    assert told.link == f"/bots/{version.bot_id}/#matches"
    # The earlier warning came once, at its own count, and none after the suspension.
    crashing = Notification.objects.filter(kind=Kind.BOT_CRASHING, player_id=version.bot.owner_id)
    assert crashing.count() == 1 and FAILURES_IN_A_ROW < FORFEITS_TO_SUSPEND


def test_its_pending_ladder_pairings_stop_and_reinstating_it_lets_it_play_again(
    crashing_url: str, sent: list[int], django_capture_on_commit_callbacks: Callable[..., Any], settings: Any
) -> None:
    settings.RATING_LADDER_PLACEMENT_MATCHES = 0
    settings.RATING_LADDER_EXPLORATION_PERCENT = 0
    version = http_version(crashing_url, "Crasher")
    ladder = CompetitionFactory(game=GAME, format="rating_ladder", games_per_match=1, settings={"ladder_rounds": None})
    crasher = EntrantFactory(competition=ladder, bot_version=version)
    EntrantFactory.create_batch(3, competition=ladder)
    competition_start(competition=ladder)
    assert rating_ladders_tick() == 2
    waiting = ladder.matches.get(participants__entrant=crasher)
    assert waiting.status == Match.Status.PENDING

    _, matches = round_robin_with(version, FORFEITS_TO_SUSPEND)
    for match in matches[:FORFEITS_TO_SUSPEND]:
        with django_capture_on_commit_callbacks(execute=True):
            match_play(match_id=match.pk)
    assert refreshed(version).suspended_at is not None
    waiting.refresh_from_db()
    assert waiting.status == Match.Status.CANCELLED  # withdrawn, not played: no one is rated by it
    assert match_play(match_id=waiting.pk) is None  # a task already sent for it finds nothing to play

    competition_play_pending(competition=ladder)
    assert rating_ladders_tick() == 1
    (second,) = ladder.matches.filter(round__number=2)
    assert crasher.pk not in set(second.participants.values_list("entrant_id", flat=True))
    crasher.refresh_from_db()
    assert crasher.left_at is None  # still on the ladder, unpaired: its standing and history stay

    stranger = client_for(UserFactory())
    address = f"/api/bots/{version.bot_id}/versions/{version.number}/reinstate/"
    assert stranger.post(address).status_code == 403
    assert refreshed(version).suspended_at is not None
    answer = client_for(version.bot.owner.user).post(address)
    assert answer.status_code == 200, answer.content
    assert answer.json()["suspended_at"] is None and answer.json()["reinstated_at"] is not None
    assert client_for().post(address).status_code == 401
    missing = f"/api/bots/{version.bot_id}/versions/{version.number + 99}/reinstate/"
    assert client_for(version.bot.owner.user).post(missing).status_code == 404
    again = client_for(version.bot.owner.user).post(address)
    assert again.status_code == 409 and "is not suspended" in again.json()["detail"]

    competition_play_pending(competition=ladder)
    # The withdrawn match held nothing up: the rounds after it are rated.
    assert ladder.matches.filter(round__number__lte=2, status=Match.Status.DONE, rated=False).count() == 0
    assert rating_ladders_tick() == 2
    third = ladder.matches.filter(round__number=3)
    assert crasher.pk in set(third.values_list("participants__entrant_id", flat=True))


def test_reinstated_it_counts_afresh_and_its_owner_is_told_again(
    crashing_url: str, sent: list[int], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    version = http_version(crashing_url, "Crasher")
    _, matches = round_robin_with(version, 2 * FORFEITS_TO_SUSPEND)
    for match in matches[:FORFEITS_TO_SUSPEND]:
        match_play(match_id=match.pk)
    bot_version_reinstate(version=refreshed(version))
    assert recent_games(refreshed(version)) == []  # the games before the reinstatement no longer count
    for played, match in enumerate(matches[FORFEITS_TO_SUSPEND:], start=1):
        match_play(match_id=match.pk)
        assert (refreshed(version).suspended_at is not None) == (played >= FORFEITS_TO_SUSPEND), played
    assert len(suspended_notices(version)) == 2


def test_a_version_that_loses_by_play_or_whose_opponents_forfeit_is_never_suspended(
    crashing_url: str, fair_url: str, sent: list[int]
) -> None:
    fair = http_version(fair_url, "Fair")
    crasher = http_version(crashing_url, "Crasher")
    competition = CompetitionFactory(game=GAME, games_per_match=RECENT_GAMES)
    EntrantFactory(competition=competition, bot_version=fair)
    EntrantFactory(competition=competition, bot_version=crasher)
    for _ in range(2):
        EntrantFactory(competition=competition, bot_version__strategy="upgrader")
    competition_play_pending(competition=started(competition))
    fair_games = recent_games(refreshed(fair))
    assert len(fair_games) == 2 * RECENT_GAMES and not any(game.forfeit for game in fair_games)
    assert refreshed(fair).suspended_at is None and suspended_notices(fair) == []
    lost = Entrant.objects.get(competition=competition, bot_version=fair).standing.lost
    assert lost >= 1  # it did lose by play, and that never counts
    # The crasher forfeited every game of its three matches, fair's included: suspended after its second.
    assert refreshed(crasher).suspension_causes == {"crash": 2 * RECENT_GAMES}


def test_a_suspended_version_cannot_enter_start_or_be_challenged_until_reinstated(crashing_url: str) -> None:
    version = http_version(crashing_url, "Crasher")
    ladder = CompetitionFactory(game=GAME, format="challenge_ladder", settings={"challenge_reach": 3})
    defender = EntrantFactory(competition=ladder, bot_version=version)
    challenger = EntrantFactory(competition=ladder)
    competition_start(competition=ladder, order=[defender.pk, challenger.pk])
    version.suspended_at = version.created_at
    version.save()
    open_one = CompetitionFactory(game=GAME)
    said = f"Crasher v{version.number} is suspended for forfeiting most of its recent games"
    with pytest.raises(ValidationError, match=said):
        entrant_join(competition=open_one, bot_version=version)
    entered = CompetitionFactory(game=GAME)
    EntrantFactory(competition=entered, bot_version=version)
    EntrantFactory(competition=entered)
    with pytest.raises(ValidationError, match="or its entry be removed"):
        competition_start(competition=entered)
    assert Competition.objects.get(pk=entered.pk).status == Competition.Status.OPEN

    with pytest.raises(Conflict, match="is suspended"):
        challenge_issue(
            competition=ladder, challenger=challenger, defender=defender, issued_by=challenger.bot_version.bot.owner
        )


def test_the_owner_reinstates_it_with_the_button_on_the_bot_s_page_and_no_one_else_can(crashing_url: str) -> None:
    version = http_version(crashing_url, "Crasher")
    version.suspended_at = version.created_at
    version.suspension_causes = {"crash": 7, "timeout": 1}
    version.save()
    owner = Client()
    owner.force_login(version.bot.owner.user)
    page = owner.get(f"/bots/{version.bot_id}/").content.decode()
    assert "it crashed in 7 and ran out of time in 1 of its recent games." in page
    assert f"Reinstate version {version.number}" in page
    address = f"/bots/{version.bot_id}/versions/{version.number}/reinstate/"
    stranger = Client()
    stranger.force_login(UserFactory())
    assert stranger.post(address).status_code == 403
    assert refreshed(version).suspended_at is not None
    answer = owner.post(address, follow=True)
    assert refreshed(version).suspended_at is None
    page = answer.content.decode()
    assert f"Version {version.number} is reinstated" in page and "Reinstate version" not in page
    again = owner.post(address, follow=True).content.decode()
    assert "is not suspended" in again


@pytest.mark.django_db(transaction=True)
def test_two_recordings_at_the_count_suspend_it_and_tell_its_owner_once(
    crashing_url: str, sent: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both recordings' games are written before either counts (the barrier): without the version's lock each
    would read the games committed before it and its own, and both, or neither, would find the count."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    version = http_version(crashing_url, "Crasher")
    # Two competitions, so the two recordings do not queue on one competition's lock before they count.
    _, first = round_robin_with(version, FORFEITS_TO_SUSPEND - 1)
    _, second = round_robin_with(version, 1)
    for match in first[: FORFEITS_TO_SUSPEND - 2]:
        match_play(match_id=match.pk)
    assert refreshed(version).suspended_at is None
    both_written = threading.Barrier(2, timeout=30)
    count = bot_suspension.versions_forfeited

    def count_when_both_are_written(*, version_ids: Any) -> list[int]:
        both_written.wait()
        return count(version_ids=version_ids)

    monkeypatch.setattr("tournaments.services.results.versions_forfeited", count_when_both_are_written)

    def play_in_thread(match: Match) -> None:
        try:
            match_play(match_id=match.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=play_in_thread, args=(match,)) for match in (first[-1], second[0])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert refreshed(version).suspension_causes == {"crash": FORFEITS_TO_SUSPEND}
    assert len(suspended_notices(version)) == 1


def test_the_admin_lists_which_versions_are_suspended_and_filters_them(crashing_url: str) -> None:
    suspended = http_version(crashing_url, "Crasher")
    suspended.suspended_at = suspended.created_at
    suspended.suspension_causes = {"crash": 8}
    suspended.save()
    playing = http_version(crashing_url, "Steady")
    admin = Client()
    admin.force_login(UserFactory(is_staff=True, is_superuser=True))
    listed = admin.get("/admin/league/botversion/?suspended=yes").content.decode()
    assert "Crasher v" in listed and "Steady v" not in listed
    assert "Steady v" in admin.get("/admin/league/botversion/?suspended=no").content.decode()
    page = admin.get(f"/admin/league/botversion/{suspended.pk}/change/").content.decode()
    assert "Suspension causes" in page and "crash" in page
    assert playing.suspended_at is None


def test_a_challenge_ladder_s_page_offers_no_challenge_of_a_suspended_bot(crashing_url: str) -> None:
    version = http_version(crashing_url, "Crasher")
    ladder = CompetitionFactory(game=GAME, format="challenge_ladder", settings={"challenge_reach": 3})
    sam = MembershipFactory(club=ladder.club).player
    above = [EntrantFactory(competition=ladder, bot_version=version), EntrantFactory(competition=ladder)]
    mine = entrant_join(competition=ladder, player=sam)
    competition_start(competition=ladder, order=[*(entrant.pk for entrant in above), mine.pk])
    page = Client()
    page.force_login(sam.user)

    def buttons() -> list[str]:
        return re.findall(r'aria-label="Challenge ([^"]+)"', page.get(f"/competitions/{ladder.pk}/").content.decode())

    assert buttons() == [above[0].name, above[1].name]
    version.suspended_at = version.created_at
    version.save()
    assert buttons() == [above[1].name]
    assert "(suspended)" in page.get(f"/competitions/{ladder.pk}/").content.decode()


def test_a_suspended_version_failing_on_in_a_running_competition_brings_no_crashing_notice() -> None:
    version, matches = uploaded_in_matches(FAILURES_IN_A_ROW)
    version.suspended_at = version.created_at
    version.save()
    for match in matches:
        record(match, version, CRASHED)
    assert not Notification.objects.filter(kind=Kind.BOT_CRASHING).exists()
