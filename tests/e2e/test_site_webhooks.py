"""The club's "Chat and webhooks" page in chromium, at both widths: an organiser is refused a private address in
words, points the club's news at its chat, sees what was sent and how it went, and stops it again."""

from __future__ import annotations

import re
from typing import Any

import pytest

from league.joining import club_join
from league.models import Club, Membership
from league.webhooks.models import ClubWebhook, WebhookDelivery
from tests.e2e.site_checks import check_page, sign_in
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.league.webhook_receiver import receiving

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "a-secret-for-our-own-program"


def test_an_organiser_points_the_club_s_news_at_its_chat_and_reads_the_log(
    page: Any, live_server: Any, settings: Any
) -> None:
    base = live_server.url
    club = ClubFactory(name="Riverside", slug="riverside", joining=Club.Joining.REQUEST)
    olga = PlayerFactory(user=UserFactory(username="olga"), display_name="Olga")
    MembershipFactory(club=club, player=olga, role=Membership.Role.ORGANISER)
    sign_in(page, base, "olga")
    page.goto(f"{base}/clubs/riverside/")
    page.get_by_role("link", name="Chat and webhooks").first.click()
    expect(page.get_by_role("heading", name="Chat and webhooks", level=1)).to_be_visible()
    check_page(page, "club-webhooks-empty")

    # The address filter, in words, on the form.
    settings.WEBHOOK_ALLOW_PRIVATE = False
    page.get_by_label("Webhook address").fill("http://169.254.169.254/latest/meta-data/")
    page.get_by_role("button", name="Start posting").click()
    expect(page.get_by_text(re.compile("link-local"))).to_be_visible()
    check_page(page, "club-webhooks-refused")
    assert not ClubWebhook.objects.exists()

    settings.WEBHOOK_ALLOW_PRIVATE = True
    with receiving(SECRET) as receiver:
        page.get_by_label("Webhook address").fill(receiver.url)
        page.get_by_label("Secret (only for a program of your own)").fill(SECRET)
        page.get_by_role("button", name="Start posting").click()
        expect(page.get_by_text("From now on Riverside's news is posted to 127.0.0.1.")).to_be_visible()
        webhook = ClubWebhook.objects.get()
        assert webhook.events == [] and webhook.secret == SECRET
        # An event: delivered after its commit (the unit tests' workers run tasks inline).
        club_join(club=club, player=PlayerFactory(display_name="Nia"), note="hello")
        assert [post.body["summary"] for post in receiver.accepted()] == ["Nia asks to join Riverside"]
    page.reload()
    check_page(page, "club-webhooks-one")
    page.get_by_role("link", name="What was sent to 127.0.0.1").click()
    expect(page.get_by_text("Nia asks to join Riverside")).to_be_visible()
    expect(page.get_by_text("Delivered", exact=True)).to_be_visible()
    check_page(page, "club-webhook-log")
    assert WebhookDelivery.objects.get().delivered_at is not None

    page.get_by_role("link", name="Back to chat and webhooks").click()
    page.get_by_role("button", name="Stop posting to 127.0.0.1").click()
    expect(page.get_by_text("Nothing is posted anywhere yet.")).to_be_visible()
    assert not ClubWebhook.objects.get().active


def test_only_the_club_s_organisers_open_the_page(page: Any, live_server: Any) -> None:
    club = ClubFactory(slug="riverside")
    MembershipFactory(club=club, player=PlayerFactory(user=UserFactory(username="max")))
    sign_in(page, live_server.url, "max")
    response = page.goto(f"{live_server.url}/clubs/riverside/webhooks/")
    assert response is not None and response.status == 403
