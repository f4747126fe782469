"""Drill B (docs/drill.md): PostgreSQL restarted in the middle of a live game played through a real server.

Two people and a bot play 1923 at a live table. The people are HTTP clients of a real web node
(uvicorn with DATABASE_POOL=true, as docs/deploy.md runs the live-table node; in the long form
also gunicorn's sync web node); the bot's seat is a real `celery worker`'s, with beat. Mid-game
the drill restarts the PostgreSQL cluster of the test database, then stops it for some seconds
with a person's move sent while it is down. A client does what the API asks of one: a move that
gets no answer or an error is sent again, with the same ``client_move_id``, until it is answered.

The game must end with every move the people had accepted stored exactly once and nothing else
stored, the recorded games made of exactly the stored decisions, no seat forfeiting, and the
server and the bot answering again by themselves; the drill prints how long each took after
PostgreSQL came back, and what the clients got meanwhile. It restarts the PostgreSQL of
DATABASE_URL: nothing else may use that cluster meanwhile.
"""

from __future__ import annotations

import random
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.db.models import Min

from engine.record import Record
from tests.e2e.conftest import BROKER, Workers, wait_for
from tests.e2e.drill_support import FULL, Timeline
from tests.e2e.live_drill_support import (
    Person,
    Server,
    assert_moves_stored_once,
    failures_between,
    first_ok_after,
    next_turn,
    play,
    reconnect,
    seconds,
    server_env,
)
from tests.e2e.service_control import Downtime, Postgres, port_open
from tests.tournaments.live_support import assert_recorded_fairly, live_match
from tournaments.models import Game, LiveMove, Match

pytestmark = pytest.mark.slow

#: Games of 1923 at a table of two people and a bot: about 20 moves of the people's each.
GAMES = 12 if FULL else 4
#: (moves the people make first, seconds PostgreSQL stays down: 0 is a plain restart).
PLAN: list[tuple[int, float]] = [(15, 0.0), (40, 20.0), (70, 0.0), (110, 5.0)] if FULL else [(15, 0.0), (40, 3.0)]
#: The server and the bot must be back within this of PostgreSQL's return.
RECOVERY_LIMIT = 30.0
SERVERS = ["uvicorn", "gunicorn"] if FULL else ["uvicorn"]
#: Seconds a person thinks between moves while PostgreSQL's tools run (a restart takes them 2.4 s around a
#: downtime of 0.1 s): the match must not be played out before the plan is.
PAUSE = 0.1


