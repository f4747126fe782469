"""Club webhooks with real workers (issue 24): a receiver that answers 500 twice and then 200 gets the event
exactly once, signed; and a delivery whose worker is killed in the middle of its post is posted by the next
worker's sweep, not lost."""

from __future__ import annotations

import time
from typing import Any

from django.db import connection

from league.joining import club_join
from league.models import Club, Membership, Player
from league.webhooks.models import WebhookDelivery
from league.webhooks.services import webhook_create
from tests.e2e.conftest import Workers, wait_for
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tests.league.webhook_receiver import Receiver, receiving

SECRET = "the-club-chat-secret"
#: Quick retries and sweeps, so that a test waits seconds rather than minutes.
QUICK = {
    "WEBHOOK_ALLOW_PRIVATE": "true",
    "WEBHOOK_RETRY_BASE_SECONDS": "1",
    "WEBHOOK_SWEEP_SECONDS": "1",
    "WEBHOOK_TIMEOUT_SECONDS": "5",
    "WEBHOOK_CLAIM_SECONDS": "6",
}


def club_with_webhook(receiver: Receiver, settings: Any) -> Club:
    settings.WEBHOOK_ALLOW_PRIVATE = True
    club = ClubFactory(name="Riverside", joining=Club.Joining.REQUEST)
    organiser = PlayerFactory()
    MembershipFactory(club=club, player=organiser, role=Membership.Role.ORGANISER)
    webhook_create(club=club, by=organiser, url=receiver.url, secret=SECRET)
    return club


def someone_asks_to_join(club: Club) -> Player:
    """A real event, committed at once (transactional_db): its delivery goes to the broker after the commit."""
    assert not connection.in_atomic_block
    asking = PlayerFactory(display_name="Nia")
    club_join(club=club, player=asking, note="hello")
    return asking


def test_a_receiver_answering_500_twice_then_200_gets_the_event_exactly_once(workers: Workers, settings: Any) -> None:
    with receiving(SECRET, answers=[500, 500]) as receiver:
        club = club_with_webhook(receiver, settings)
        workers("hooks", beat=True, extra_env=QUICK)
        someone_asks_to_join(club)
        wait_for(lambda: len(receiver.accepted()) == 1, timeout=60, what="the third attempt to be answered 200")
        # A few more sweeps: nothing more is posted once it was delivered.
        time.sleep(3)
        posts = receiver.all()
    assert [post.status for post in posts] == [500, 500, 200]
    assert all(post.signed for post in posts)
    delivery = WebhookDelivery.objects.get()
    assert {post.body["delivery"] for post in posts} == {delivery.pk}
    assert [post.body["attempt"] for post in posts] == [1, 2, 3]
    assert posts[-1].body["content"].startswith("Nia asks to join Riverside")
    assert delivery.delivered_at is not None and delivery.attempts == 3 and delivery.last_status == 200


def test_a_delivery_whose_worker_is_killed_mid_post_is_posted_by_the_next_worker(
    workers: Workers, settings: Any
) -> None:
    # The first post hangs (the chat is slow) while its worker is killed; the next is answered 200.
    with receiving(SECRET, answers=[500], delays=[30]) as receiver:
        club = club_with_webhook(receiver, settings)
        first = workers("first", beat=True, extra_env=QUICK)
        someone_asks_to_join(club)
        wait_for(lambda: receiver.arrived == 1, timeout=60, what="the first post to arrive")
        first.kill()
        held = WebhookDelivery.objects.get()
        assert held.delivered_at is None and held.attempts == 1
        workers("second", beat=True, extra_env=QUICK)
        wait_for(lambda: len(receiver.accepted()) == 1, timeout=60, what="the next worker's sweep to post it")
        delivery = WebhookDelivery.objects.get()
        assert delivery.delivered_at is not None and delivery.attempts == 2
        assert receiver.arrived == 2 and receiver.accepted()[0].signed
