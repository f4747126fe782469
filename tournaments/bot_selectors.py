"""Reads for a bot author's pages (tournaments/web/bots.py): my bots with their latest version, a bot's versions,
and the matches a bot played. Each owns its joins, so a page costs the same queries however many rows it shows.
"""

from __future__ import annotations

from django.db.models import Count, OuterRef, Prefetch, QuerySet, Subquery

from league.models import Bot, BotVersion, Player
from tournaments.models import MatchParticipant


def owner_bots(*, owner: Player) -> QuerySet[Bot]:
    """The owner's bots, active ones first, each with its latest version's number, kind and status annotated."""
    latest = BotVersion.objects.filter(bot=OuterRef("pk")).order_by("-number")
    return (
        Bot.objects.filter(owner=owner)
        .annotate(
            version_count=Count("versions"),
            latest_number=Subquery(latest.values("number")[:1]),
            latest_kind=Subquery(latest.values("kind")[:1]),
            latest_status=Subquery(latest.values("status")[:1]),
        )
        .order_by("retired_at", "name", "id")
    )


def owned_bot(*, bot_id: int) -> Bot | None:
    """A bot with its owner (whom the page checks against the signed-in person), or None."""
    return Bot.objects.select_related("owner").filter(pk=bot_id).first()


def bot_versions_newest_first(*, bot: Bot) -> list[BotVersion]:
    """Every version, newest first, without their code; the logs stay in the database too but the newest one's,
    which the bot's page shows (a log is up to BOT_LOG_BYTES, and a bot may have many versions)."""
    versions = list(BotVersion.objects.filter(bot=bot).defer("source", "log").order_by("-number"))
    for version in versions:
        version.bot = bot  # the page reads its owner's fields, never a query per row
    return versions


def bot_version_with_log(*, bot: Bot, number: int) -> BotVersion | None:
    version = BotVersion.objects.filter(bot=bot, number=number).defer("source").first()
    if version is not None:
        version.bot = bot
    return version


def bot_participations(*, bot: Bot) -> QuerySet[MatchParticipant]:
    """The bot's seats in matches, newest first, with the match, its competition and everyone at the table."""
    table = MatchParticipant.objects.select_related("entrant").order_by("rank", "seat")
    return (
        MatchParticipant.objects.filter(entrant__bot_version__bot=bot)
        .select_related("entrant__bot_version", "match__competition", "match__round", "bot_run")
        .prefetch_related(Prefetch("match__participants", queryset=table))
        .order_by("-match_id")
    )
