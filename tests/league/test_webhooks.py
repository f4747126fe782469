"""Club webhooks (league/webhooks/, issue 24): the address filter, one delivery per event and webhook in the
event's transaction, the signed body, the schedule of retries, giving up, and the claim that keeps two workers
from posting one delivery at once."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.utils import timezone

from league.joining import club_join
from league.models import Club, Membership, Player
from league.notifications.kinds import Kind
from league.notifications.services import notifications_held
from league.webhooks.bodies import sent_bytes, signature
from league.webhooks.delivery import claim, deliver, deliver_due, retry_delay
from league.webhooks.models import ClubWebhook, WebhookDelivery
from league.webhooks.services import club_event, webhook_create, webhook_remove
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.league.webhook_receiver import receiving

pytestmark = pytest.mark.django_db

SECRET = "a-secret-of-twenty-chars"


def organiser_of(club: Club) -> Player:
    player = PlayerFactory(user=UserFactory(username=f"org-{club.slug}"))
    MembershipFactory(club=club, player=player, role=Membership.Role.ORGANISER)
    return player


@pytest.fixture
def club() -> Club:
    return ClubFactory(name="Riverside", slug="riverside", joining=Club.Joining.REQUEST)


@pytest.fixture
def private_allowed(settings: Any) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = True


def hook(club: Club, url: str = "http://127.0.0.1:9/hook", events: list[str] | None = None) -> ClubWebhook:
    return ClubWebhook.objects.create(club=club, url=url, secret=SECRET, events=events or [])


# --- registering: the address filter and the rest of what is refused ------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:8000/hook", "loopback"),
        ("http://[::1]/hook", "loopback"),
        ("http://10.1.2.3/hook", "private"),
        ("http://192.168.0.10/hook", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://localhost/hook", "loopback"),
        ("ftp://example.com/hook", "only http and https"),
        ("example.com/hook", "must start with http"),
        ("http://user:pw@example.com/", "user name or password"),
        ("", "is empty"),
    ],
)
def test_an_address_the_http_bots_may_not_reach_is_refused_in_words(
    club: Club, settings: Any, url: str, why: str
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(ValidationError) as refused:
        webhook_create(club=club, by=organiser_of(club), url=url, secret=SECRET)
    assert why in " ".join(refused.value.message_dict["url"])
    assert not ClubWebhook.objects.exists()


def test_a_short_secret_an_unknown_event_and_a_non_organiser_are_refused(club: Club, private_allowed: None) -> None:
    organiser = organiser_of(club)
    with pytest.raises(ValidationError) as refused:
        webhook_create(club=club, by=organiser, url="http://127.0.0.1/", secret="short", events=["no_such"])
    assert set(refused.value.message_dict) == {"secret", "events"}
    with pytest.raises(ValidationError) as personal:
        webhook_create(club=club, by=organiser, url="http://127.0.0.1/", secret=SECRET, events=[Kind.YOUR_TURN])
    assert "no such event of a club: your_turn" in personal.value.message_dict["events"][0]
    member = PlayerFactory()
    MembershipFactory(club=club, player=member)
    with pytest.raises(PermissionDenied):
        webhook_create(club=club, by=member, url="http://127.0.0.1/", secret=SECRET)
    made = webhook_create(
        club=club, by=organiser, url=" http://127.0.0.1/x ", secret=SECRET, events=["dispute", "challenged"]
    )
    assert made.url == "http://127.0.0.1/x" and made.events == ["challenged", "dispute"]


# --- one delivery per event and webhook, in the event's transaction ---------------------------------------------


def test_an_event_makes_one_delivery_for_each_active_webhook_that_wants_it(club: Club, settings: Any) -> None:
    everything, results = hook(club), hook(club, events=[Kind.MATCH_RECORDED])
    hook(club, events=[Kind.DISPUTE])
    removed = hook(club)
    removed.active = False
    removed.save()
    hook(ClubFactory())
    made = club_event(club_id=club.pk, kind=Kind.MATCH_RECORDED, text="Ann beat Bob", link="/competitions/7/")
    assert made == 2
    assert {d.webhook_id for d in WebhookDelivery.objects.all()} == {everything.pk, results.pk}
    body = WebhookDelivery.objects.first().body  # type: ignore[union-attr]
    assert body["content"] == body["text"] == f"Ann beat Bob {settings.SITE_URL}/competitions/7/"
    assert body["event"] == "match_recorded" and body["club"] == {"id": club.pk, "name": "Riverside"}
    assert body["summary"] == "Ann beat Bob"


def test_an_event_rolled_back_or_held_tells_no_webhook(club: Club) -> None:
    hook(club)
    with pytest.raises(RuntimeError), transaction.atomic():
        club_event(club_id=club.pk, kind=Kind.COMPETITION_STARTED, text="Spring has started")
        raise RuntimeError("the event fails")
    with notifications_held():
        club_event(club_id=club.pk, kind=Kind.COMPETITION_STARTED, text="history")
    assert not WebhookDelivery.objects.exists()


def test_the_delivery_is_sent_to_the_worker_only_after_the_commit(
    club: Club, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook(club)
    sent: list[tuple[str, tuple[object, ...], str]] = []
    monkeypatch.setattr("config.background.send_now", lambda name, args, *, queue: sent.append((name, args, queue)))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        club_event(club_id=club.pk, kind=Kind.COMPETITION_STARTED, text="Spring has started")
    assert sent == [] and len(callbacks) == 1
    callbacks[0]()
    delivery = WebhookDelivery.objects.get()
    assert sent == [("league.tasks.deliver_webhook", (delivery.pk,), "webhooks")]


def test_a_join_request_reaches_the_chat_without_its_note(club: Club) -> None:
    organiser_of(club)
    hook(club)
    club_join(club=club, player=PlayerFactory(display_name="Nia"), note="my phone number is 555")
    body = WebhookDelivery.objects.get().body
    assert body["summary"] == "Nia asks to join Riverside" and "555" not in json.dumps(body)
    assert body["url"].endswith("/clubs/riverside/requests/")


# --- the body, signed ---------------------------------------------------------------------------------------------


def test_the_signature_is_the_hmac_sha256_of_the_exact_bytes_under_the_secret() -> None:
    payload = sent_bytes({"event": "dispute"}, delivery_id=7, attempt=2, sent_at=timezone.now())
    expected = hmac.new(SECRET.encode(), payload, hashlib.sha256).hexdigest()
    assert signature(SECRET, payload) == f"sha256={expected}"
    body = json.loads(payload)
    assert body["delivery"] == 7 and body["attempt"] == 2 and body["event"] == "dispute"


# --- posting, retrying, giving up -------------------------------------------------------------------------------


def test_retries_wait_the_base_doubled_after_each_failure_up_to_the_most(settings: Any) -> None:
    settings.WEBHOOK_RETRY_BASE_SECONDS, settings.WEBHOOK_RETRY_MAX_SECONDS = 30, 3600
    waits = [retry_delay(n).total_seconds() for n in range(1, 10)]
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]


def test_a_delivery_answered_500_is_tried_again_later_and_then_delivered_signed(
    club: Club, private_allowed: None, settings: Any
) -> None:
    settings.WEBHOOK_RETRY_BASE_SECONDS = 30
    with receiving(SECRET, answers=[500]) as receiver:
        hook(club, url=receiver.url)
        club_event(club_id=club.pk, kind=Kind.DISPUTE, text="Ann disputes a game", data={"competition": 3})
        delivery = WebhookDelivery.objects.get()
        assert deliver(delivery.pk) is False
        delivery.refresh_from_db()
        assert (delivery.attempts, delivery.last_status, delivery.delivered_at) == (1, 500, None)
        assert delivery.last_error.startswith("HTTP 500")
        wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
        assert 25 < wait <= 30
        # Not due yet: neither the task nor the sweep posts it.
        assert deliver(delivery.pk) is None and deliver_due() == 0
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        assert deliver_due() == 1
        posts = receiver.all()
    delivery.refresh_from_db()
    assert delivery.delivered_at is not None and delivery.last_status == 200 and delivery.attempts == 2
    assert [post.status for post in posts] == [500, 200] and all(post.signed for post in posts)
    first, second = (post.body for post in posts)
    assert first["delivery"] == second["delivery"] == delivery.pk and [first["attempt"], second["attempt"]] == [1, 2]
    assert second["content"] == "Ann disputes a game" and second["data"] == {"competition": 3}
    headers = {name.lower(): value for name, value in posts[1].headers.items()}
    assert headers["x-cardclub-event"] == "dispute" and headers["x-cardclub-delivery"] == str(delivery.pk)


def test_a_delivery_is_given_up_after_the_last_attempt_with_the_reason(
    club: Club, private_allowed: None, settings: Any
) -> None:
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    with receiving(SECRET, answers=[503, 503, 503]) as receiver:
        hook(club, url=receiver.url)
        club_event(club_id=club.pk, kind=Kind.DISPUTE, text="x")
        delivery = WebhookDelivery.objects.get()
        for _ in range(3):
            WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
            assert deliver(delivery.pk) is False
    delivery.refresh_from_db()
    assert delivery.gave_up_at is not None and delivery.attempts == 3 and delivery.last_status == 503
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    assert deliver(delivery.pk) is None and len(receiver.all()) == 3


def test_the_address_is_checked_again_at_every_connect(club: Club, settings: Any) -> None:
    with receiving(SECRET) as receiver:
        # Registered while private addresses were allowed; no longer.
        hook(club, url=receiver.url)
        settings.WEBHOOK_ALLOW_PRIVATE = False
        club_event(club_id=club.pk, kind=Kind.DISPUTE, text="x")
        delivery = WebhookDelivery.objects.get()
        assert deliver(delivery.pk) is False
        assert receiver.all() == []
    delivery.refresh_from_db()
    assert "loopback" in delivery.last_error and delivery.last_status is None


def test_a_receiver_that_does_not_answer_in_time_is_a_failure_not_a_wait(
    club: Club, private_allowed: None, settings: Any
) -> None:
    settings.WEBHOOK_TIMEOUT_SECONDS = 1
    with receiving(SECRET, delays=[3]) as receiver:
        hook(club, url=receiver.url)
        club_event(club_id=club.pk, kind=Kind.DISPUTE, text="x")
        delivery = WebhookDelivery.objects.get()
        assert deliver(delivery.pk) is False
    delivery.refresh_from_db()
    assert "within 1 s" in delivery.last_error


def test_a_claimed_delivery_is_no_one_else_s_until_its_claim_runs_out(club: Club, settings: Any) -> None:
    settings.WEBHOOK_CLAIM_SECONDS = 60
    hook(club)
    club_event(club_id=club.pk, kind=Kind.DISPUTE, text="x")
    delivery = WebhookDelivery.objects.get()
    now = timezone.now()
    assert claim(delivery.pk, now) is not None
    assert claim(delivery.pk, now) is None
    assert claim(delivery.pk, now + timedelta(seconds=59)) is None
    # Its worker died mid-post: once the claim has run out, the sweep may try it again.
    again = claim(delivery.pk, now + timedelta(seconds=61))
    assert again is not None and again.attempts == 2


@pytest.mark.django_db(transaction=True)
def test_workers_claiming_one_delivery_at_the_same_moment_get_it_once(club: Club) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("concurrent claims need PostgreSQL")
    hook(club)
    club_event(club_id=club.pk, kind=Kind.DISPUTE, text="x")
    # Committed at once, so its first attempt has run inline (and failed): the claims come when it is due again.
    delivery = WebhookDelivery.objects.get()
    now = timezone.now() + timedelta(hours=2)
    start = threading.Barrier(6)
    claimed: list[bool] = []

    def one_worker() -> None:
        try:
            start.wait()
            claimed.append(claim(delivery.pk, now) is not None)
        finally:
            connection.close()

    threads = [threading.Thread(target=one_worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == [False] * 5 + [True]
    assert WebhookDelivery.objects.get().attempts == delivery.attempts + 1


def test_a_removed_webhook_gives_up_what_waited_and_hears_nothing_more(club: Club) -> None:
    organiser = organiser_of(club)
    webhook = hook(club)
    club_event(club_id=club.pk, kind=Kind.DISPUTE, text="x")
    webhook_remove(webhook=webhook, by=organiser)
    assert WebhookDelivery.objects.get().gave_up_at is not None
    assert club_event(club_id=club.pk, kind=Kind.DISPUTE, text="y") == 0
