"""Who is told that it is their turn at a live table, and when (docs/notifications.md, "Your turn and
correspondence play").

At a live pace a person is told as soon as the turn is theirs: they may have looked away from the tab, and
the mail waits its gathering while (``NOTIFY_MAIL_GATHER_SECONDS``), so a person who moves in time gets none.
At a correspondence pace (``move_seconds`` of at least ``CORRESPONDENCE_MOVE_SECONDS``) a turn that is played
within ``NOTIFY_TURN_QUIET_SECONDS`` is nobody's news: the table keeps when its waiting people are to be told
(``LiveTable.tell_at``), and beat's sweep tells them then, under the match's lock, so that a move and the sweep,
or two sweeps, never both act on one turn.

Whoever is told is remembered on the table (``LiveTable.turn_notices``) until their turn passes: a person is
told once however long they wait, and when they move, their notification goes unless it was mailed
(tournaments/notices.py ``your_turn_passed``). Everything here rides on writes the table makes anyway: a move
that passes no turn to or from a person costs no query.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.cache import cache

from tournaments import notices
from tournaments.models import Competition, LiveTable, Match

if TYPE_CHECKING:
    from tournaments.services.live_tables import LiveContext


def by_correspondence(competition: Competition) -> bool:
    """Whether the competition's tables are played at a pace of hours or days a decision, not at one sitting."""
    return competition.move_seconds >= settings.CORRESPONDENCE_MOVE_SECONDS


def turns_settle(
    context: LiveContext, table: LiveTable, deadlines: Mapping[int, datetime], told: Mapping[str, int]
) -> None:
    """After a change of the match, with ``table`` the one now in play: the people whose turn passed lose their
    notice, and those whose turn it now is are told (live pace) or will be (correspondence pace).

    ``deadlines`` has a seat for each person now to act; ``told`` is what the table held before the change
    (the finished table's, when a game just ended). Sets ``turn_notices`` and ``tell_at``; the caller saves.
    """
    waiting = _people(context, table, deadlines)
    kept = {key: pk for key, pk in told.items() if int(key) in waiting}
    notices.your_turn_passed([pk for key, pk in told.items() if key not in kept])
    untold = {player_id: seat for player_id, seat in waiting.items() if str(player_id) not in kept}
    if untold and not by_correspondence(context.competition):
        kept.update(_tell(context, table, untold, deadlines))
        untold = {}
    table.turn_notices = kept
    table.tell_at = table.turn_started_at + timedelta(seconds=settings.NOTIFY_TURN_QUIET_SECONDS) if untold else None


def turns_passed(told: Mapping[str, int]) -> None:
    """The match is over: nobody's turn is to come."""
    notices.your_turn_passed(list(told.values()))


def turns_withdrawn(*, competition_id: int | None = None, match_id: int | None = None) -> None:
    """Live matches stop without a move (a competition cancelled, a challenge's match expired), in the caller's
    transaction before it marks them: the turns their people were told of will never be played, and no mail is
    to tell of them."""
    tables = LiveTable.objects.filter(match__status=Match.Status.LIVE, finished_at__isnull=True)
    if competition_id is not None:
        tables = tables.filter(match__competition_id=competition_id)
    if match_id is not None:
        tables = tables.filter(match_id=match_id)
    held = tables.values_list("turn_notices", flat=True)
    notices.your_turn_passed([pk for told in held for pk in told.values()])


def turns_tell_waiting(context: LiveContext, table: LiveTable, deadlines: Mapping[int, datetime]) -> int:
    """The quiet while is over: tell every person still to act who has not been told, nor looked at the table
    since their turn began (they know); how many were told. Sets ``turn_notices`` and clears ``tell_at``; the
    caller saves."""
    waiting = _people(context, table, deadlines)
    untold = {player_id: seat for player_id, seat in waiting.items() if str(player_id) not in table.turn_notices}
    looked = _looked_since(context.match.pk, untold, table.turn_started_at)
    told = _tell(context, table, {p: seat for p, seat in untold.items() if p not in looked}, deadlines)
    table.turn_notices = {**table.turn_notices, **told, **{str(player_id): 0 for player_id in looked}}
    table.tell_at = None
    return len(told)


def table_seen(*, match_id: int, player_id: int) -> None:
    """A person seated at the match has just looked at its table (the page or the API): a turn of theirs that
    began before now needs no telling. Kept in the cache: losing it costs only a notice they did not need."""
    cache.set(_seen_key(match_id, player_id), time.time(), timeout=SEEN_KEPT_SECONDS)


#: As long as a look matters: a turn lasts at most the longest time for a decision (tournaments/formats/common.py).
SEEN_KEPT_SECONDS = 8 * 86400


def _seen_key(match_id: int, player_id: int) -> str:
    return f"live-table-seen:{match_id}:{player_id}"


def _looked_since(match_id: int, player_ids: Collection[int], since: datetime) -> set[int]:
    if not player_ids:
        return set()
    keys = {_seen_key(match_id, player_id): player_id for player_id in player_ids}
    seen = cache.get_many(list(keys))
    return {keys[key] for key, when in seen.items() if isinstance(when, float) and when >= since.timestamp()}


def _people(context: LiveContext, table: LiveTable, deadlines: Mapping[int, datetime]) -> dict[int, int]:
    """The player id of each person to act, to their seat."""
    waiting = {}
    for seat in deadlines:
        participant = context.participant_at(table, seat)
        if participant is not None and participant.player_id is not None:
            waiting[participant.player_id] = seat
    return waiting


def _tell(
    context: LiveContext, table: LiveTable, untold: Mapping[int, int], deadlines: Mapping[int, datetime]
) -> dict[str, int]:
    """Tell them; each player's id (as a JSON key) to their notification's, 0 where their settings made none
    (they count as told: telling them again would make none either)."""
    if not untold:
        return {}
    turns = [
        notices.Turn(
            player_id=player_id,
            opponents=[
                other.name
                for other_seat in range(context.seats)
                if other_seat != seat and (other := context.participant_at(table, other_seat)) is not None
            ],
            deadline=deadlines[seat],
        )
        for player_id, seat in sorted(untold.items())
    ]
    made = notices.your_turn(context.competition, context.match.pk, table.number, turns)
    return {str(player_id): made.get(player_id, 0) for player_id in untold}
