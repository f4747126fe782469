"""A person's calendar address: made, replaced by a new one, or turned off.

Each write takes the person's feed row under a lock (or makes it), so two clicks of "Make a new link" at once
leave one address, the later one.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from league.models import Player
from tournaments.calendar_tokens import new_nonce, token_hash, token_of
from tournaments.models import CalendarFeed


def calendar_feed_renew(*, player: Player) -> str:
    """Give the person a new calendar address, and return its token: any address they had stops working."""
    nonce = new_nonce()
    token = token_of(nonce)
    with transaction.atomic():
        CalendarFeed.objects.update_or_create(
            player=player,
            defaults={"nonce": nonce, "token_hash": token_hash(token), "created_at": timezone.now()},
        )
    return token


def calendar_feed_revoke(*, player: Player) -> bool:
    """Turn the person's calendar address off; False if they had none."""
    with transaction.atomic():
        deleted, _ = CalendarFeed.objects.filter(player=player).delete()
    return deleted > 0
