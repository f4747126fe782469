"""Live refereed matches through the services: starting, moves, their refusals, clocks, bots and recording."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from engine.fairness import commitment
from engine.match import game_seed
from engine.record import Record
from tests.tournaments.live_support import LIVE_GAMES, assert_recorded_fairly, live_match, pick
from tournaments.live_selectors import Viewer, live_table, table_snapshot
from tournaments.models import Game, LiveMove, LiveTable, Match, Standing
from tournaments.services.live import MoveOutcome, NotAtTable, live_clocks_enforce, live_move
from tournaments.services.live_tables import LiveConflict

pytestmark = pytest.mark.django_db


def table_for(match: Match, participant: int | None) -> dict[str, Any]:
    match.refresh_from_db()
    return live_table(snapshot=table_snapshot(match.pk), viewer=Viewer(participant))


def play_out(match: Match, players: list[Any], seed: int = 0) -> int:
    """Every person picks a random legal action until the match ends; the moves made."""
    rng = random.Random(seed)
    moves = 0
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            return moves
        acted = False
        for index, player in enumerate(players):
            table = table_for(match, index)
            if table["legal_actions"]:
                live_move(
                    match_id=match.pk,
                    player=player,
                    action=pick(table, rng),
                    version=table["version"],
                    client_move_id=f"m{moves}",
                )
                moves += 1
                acted = True
        assert acted, "a live match waits on nobody"


@pytest.mark.parametrize(("game", "people", "options"), LIVE_GAMES)
def test_people_play_every_game_to_a_recorded_match(
    game: str, people: int, options: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        match, players = live_match(game, people=people, options=options, games=2)
    play_out(match, players)
    assert_recorded_fairly(match)
    standings = Standing.objects.filter(competition=match.competition_id)
    assert sorted(s.played for s in standings) == [1] * people
    assert sum(s.games_played for s in standings) == 2 * people


def test_a_started_match_is_live_with_a_commitment_per_game_and_no_seed_in_view() -> None:
    match, _ = live_match("1923", options={"mode": "set"}, games=3)
    assert match.status == Match.Status.LIVE
    assert len(match.commitments) == 3
    assert match.commitments[1] == commitment(game_seed(match.seed, 1), match.salt)
    seat_view = table_for(match, 0)
    text = repr(seat_view)
    assert str(match.seed) not in text and match.salt not in text
    assert seat_view["seat"] == 0 and seat_view["legal_actions"] == ["DRAW", "LOCK"]
    assert seat_view["observation"]["hand"]  # the seat's own right card
    spectator = table_for(match, None)
    assert spectator["seat"] is None and spectator["legal_actions"] == []
    assert spectator["observation"]["hand"] is None


def test_simultaneous_choices_wait_for_every_seat_and_stay_private() -> None:
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    version = table_for(match, 0)["version"]
    moved = live_move(match_id=match.pk, player=alice, action="lock", version=version, client_move_id="a1")
    assert (moved.outcome, moved.version) == (MoveOutcome.APPLIED, version + 1)
    for viewer in (1, None):
        table = table_for(match, viewer)
        assert table["awaiting"] == [1]
        assert table["seats"][0]["acted"] is True
        assert "LOCK" not in repr(table["observation"]).upper().replace("LOCKED", "")
    # Bob's version predates Alice's choice but not the decision: it is not stale.
    live_move(match_id=match.pk, player=bob, action="DRAW", version=version, client_move_id="b1")
    table = table_for(match, 0)
    assert table["seats"][0]["acted"] is False
    assert LiveTable.objects.get(match=match).decision_version == table["version"]
    assert Record.from_dict(_record_so_far(match)).actions[0] == ["LOCK", "DRAW"]


def _record_so_far(match: Match) -> dict[str, Any]:
    from engine.referee import LiveGame

    return LiveGame.loads(LiveTable.objects.get(match=match).game).record().to_dict()


def test_an_illegal_move_is_refused_with_the_engines_reason_and_changes_nothing() -> None:
    match, (alice, _) = live_match("banter")
    table = table_for(match, 1)  # seat 1 leads the first round of this seed, or seat 0 does
    leader = 0 if table_for(match, 0)["legal_actions"] else 1
    version = table["version"]
    with pytest.raises(ValidationError) as refused:
        live_move(match_id=match.pk, player=[alice, _][leader], action="PLAY ZZ", version=version, client_move_id="x")
    assert "illegal action 'PLAY ZZ'" in str(refused.value)
    assert table_for(match, 0)["version"] == version
    assert not LiveMove.objects.filter(match=match).exists()


def test_a_move_out_of_turn_stale_or_by_a_stranger_is_refused() -> None:
    match, (alice, bob) = live_match("banter")
    leader, follower = (alice, bob) if table_for(match, 0)["legal_actions"] else (bob, alice)
    version = table_for(match, 0)["version"]
    with pytest.raises(LiveConflict, match="no decision to make"):
        live_move(match_id=match.pk, player=follower, action="STOP", version=version, client_move_id="f")
    live_move(match_id=match.pk, player=leader, action="STOP", version=version, client_move_id="l1")
    with pytest.raises(LiveConflict, match="stale version"):
        live_move(match_id=match.pk, player=follower, action="STOP", version=version, client_move_id="f2")
    from tests.factories import PlayerFactory

    with pytest.raises(NotAtTable):
        live_move(match_id=match.pk, player=PlayerFactory(), action="STOP", version=version + 1, client_move_id="s")
    assert LiveMove.objects.filter(match=match).count() == 1


def test_a_retried_move_with_the_same_id_is_applied_once() -> None:
    match, (alice, _bob) = live_match("1923", options={"mode": "set"})
    version = table_for(match, 0)["version"]
    first = live_move(match_id=match.pk, player=alice, action="LOCK", version=version, client_move_id="same")
    again = live_move(match_id=match.pk, player=alice, action="lock", version=version, client_move_id="same")
    assert (first.outcome, again.outcome) == (MoveOutcome.APPLIED, MoveOutcome.REPLAYED)
    assert LiveMove.objects.filter(match=match).count() == 1
    with pytest.raises(LiveConflict, match="already used"):
        live_move(match_id=match.pk, player=alice, action="DRAW", version=version, client_move_id="same")


def test_a_person_out_of_time_forfeits_with_cause_timeout() -> None:
    match, (alice, _bob) = live_match("1923", options={"mode": "set"}, move_seconds=30)
    version = table_for(match, 0)["version"]
    live_move(match_id=match.pk, player=alice, action="LOCK", version=version, client_move_id="a")
    assert live_clocks_enforce(now=timezone.now() + timedelta(seconds=10)) == 0
    assert live_clocks_enforce(now=timezone.now() + timedelta(seconds=31)) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    record = Record.from_dict(Game.objects.get(match=match).record)
    assert record.forfeit is not None and (record.forfeit.seat, record.forfeit.cause) == (1, "timeout")
    assert record.result is not None and record.result["ranks"] == [1, 2]
    assert_recorded_fairly(match)


def test_a_move_after_the_deadline_forfeits_instead() -> None:
    match, (alice, _) = live_match("1923", options={"mode": "set"}, move_seconds=5)
    version = table_for(match, 0)["version"]
    late = timezone.now() + timedelta(seconds=6)
    outcome = live_move(match_id=match.pk, player=alice, action="LOCK", version=version, client_move_id="a", now=late)
    assert outcome.outcome is MoveOutcome.TIMED_OUT
    match.refresh_from_db()
    assert match.status == Match.Status.DONE


def test_a_bot_seat_is_played_by_the_workers(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        match, (alice,) = live_match("banter", people=1, bots=1)
    rng = random.Random(3)
    moves = 0
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            break
        table = table_for(match, 0)
        assert table["legal_actions"], "the table waits on the bot after its task ran"
        with django_capture_on_commit_callbacks(execute=True):
            live_move(
                match_id=match.pk,
                player=alice,
                action=pick(table, rng),
                version=table["version"],
                client_move_id=str(moves),
            )
        moves += 1
    assert_recorded_fairly(match)
    assert LiveMove.objects.filter(match=match, client_move_id__startswith="bot/").exists()


def test_war_needs_no_decision_and_is_recorded_by_the_workers(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        match, _ = live_match("war", games=3)
    assert_recorded_fairly(match)


def test_cancelling_the_competition_stops_its_live_tables() -> None:
    from tournaments.services.competitions import competition_cancel

    match, (alice, _) = live_match("1923", options={"mode": "set"})
    competition_cancel(competition=match.competition)
    with pytest.raises(LiveConflict, match="cancelled"):
        live_move(match_id=match.pk, player=alice, action="LOCK", version=1, client_move_id="a")


class _Deadlock(Exception):
    sqlstate = "40P01"


def _aborted(sqlstate_error: Exception) -> Exception:
    from django.db import OperationalError

    error = OperationalError("aborted")
    error.__cause__ = sqlstate_error
    return error


def test_a_transaction_aborted_to_break_a_deadlock_runs_again_and_other_errors_do_not() -> None:
    from tournaments.services.live import retrying_deadlocks

    calls: list[int] = []

    def twice_deadlocked() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise _aborted(_Deadlock())
        return "done"

    assert retrying_deadlocks(twice_deadlocked) == "done" and len(calls) == 3

    def broken() -> str:
        calls.append(1)
        raise _aborted(ValueError("not a deadlock"))

    calls.clear()
    with pytest.raises(Exception, match="aborted"):
        retrying_deadlocks(broken)
    assert len(calls) == 1
