"""The unread count every page's header shows (site/base.html), for a signed-in person."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.http import HttpRequest

from league.notifications.selectors import unread_count


def unread_notifications(request: HttpRequest) -> dict[str, Callable[[], int]]:
    """A callable, counted once and only by a page that shows it: the admin and the API never pay for it."""
    user = getattr(request, "user", None)

    @cache
    def count() -> int:
        return unread_count(user.pk) if user is not None and user.is_authenticated else 0

    return {"unread_notifications": count}