@pytest.mark.parametrize("kind", SERVERS)
def test_a_live_game_survives_postgresql_restarts_with_every_move_applied_once(
    kind: str, workers: Workers, local_postgres: Postgres, tmp_path: Path
) -> None:
    workers("w1", beat=True, extra_env={"LIVE_CLOCK_SECONDS": "1", "LIVE_BOT_GRACE": "2"})
    server = Server(kind, env=server_env(workers.env, BROKER), log_path=tmp_path / f"{kind}.log")
    server.start()
    try:
        match, players = live_match("1923", people=2, bots=1, options={"mode": "set"}, games=GAMES)
        people = [Person.of(player, server) for player in players]
        rng = random.Random(21)
        timeline = Timeline()
        outages: list[tuple[str, Downtime, int]] = []
        made = 0
        for before, down in PLAN:
            made += play(match.pk, people, rng=rng, go_on=lambda n, at=made, b=before: at + n < b)
            if down:
                label = f"stopped for {down:.0f} s"
                downtime, sends, during = stop_mid_move(local_postgres, down, match.pk, people, rng)
            else:
                label, sends = "restarted", 0
                downtime, during = restart_while_playing(local_postgres, match.pk, people, rng)
            assert downtime.went is not None and downtime.back is not None
            timeline.note(f"PostgreSQL {label} ({made} moves made)", at=downtime.went)
            timeline.note(f"PostgreSQL answers again, after {downtime.seconds:.2f} s", at=downtime.back)
            outages.append((label, downtime, sends))
            made += during
        play(match.pk, people, rng=rng)
    finally:
        server.kill()
    reconnect()
    wait_for(lambda: Match.objects.get(pk=match.pk).status == Match.Status.DONE, what="the match to be recorded")

    moves = [move for person in people for move in person.moves]
    print(f"\ndrill B, PostgreSQL restarted mid-game ({kind}): 1923, 2 people and a bot, {GAMES} games")
    print(f"  {len(moves)} moves by the people, {sum(len(p.requests) for p in people)} requests")
    print(f"  moves sent more than once: {sum(1 for m in moves if m.sends > 1)}, answered as replays: "
          f"{sum(1 for m in moves if m.replayed)}")  # fmt: skip
    print(timeline)
    for label, downtime, _ in outages:
        went, back = downtime.went, downtime.back
        assert went is not None and back is not None
        bot_back = LiveMove.objects.filter(match=match, client_move_id__startswith="bot/", created_at__gte=back)
        first_bot = bot_back.aggregate(first=Min("created_at"))["first"]
        print(f"  recovery after PostgreSQL {label}, in seconds from its return:")
        print(f"    the server answers: {seconds(first_ok_after(people, back, sent_after=went))}")
        print(f"    a move is accepted: {seconds(first_ok_after(people, back, sent_after=went, method='POST'))}")
        print(f"    the bot moves: {seconds(None if first_bot is None else (first_bot - back).total_seconds())}")
        answered = back + timedelta(seconds=first_ok_after(people, back, sent_after=went) or 0.0)
        print(f"    what the clients got from its start until then: {failures_between(people, went, answered)}")

    match.refresh_from_db()
    assert_recorded_fairly(match)
    assert_moves_stored_once(match, people)
    assert [Record.from_dict(g.record).forfeit for g in Game.objects.filter(match=match)] == [None] * GAMES
    for label, downtime, sends in outages:
        assert downtime.went is not None and downtime.back is not None
        recovered = first_ok_after(people, downtime.back, sent_after=downtime.went)
        assert recovered is not None and recovered < RECOVERY_LIMIT, f"the server after PostgreSQL {label}"
        if sends:
            # The move sent while PostgreSQL was down got no 200 then, and was accepted once after.
            assert sends > 1, f"the move sent while PostgreSQL was {label} was answered at once"


def restart_while_playing(
    postgres: Postgres, match_id: int, people: list[Person], rng: random.Random
) -> tuple[Downtime, int]:
    """Restart PostgreSQL while the people go on playing (the move in flight, if any, is retried): the downtime,
    and the moves made meanwhile."""
    result: list[Downtime] = []
    restarting = threading.Thread(target=lambda: result.append(postgres.restart()))
    restarting.start()
    made = play(match_id, people, rng=rng, go_on=lambda _: restarting.is_alive(), pause=PAUSE)
    restarting.join()
    return result[0], made


def stop_mid_move(
    postgres: Postgres, down: float, match_id: int, people: list[Person], rng: random.Random
) -> tuple[Downtime, int, int]:
    """Stop PostgreSQL for ``down`` seconds with a person about to move, and send the move while it is down;
    then play on while the cluster's tools finish. The downtime, how many times that move was sent before
    the server accepted it, and the moves made."""
    turn = next_turn(match_id, people)
    assert turn is not None, "the match ended before the outage"
    person, table = turn
    result: list[Downtime] = []
    stopping = threading.Thread(target=lambda: result.append(postgres.stop_for(down)))
    stopping.start()
    wait_for(lambda: not port_open(postgres.host, postgres.port), timeout=60, what="PostgreSQL to stop")
    person.move(match_id, table, table["legal_actions"][0], f"{person.name}/{len(person.moves)}")
    sends = person.moves[-1].sends
    made = 1 + play(match_id, people, rng=rng, go_on=lambda _: stopping.is_alive(), pause=PAUSE)
    stopping.join()
    return result[0], sends, made
