"""What the admin site shows an organiser of one club (issue 21, finding 8): the players who are members of
the clubs they organise and the bots those members own; never another club's people, usernames, bots or
code hashes, on any list, change page, autocomplete or raw-id lookup. Superusers see everything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from league.models import Bot, BotVersion, Club, Membership, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

HOME_HASH, AWAY_HASH, STRANGER_HASH = "1" * 64, "2" * 64, "3" * 64


@dataclass
class Scene:
    home: Club
    away: Club
    organiser: Player
    member: Player
    outsider: Player  # a member of the away club only
    stranger: Player  # in no club
    home_bot: Bot
    away_bot: Bot
    stranger_bot: Bot


def upload(bot: Bot, sha256: str) -> BotVersion:
    return BotVersionFactory(
        bot=bot,
        number=1,
        kind=BotVersion.Kind.UPLOAD,
        strategy="",
        entry="bot.py",
        filename="bot.py",
        sha256=sha256,
    )


def player(username: str, **user: Any) -> Player:
    return PlayerFactory(user=UserFactory(username=username, **user), display_name=username.split("-")[0].capitalize())


@pytest.fixture
def scene() -> Scene:
    home, away = ClubFactory(name="Home"), ClubFactory(name="Away")
    organiser = player("olga-login", is_staff=True)
    member, outsider, stranger = player("mia-login"), player("zed-login"), player("sam-login")
    MembershipFactory(club=home, player=organiser, role=Membership.Role.ORGANISER)
    MembershipFactory(club=home, player=member)
    MembershipFactory(club=away, player=outsider, role=Membership.Role.ORGANISER)
    home_bot, away_bot = BotFactory(owner=member, name="Miabot"), BotFactory(owner=outsider, name="Zedbot")
    stranger_bot = BotFactory(owner=stranger, name="Sambot")
    upload(home_bot, HOME_HASH)
    upload(away_bot, AWAY_HASH)
    upload(stranger_bot, STRANGER_HASH)
    return Scene(home, away, organiser, member, outsider, stranger, home_bot, away_bot, stranger_bot)


@pytest.fixture
def organiser(client: Client, scene: Scene) -> Client:
    client.force_login(scene.organiser.user)
    return client


def changelist(model: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


def change(obj: Any) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def autocomplete(client: Client, app: str, model: str, field: str, term: str) -> Any:
    query = {"app_label": app, "model_name": model, "field_name": field, "term": term}
    return client.get(reverse("admin:autocomplete"), query)


HIDDEN_TEXT = ("zed-login", "sam-login", "Zedbot", "Sambot", AWAY_HASH, STRANGER_HASH)


def test_the_lists_show_only_the_home_clubs_people_and_their_bots(organiser: Client, scene: Scene) -> None:
    players = organiser.get(changelist(Player))
    assert set(players.context["cl"].result_list) == {scene.organiser, scene.member}
    bots = organiser.get(changelist(Bot))
    assert set(bots.context["cl"].result_list) == {scene.home_bot}
    versions = organiser.get(changelist(BotVersion))
    assert {v.bot for v in versions.context["cl"].result_list} == {scene.home_bot}
    for page in (players, bots, versions):
        text = page.content.decode()
        assert not [hidden for hidden in HIDDEN_TEXT if hidden in text]
    # A member's username is theirs to see (they run the member's club); the filter by club lists theirs.
    assert "mia-login" in players.content.decode()


def test_searching_finds_no_one_outside_the_home_club(organiser: Client, scene: Scene) -> None:
    for term in ("zed", "sam-login", "Zedbot"):
        for model in (Player, Bot, BotVersion):
            assert organiser.get(changelist(model), {"q": term}).context["cl"].result_count == 0, (model, term)


def test_change_pages_of_other_clubs_people_and_bots_are_out_of_reach(organiser: Client, scene: Scene) -> None:
    hidden = [scene.outsider, scene.stranger, scene.away_bot, scene.stranger_bot, *scene.away_bot.versions.all()]
    for obj in hidden:
        response = organiser.get(change(obj))
        # As for another club's competition: the admin says the row does not exist and goes back to the index.
        assert response.status_code == 302, obj
        followed = organiser.get(change(obj), follow=True).content.decode()
        assert not [text for text in HIDDEN_TEXT if text in followed], obj
    assert organiser.get(change(scene.member)).status_code == 200
    assert organiser.get(change(scene.home_bot)).status_code == 200


def test_autocompletes_offer_only_the_home_clubs_people_bots_and_versions(organiser: Client, scene: Scene) -> None:
    lookups = [
        ("league", "membership", "player", "zed", []),
        ("league", "membership", "player", "sam", []),
        ("league", "membership", "player", "mia", ["Mia"]),
        ("league", "bot", "owner", "zed", []),
        ("league", "botversion", "bot", "bot", ["Miabot (war)"]),
        ("tournaments", "entrant", "bot_version", "bot", ["Miabot v1"]),
        ("tournaments", "entrant", "player", "olg", ["Olga"]),
    ]
    for app, model, field, term, expected in lookups:
        response = autocomplete(organiser, app, model, field, term)
        assert response.status_code == 200, (model, field, response.content)
        texts = [r["text"] for r in response.json()["results"]]
        assert sorted(texts) == sorted(expected), (model, field, term, texts)


def test_raw_id_lookups_list_only_the_home_club(organiser: Client, scene: Scene) -> None:
    popup = {"_popup": "1", "_to_field": "id"}
    assert set(organiser.get(changelist(Player), popup).context["cl"].result_list) == {scene.organiser, scene.member}
    assert set(organiser.get(changelist(Bot), popup).context["cl"].result_list) == {scene.home_bot}


def test_the_add_entrants_form_offers_only_the_home_clubs_bots(organiser: Client, scene: Scene) -> None:
    competition = CompetitionFactory(club=scene.home, created_by=scene.organiser)
    page = organiser.get(reverse("admin:tournaments_competition_add_entrants", args=[competition.pk]))
    form = page.context["form"]
    assert {v.bot for v in form.fields["bot_versions"].queryset} == {scene.home_bot}
    assert not [text for text in HIDDEN_TEXT if text in page.content.decode()]


def test_user_accounts_are_not_an_organisers_page(organiser: Client) -> None:
    user_model = get_user_model()
    assert organiser.get(changelist(user_model)).status_code == 403


def test_a_superuser_still_sees_everyone(client: Client, scene: Scene) -> None:
    client.force_login(player("root-login", is_staff=True, is_superuser=True).user)
    assert client.get(changelist(Player)).context["cl"].result_count == 5
    assert client.get(changelist(Bot)).context["cl"].result_count == 3
    assert client.get(change(scene.stranger_bot)).status_code == 200
    texts = [r["text"] for r in autocomplete(client, "league", "membership", "player", "zed").json()["results"]]
    assert texts == ["Zed"]


def test_an_organiser_reads_their_clubs_personal_invitations_and_no_others(organiser: Client, scene: Scene) -> None:
    from league.models import PersonalInvitation
    from league.personal_invitations import club_invite

    ours = club_invite(club=scene.home, player=scene.stranger, role="member", invited_by=scene.organiser)
    theirs = club_invite(club=scene.away, player=scene.member, role="member", invited_by=scene.outsider)
    listed = organiser.get(changelist(PersonalInvitation))
    assert list(listed.context["cl"].result_list) == [ours]
    assert organiser.get(change(ours)).status_code == 200
    assert organiser.get(change(theirs)).status_code == 302
    assert organiser.get(reverse("admin:league_personalinvitation_add")).status_code == 403
