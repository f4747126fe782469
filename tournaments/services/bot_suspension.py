"""When a bot breaks (docs/bot-protocol.md, "When a bot breaks"): a version that forfeits most of its recent
games by its own fault is suspended, its owner is told, and its pending rating-ladder matches are withdrawn.

The rule counts games, not matches. Its window is the version's last ``RECENT_GAMES`` games since its owner
last reinstated it, and, when those all come from one match (a match of many games), the games of the match
before it too. The version is suspended when the window holds games of ``MATCHES_TO_SUSPEND`` matches or more,
at least ``FORFEITS_TO_SUSPEND`` of them forfeited by it, and at least that share of every ``RECENT_GAMES``
(8 in 10). Only the seat that forfeited is at fault: a game the opponent forfeited, and a game lost by play,
never count against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from engine.result import FORFEIT_CAUSES
from league.models import BotVersion
from tournaments import notices
from tournaments.models import Game
from tournaments.services.rating_ladder import suspended_pairings_withdrawn

#: The games the rule looks back over. Ten is a few evenings of a rating ladder at one game a match, and
#: few enough that a bot which has started crashing is stopped before it spoils many opponents' rounds.
RECENT_GAMES = 10
#: Forfeits among them that suspend. Eight of ten leaves room for a bot that times out now and then (a
#: slow host, a deep search) to keep playing, while one that crashes on every game is stopped at its
#: eighth: well after the owner has been told it keeps crashing (bot_troubles.FAILURES_IN_A_ROW matches).
FORFEITS_TO_SUSPEND = 8
#: A crash puts a bot out of the rest of its match, so one bad match of many games forfeits them all: the
#: forfeits must come from two matches at least, each played with a fresh sandbox or connection (hence the
#: window reaching back a match when its last games are all of one).
MATCHES_TO_SUSPEND = 2
#: The causes that are the bot's own fault: all the engine knows (engine/result.py). Whoever forfeits is
#: the seat the record names, so an opponent's forfeit is never this bot's.
OWN_FAULT = frozenset(FORFEIT_CAUSES)


class RecentGame(NamedTuple):
    """One of a version's recent games: its match, and the cause if the version forfeited it ("" if not)."""

    match_id: int
    forfeit: str


def forfeited_by(result: object, seating: object) -> tuple[int, str] | None:
    """The entrant that forfeited a game by its own fault and the cause, from the game's result document and
    seating (entrant ids by seat), as stored; None for a game played to its end."""
    forfeit = result.get("forfeit") if isinstance(result, dict) else None
    if not isinstance(forfeit, dict) or forfeit.get("cause") not in OWN_FAULT or not isinstance(seating, list):
        return None
    seat = forfeit.get("seat")
    if not isinstance(seat, int) or not 0 <= seat < len(seating):
        return None
    entrant = seating[seat]
    return (entrant, str(forfeit["cause"])) if isinstance(entrant, int) else None


def breaks_the_rule(window: Sequence[RecentGame]) -> bool:
    """Whether the games of a version's window (``recent_games``) suspend it."""
    forfeits = sum(1 for game in window if game.forfeit)
    return (
        forfeits >= FORFEITS_TO_SUSPEND
        and forfeits * RECENT_GAMES >= FORFEITS_TO_SUSPEND * len(window)
        and len({game.match_id for game in window}) >= MATCHES_TO_SUSPEND
    )


def versions_forfeited(*, version_ids: Iterable[int]) -> list[int]:
    """Called in the transaction that recorded games these versions forfeited by their own fault (after the
    games are written): suspend those the rule now catches; their ids.

    Versions are taken in id order, so two recordings that share versions lock them without a deadlock."""
    return [version_id for version_id in sorted(set(version_ids)) if _counted(version_id)]


def _counted(version_id: int) -> bool:
    # The version's row is locked first, as bot_failure_counted does: two recordings of its games at once
    # count in turn, the second reading the first's games (a statement after the lock sees what committed)
    # and its suspension, so a version is suspended, and its owner told, once. NO KEY UPDATE: entering the
    # version somewhere (a key share on it) does not wait for this.
    version = BotVersion.objects.select_for_update(of=("self",), no_key=True).select_related("bot").get(pk=version_id)
    if version.suspended_at is not None:
        return False
    recent = recent_games(version)
    if not breaks_the_rule(recent):
        return False
    version.suspended_at = timezone.now()
    version.suspension_causes = dict(Counter(game.forfeit for game in recent if game.forfeit).most_common())
    version.save(update_fields=["suspended_at", "suspension_causes"])
    notices.bot_suspended(version, causes=version.suspension_causes, games=len(recent))
    # Under each ladder's own lock, once this commits (services/rating_ladder.py says why).
    transaction.on_commit(lambda: suspended_pairings_withdrawn(version_id=version_id), robust=True)
    return True


def recent_games(version: BotVersion) -> list[RecentGame]:
    """The rule's window of the version's games since its owner last reinstated it, newest first: its last
    ``RECENT_GAMES``, and the match before them if they are all of one match."""
    games = Game.objects.filter(match__participants__entrant__bot_version_id=version.pk)
    if version.reinstated_at is not None:
        # Recorded after it (PostgreSQL stamps a game with its recording's start): a game played before the
        # owner reinstated the version never suspends it again.
        games = games.filter(recorded_at__gt=version.reinstated_at)
    games = games.order_by("-id")
    rows = _read(games[:RECENT_GAMES])
    if len(rows) == RECENT_GAMES and len({match_id for _, match_id, _ in rows}) == 1:
        # Two more reads, only for a version whose matches are longer than the window.
        before = games.filter(pk__lt=rows[-1][0]).values_list("match_id", flat=True).first()
        if before is not None:
            rows += _read(games.filter(match_id=before))
    return [RecentGame(match_id, forfeit) for _, match_id, forfeit in rows]


def _read(games: QuerySet[Game]) -> list[tuple[int, int, str]]:
    """Each game's id, match, and the cause if the version forfeited it ("" if not)."""
    rows = []
    for game_id, match_id, seating, result, entrant_id in games.values_list(
        "id", "match_id", "seating", "result", "match__participants__entrant_id"
    ):
        forfeit = forfeited_by(result, seating)
        rows.append((game_id, match_id, forfeit[1] if forfeit is not None and forfeit[0] == entrant_id else ""))
    return rows
