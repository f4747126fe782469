"""The club's "Chat and webhooks" pages without a browser: the form calls the webhooks' service (a secret is
made when none is given; every event ticked means every event), the pages read in a fixed number of queries,
and only organisers open them. The journey in chromium is tests/e2e/test_site_webhooks.py."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from league.models import Club, Membership, Player
from league.notifications.kinds import Kind
from league.webhooks.models import ClubWebhook
from league.webhooks.services import CLUB_EVENTS, club_event
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def club() -> Club:
    return ClubFactory(name="Riverside", slug="riverside")


@pytest.fixture
def olga(club: Club) -> Player:
    player = PlayerFactory(user=UserFactory(username="olga"))
    MembershipFactory(club=club, player=player, role=Membership.Role.ORGANISER)
    return player


def signed_in(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def test_the_form_makes_a_secret_when_none_is_given_and_every_event_ticked_means_all(
    club: Club, olga: Player, settings: Any
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = True
    client = signed_in(olga)
    response = client.post("/clubs/riverside/webhooks/", {"url": "http://127.0.0.1:9/a", "events": CLUB_EVENTS})
    assert response.status_code == 302
    everything = ClubWebhook.objects.get()
    assert everything.events == [] and len(everything.secret) >= 16
    client.post("/clubs/riverside/webhooks/", {"url": "http://127.0.0.1:9/b", "events": [Kind.MATCH_RECORDED]})
    assert ClubWebhook.objects.latest("id").events == [Kind.MATCH_RECORDED]


def test_a_refused_address_is_put_on_the_form(club: Club, olga: Player, settings: Any) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = signed_in(olga).post("/clubs/riverside/webhooks/", {"url": "http://10.0.0.1/hook"})
    assert response.status_code == 400
    assert "address 10.0.0.1 is private" in response.content.decode()
    assert not ClubWebhook.objects.exists()


@pytest.mark.parametrize("events", [1, 30])
def test_the_pages_read_in_a_fixed_number_of_queries(
    club: Club, olga: Player, events: int, django_assert_max_num_queries: Any
) -> None:
    webhook = ClubWebhook.objects.create(club=club, url="http://127.0.0.1:9/", secret="s" * 16, created_by=olga)
    ClubWebhook.objects.create(club=club, url="http://127.0.0.1:8/", secret="s" * 16, created_by=olga)
    for n in range(events):
        club_event(club_id=club.pk, kind=Kind.COMPETITION_STARTED, text=f"Cup {n} has started")
    client = signed_in(olga)
    with django_assert_max_num_queries(12):
        assert client.get("/clubs/riverside/webhooks/").status_code == 200
    with django_assert_max_num_queries(12):
        log = client.get(f"/clubs/riverside/webhooks/{webhook.pk}/")
    assert log.status_code == 200 and f"Cup {events - 1} has started" in log.content.decode()


def test_a_member_and_another_club_s_organiser_are_refused(club: Club, olga: Player) -> None:
    webhook = ClubWebhook.objects.create(club=club, url="http://127.0.0.1:9/", secret="s" * 16)
    member = PlayerFactory()
    MembershipFactory(club=club, player=member)
    assert signed_in(member).get("/clubs/riverside/webhooks/").status_code == 403
    assert signed_in(member).post(f"/clubs/riverside/webhooks/{webhook.pk}/remove/").status_code == 403
    other = ClubFactory(slug="elsewhere")
    MembershipFactory(club=other, player=member, role=Membership.Role.ORGANISER)
    assert signed_in(member).get(f"/clubs/elsewhere/webhooks/{webhook.pk}/").status_code == 404
    assert ClubWebhook.objects.get().active
