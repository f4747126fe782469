"""A club's webhooks over the API: only its organisers register, list, remove and read the delivery log; the
secret is never shown back; bad input is a 400 that says what is wrong."""

from __future__ import annotations

import json
from typing import Any

import pytest

from league.models import Club, Membership, Player
from league.notifications.kinds import Kind
from league.webhooks.models import ClubWebhook, WebhookDelivery
from league.webhooks.services import club_event
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for, results

pytestmark = pytest.mark.django_db

SECRET = "sixteen-chars-at-least"


@pytest.fixture
def club() -> Club:
    return ClubFactory()


@pytest.fixture
def organiser(club: Club) -> Player:
    player = PlayerFactory()
    MembershipFactory(club=club, player=player, role=Membership.Role.ORGANISER)
    return player


@pytest.fixture(autouse=True)
def private_allowed(settings: Any) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = True


def register(player: Player | None, club: Club, **body: Any) -> Any:
    data = {"url": "http://127.0.0.1:9/hook", "secret": SECRET, **body}
    return client_for(player.user if player else None).post(f"/api/clubs/{club.pk}/webhooks/", data, format="json")


def test_an_organiser_registers_a_webhook_and_never_sees_its_secret_again(club: Club, organiser: Player) -> None:
    made = register(organiser, club, events=["match_recorded", "round_paired"])
    assert made.status_code == 201, made.content
    assert "secret" not in made.json() and made.json()["events"] == ["round_paired", "match_recorded"]
    listed = client_for(organiser.user).get(f"/api/clubs/{club.pk}/webhooks/")
    assert listed.status_code == 200
    (row,) = results(listed)
    assert row["url"] == "http://127.0.0.1:9/hook" and "secret" not in row
    assert ClubWebhook.objects.get().secret == SECRET


def test_everyone_but_the_organisers_is_refused(club: Club, organiser: Player) -> None:
    webhook = ClubWebhook.objects.create(club=club, url="http://127.0.0.1:9/", secret=SECRET)
    member = PlayerFactory()
    MembershipFactory(club=club, player=member)
    other_organiser = PlayerFactory()
    MembershipFactory(club=ClubFactory(), player=other_organiser, role=Membership.Role.ORGANISER)
    for player in (member, other_organiser):
        client = client_for(player.user)
        assert register(player, club).status_code == 403
        assert client.get(f"/api/clubs/{club.pk}/webhooks/").status_code == 403
        assert client.get(f"/api/clubs/{club.pk}/webhooks/{webhook.pk}/deliveries/").status_code == 403
        assert client.delete(f"/api/clubs/{club.pk}/webhooks/{webhook.pk}/").status_code == 403
    assert register(None, club).status_code == 401
    assert client_for().get(f"/api/clubs/{club.pk}/webhooks/").status_code == 401
    assert ClubWebhook.objects.filter(active=True).count() == 1


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"url": "http://169.254.169.254/"}, "url", "link-local"),
        ({"url": "gopher://example.com/"}, "url", "only http and https"),
        ({"url": ""}, "url", "blank"),
        # A number is taken as its text, which is no address.
        ({"url": 7}, "url", "must start with http"),
        ({"secret": "short"}, "secret", "at least 16"),
        ({"secret": None}, "secret", "null"),
        ({"events": ["nothing_of_the_kind"]}, "events", "not a valid choice"),
        # A person's own news is never posted to a club's chat: asking for it is refused, not silently empty.
        ({"events": ["your_turn"]}, "events", "not a valid choice"),
        ({"events": "dispute"}, "events", "list"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    club: Club, organiser: Player, settings: Any, body: dict[str, Any], field: str, words: str
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = register(organiser, club, **body)
    assert response.status_code == 400, response.content
    assert words.lower() in json.dumps(response.json()[field]).lower()


def test_removing_a_webhook_stops_it_and_keeps_its_log(club: Club, organiser: Player) -> None:
    webhook = ClubWebhook.objects.create(club=club, url="http://127.0.0.1:9/", secret=SECRET)
    other = ClubWebhook.objects.create(club=ClubFactory(), url="http://127.0.0.1:9/", secret=SECRET)
    client = client_for(organiser.user)
    assert client.delete(f"/api/clubs/{club.pk}/webhooks/{other.pk}/").status_code == 404
    assert client.delete(f"/api/clubs/{club.pk}/webhooks/{webhook.pk}/").status_code == 204
    assert results(client.get(f"/api/clubs/{club.pk}/webhooks/")) == []
    assert client.get(f"/api/clubs/{club.pk}/webhooks/{webhook.pk}/deliveries/").status_code == 200


def test_the_delivery_log_is_newest_first_in_pages(club: Club, organiser: Player) -> None:
    webhook = ClubWebhook.objects.create(club=club, url="http://127.0.0.1:9/", secret=SECRET)
    for n in range(3):
        club_event(club_id=club.pk, kind=Kind.COMPETITION_STARTED, text=f"Cup {n} has started")
    response = client_for(organiser.user).get(f"/api/clubs/{club.pk}/webhooks/{webhook.pk}/deliveries/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    assert [row["body"]["summary"] for row in body["results"]] == [f"Cup {n} has started" for n in (2, 1, 0)]
    assert body["results"][0]["state"] == "waiting" and body["results"][0]["attempts"] == 0
    assert WebhookDelivery.objects.count() == 3
