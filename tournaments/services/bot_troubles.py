"""When an uploaded or HTTP bot keeps failing its matches, its owner hears of it: once when the failures in a
row reach ``FAILURES_IN_A_ROW``, and again only after a match it finished has broken the run."""

from __future__ import annotations

from league.models import BotVersion
from tournaments import notices
from tournaments.models import BotRun

#: Failed matches in a row that make a bot one that "keeps crashing". One failure is often the opponent's
#: strange move or a slow host; three in a row is the bot.
FAILURES_IN_A_ROW = 3


def bot_failure_counted(*, version_id: int) -> None:
    """Called in the transaction that wrote a failing run of the version: tell its owner if this run makes
    ``FAILURES_IN_A_ROW`` in a row.

    The version's row is locked first, so two matches recorded at once count in turn: the second sees the
    first's run, and only one of them finds the run of failures exactly long enough."""
    version = BotVersion.objects.select_for_update(of=("self",)).select_related("bot").get(pk=version_id)
    if version.suspended_at is not None:
        # Its owner was told more than this says (services/bot_suspension.py); a suspended version still playing a
        # competition that had started goes on failing there, and its owner hears of it again once reinstated.
        return
    latest = list(
        BotRun.objects.filter(participant__entrant__bot_version_id=version_id)
        .order_by("-id")
        .values_list("failure", flat=True)[: FAILURES_IN_A_ROW + 1]
    )
    failing, before = latest[:FAILURES_IN_A_ROW], latest[FAILURES_IN_A_ROW:]
    if len(failing) == FAILURES_IN_A_ROW and all(failing) and not any(before):
        notices.bot_crashing(version, causes=failing)
