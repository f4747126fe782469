"""A challenge ladder's first places when its organiser does not set them: by rating.

An entrant's rating is the one it holds in its club's latest other competition of the same game
(the person, or any version of the bot); entrants with none follow, in the order they entered.
"""

from __future__ import annotations

from tournaments.models import Competition, Entrant, Standing


def ladder_seeding(competition: Competition, entrants: list[int]) -> list[int]:
    """Entrant ids, top place first: rated entrants by rating (highest first), then the rest by entry."""
    rated: dict[int, float] = {}
    for entrant in Entrant.objects.filter(pk__in=entrants).select_related("bot_version"):
        rating = _latest_rating(competition, entrant)
        if rating is not None:
            rated[entrant.pk] = rating
    by_rating = sorted(rated, key=lambda e: (-rated[e], entrants.index(e)))
    return by_rating + [e for e in entrants if e not in rated]


def _latest_rating(competition: Competition, entrant: Entrant) -> float | None:
    earlier = Standing.objects.filter(
        competition__club_id=competition.club_id, competition__game=competition.game, played__gt=0
    ).exclude(competition=competition)
    if entrant.player_id is not None:
        earlier = earlier.filter(entrant__player_id=entrant.player_id)
    elif entrant.bot_version is not None:
        earlier = earlier.filter(entrant__bot_version__bot_id=entrant.bot_version.bot_id)
    latest = earlier.order_by("-updated_at", "-id").values_list("ordinal", flat=True).first()
    return latest
