"""A competition's top bot versions as opponents for the offline gauntlet (``python -m engine gauntlet --vs-ladder``).

Read-only, and never code: a built-in version is named by its strategy, which the author's engine plays the same;
an HTTP version by its address, but only to the version's owner (an address may carry a token, as the bots API
keeps it); an uploaded version only by its kind, since its code is its owner's.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ladder_opponents import MAX_LADDER_TOP
from league.models import BotVersion
from tournaments.models import Competition
from tournaments.selectors import competition_standings

#: The most opponents one request lists: what the gauntlet's --top allows.
MAX_TOP = MAX_LADDER_TOP


@dataclass(frozen=True)
class Opponent:
    rank: int
    entrant: int
    name: str
    bot_version: int
    kind: str
    #: A built-in version's strategy; None for the others.
    strategy: str | None
    #: An HTTP version's address when the viewer owns it; None otherwise.
    url: str | None


def top_opponents(competition: Competition, *, top: int, viewer_user_id: int | None) -> list[Opponent]:
    """The first ``top`` bot versions of the table, in its order (a ladder's places or ratings), those who left,
    suspended versions (docs/bot-protocol.md, "When a bot breaks") and people left out. Three queries after the
    competition's own: the table's rows, which of their versions are suspended, then the versions listed."""
    playing = [
        row
        for row in competition_standings(competition)
        if row.standing.entrant.bot_version_id is not None and row.standing.entrant.left_at is None
    ]
    suspended = set(
        BotVersion.objects.filter(
            pk__in=[row.standing.entrant.bot_version_id for row in playing], suspended_at__isnull=False
        ).values_list("pk", flat=True)
    )
    rows = [row for row in playing if row.standing.entrant.bot_version_id not in suspended][:top]
    ids = [row.standing.entrant.bot_version_id for row in rows]
    # Not an upload's code nor a validation log: nothing of them is answered, and the code may be large.
    versions = BotVersion.objects.select_related("bot__owner").defer("source", "log").in_bulk(ids)
    opponents = []
    for row in rows:
        entrant = row.standing.entrant
        version = versions[entrant.bot_version_id]
        owned = viewer_user_id is not None and version.bot.owner.user_id == viewer_user_id
        opponents.append(
            Opponent(
                rank=row.rank,
                entrant=entrant.pk,
                name=entrant.name,
                bot_version=version.pk,
                kind=version.kind,
                strategy=version.strategy if version.kind == BotVersion.Kind.BUILTIN else None,
                url=version.url if version.kind == BotVersion.Kind.HTTP and owned else None,
            )
        )
    return opponents
