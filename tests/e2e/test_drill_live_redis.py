"""Drill C (docs/drill.md): Redis killed in the middle of live games, with moves still accepted meanwhile.

A real live-table node (uvicorn with DATABASE_POOL=true) serves three tables, with the shared
cache, the request rates and the live events in Redis, as production runs it; a real `celery
worker` with beat plays the bot's seat and keeps the clocks:

- two people play Banter (no bot): their moves must go on being accepted while Redis is down,
  and a page's events stream, opened before, must go on and see the game to its end;
- a person plays Banter against a bot: the bot's turn that falls in the outage is lost with
  Redis (its task could not be sent), and must come back by itself once Redis does;
- two people sit at 1923 with 2 seconds a move and never move: their time runs out while Redis
  is down, and the beat, back with Redis, must forfeit the late seat.

Then the drill SIGKILLs Redis, as a crash or the OOM killer would (nothing saved), and starts it
again some seconds later with CI's command. Every game must end with every accepted move stored
once and recorded as played, and the drill prints how long after Redis came back the bot moved,
the clock was enforced and events arrived. It kills the Redis of CELERY_BROKER_URL: nothing else
may use it meanwhile.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
from dataclasses import dataclass, field
from datetime import datetime
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
    moves_answered_between,
    play,
    reconnect,
    seconds,
    server_env,
)
from tests.e2e.service_control import Downtime, Redis, port_open
from tests.tournaments.live_support import assert_recorded_fairly, live_match
from tournaments.models import Game, LiveMove, LiveTable, Match

pytestmark = pytest.mark.slow

#: Seconds Redis stays down: longer than the clock table's 2 seconds a move, so its time runs out meanwhile.
DOWN = 15.0 if FULL else 4.0
#: Games of the two people's Banter: enough moves to go on through the whole outage.
GAMES = 4 if FULL else 2
CLOCK_SECONDS = 2
#: Seconds the two people think between moves while Redis is down.
PAUSE = 0.05
RECOVERY_LIMIT = 30.0


@dataclass
class Events:
    """A page's events stream, read on a thread: each table event's arrival, version and status."""

    server: Server
    person: Person
    match_id: int
    seen: list[tuple[datetime, int, str]] = field(default_factory=list)
    error: str = ""

    def start(self) -> threading.Thread:
        reader = threading.Thread(target=self._read, daemon=True)
        reader.start()
        return reader

    def _read(self) -> None:
        from django.utils import timezone

        stream = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            stream.request(
                "GET", f"/api/matches/{self.match_id}/events/", headers={"Authorization": f"Token {self.person.token}"}
            )
            response = stream.getresponse()
            event = ""
            while True:
                line = response.readline()
                if not line:
                    return
                text = line.decode().rstrip("\n")
                if text.startswith("event: "):
                    event = text[len("event: ") :]
                elif text.startswith("data: ") and event == "table":
                    table = json.loads(text[len("data: ") :])
                    self.seen.append((timezone.now(), int(table["version"]), str(table["status"])))
                    if table["status"] != "live":
                        return
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            stream.close()


def test_live_tables_go_on_through_a_redis_kill_and_recover_by_themselves(
    workers: Workers, local_redis: Redis, tmp_path: Path
) -> None:
    workers("w1", beat=True, extra_env={"LIVE_CLOCK_SECONDS": "1", "LIVE_BOT_GRACE": "2"})
    server = Server("uvicorn", env=server_env(workers.env, BROKER), log_path=tmp_path / "uvicorn.log")
    server.start()
    timeline = Timeline()
    try:
        duel, duellists = live_match("banter", people=2, games=GAMES)
        versus, (solo,) = live_match("banter", people=1, bots=1)
        people = [Person.of(player, server) for player in duellists]
        alone = [Person.of(solo, server)]
        rng = random.Random(31)
        play(duel.pk, people, rng=rng, go_on=lambda made: made < 20)
        play(versus.pk, alone, rng=rng, go_on=lambda made: made < 5)
        events = Events(server, people[0], duel.pk)
        reader = events.start()
        wait_for(lambda: bool(events.seen), timeout=30, what="the events stream's first table")
        # Nobody will move here: each seat has 2 seconds, which run out while Redis is down.
        clock, _ = live_match("1923", people=2, options={"mode": "set"}, move_seconds=CLOCK_SECONDS)

        result: list[Downtime] = []
        killing = threading.Thread(target=lambda: result.append(local_redis.kill_for(DOWN)))
        killing.start()
        wait_for(lambda: not port_open(local_redis.host, local_redis.port), timeout=30, what="Redis to die")
        # The bot's turn comes up while Redis is down: its task cannot be sent.
        play(versus.pk, alone, rng=rng, go_on=lambda made: made < 1)
        # At a person's pace, so the game goes on after Redis is back, for the events stream to show it.
        play(duel.pk, people, rng=rng, go_on=lambda _: killing.is_alive(), pause=PAUSE)
        killing.join()
        (downtime,) = result
        went, back = downtime.went, downtime.back
        assert went is not None and back is not None
        timeline.note("Redis SIGKILLed", at=went)
        timeline.note(f"Redis answers again, after {downtime.seconds:.2f} s", at=back)

        play(versus.pk, alone, rng=rng)
        play(duel.pk, people, rng=rng)
        reader.join(timeout=60)
    finally:
        server.kill()
    reconnect()
    for match in (duel, versus, clock):
        wait_for(lambda m=match: Match.objects.get(pk=m.pk).status == Match.Status.DONE, what=f"match {match.pk}")

    bot_moved = LiveMove.objects.filter(
        match=versus, client_move_id__startswith="bot/", created_at__gte=back
    ).aggregate(first=Min("created_at"))["first"]
    clock_table = LiveTable.objects.get(match=clock)
    events_after = [seen for seen in events.seen if seen[0] >= back]
    final_version = Match.objects.get(pk=duel.pk).version
    print(f"\ndrill C, Redis killed mid-game for {DOWN:.0f} s (uvicorn)")
    print(timeline)
    duel_during = moves_answered_between(people, went, back)
    versus_during = moves_answered_between(alone, went, back)
    failed = failures_between(people + alone, went, back)
    print(f"  moves accepted while Redis was down: {duel_during} at the people's table, {versus_during} at the bot's")
    print(f"  what the clients got while Redis was down: {failed or 'all answered'}")
    print("  recovery, in seconds from Redis's return:")
    print(f"    the bot moves: {seconds(None if bot_moved is None else (bot_moved - back).total_seconds())}")
    forfeited = None if clock_table.finished_at is None else (clock_table.finished_at - back).total_seconds()
    print(f"    the late seat forfeits on the beat: {seconds(forfeited)}")
    first_event = None if not events_after else (events_after[0][0] - back).total_seconds()
    print(f"    the events stream sends a table: {seconds(first_event)}")
    print(f"  the events stream: {len(events.seen)} tables, {len(events_after)} after Redis's return, "
          f"last at version {events.seen[-1][1] if events.seen else None} of {final_version}"
          f"{', ended with ' + events.error if events.error else ''}")  # fmt: skip

    # While Redis was down the site went on: every request was answered, and the moves were taken.
    assert failed == {}
    assert duel_during > 0 and versus_during == 1
    # Then everything came back by itself: the bot's lost turn, the beat's clocks, the events.
    assert bot_moved is not None and (bot_moved - back).total_seconds() < RECOVERY_LIMIT
    assert forfeited is not None and 0 <= forfeited < RECOVERY_LIMIT, "the late seat forfeited only with Redis back"
    clock_record = Record.from_dict(Game.objects.get(match=clock).record)
    assert clock_record.forfeit is not None and clock_record.forfeit.cause == "timeout"
    assert events.error == "" and events_after, "the events stream did not go on after Redis came back"
    assert events.seen[-1][1:] == (final_version, "done")
    # Nothing lost, nothing twice: the games are the moves made.
    for match, players in ((duel, people), (versus, alone)):
        match.refresh_from_db()
        assert_recorded_fairly(match)
        assert_moves_stored_once(match, players)
        assert all(Record.from_dict(g.record).forfeit is None for g in Game.objects.filter(match=match))
    assert_recorded_fairly(clock)
