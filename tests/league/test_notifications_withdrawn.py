"""Withdrawing notices that are news no more (a "your turn" whose turn was played): those not mailed go, one
mailed stays, and one the mailer holds at this moment is skipped rather than waited for."""

from __future__ import annotations

import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from league.notifications.kinds import Kind
from league.notifications.models import Notification
from league.notifications.services import notifications_withdrawn, notify
from tests.factories import PlayerFactory
from tests.locks import held_elsewhere


def told(count: int) -> list[Notification]:
    return notify(players=[PlayerFactory() for _ in range(count)], kind=Kind.YOUR_TURN, title="Your turn")


@pytest.mark.django_db
def test_only_notices_not_mailed_are_withdrawn() -> None:
    waiting, mailed, untouched = told(3)
    Notification.objects.filter(pk=mailed.pk).update(mailed_at=timezone.now())
    assert notifications_withdrawn([waiting.pk, mailed.pk]) == 1
    assert set(Notification.objects.values_list("pk", flat=True)) == {mailed.pk, untouched.pk}
    assert notifications_withdrawn([]) == 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_a_notice_the_mailer_holds_is_skipped_not_waited_for() -> None:
    held, free = told(2)
    with held_elsewhere(lambda: list(Notification.objects.select_for_update().filter(pk=held.pk))):
        start = time.monotonic()
        with transaction.atomic():
            assert notifications_withdrawn([held.pk, free.pk]) == 1
        assert time.monotonic() - start < 2, "the withdrawal waited for the mailer's lock"
    assert list(Notification.objects.values_list("pk", flat=True)) == [held.pk]
