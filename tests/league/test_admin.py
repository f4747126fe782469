"""The people-and-programs admin: pages render, writes go through the services, organisers see their clubs."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.models import Bot, BotVersion, Club, Membership, Player
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def change_url(obj: Any) -> str:
    return reverse(f"admin:league_{obj._meta.model_name}_change", args=[obj.pk])


def url(model: Any, view: str) -> str:
    return reverse(f"admin:league_{model._meta.model_name}_{view}")


@pytest.fixture
def root() -> Player:
    return PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True), display_name="Root")


@pytest.fixture
def boss(client: Client, root: Player) -> Client:
    client.force_login(root.user)
    return client


def organiser_of(club: Club, username: str = "olga") -> Player:
    player = PlayerFactory(user=UserFactory(username=username, is_staff=True), display_name=username.capitalize())
    MembershipFactory(club=club, player=player, role=Membership.Role.ORGANISER)
    return player


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def membership_forms(club: Club, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The club page's POST: its existing memberships as they are, then ``rows`` as changes and additions."""
    existing = list(club.memberships.order_by("id"))
    data: dict[str, Any] = {
        "memberships-TOTAL_FORMS": len(existing) + len([r for r in rows if "id" not in r]),
        "memberships-INITIAL_FORMS": len(existing),
    }
    by_id = {r["id"]: r for r in rows if "id" in r}
    new = iter([r for r in rows if "id" not in r])
    for index in range(data["memberships-TOTAL_FORMS"]):
        if index < len(existing):
            member = existing[index]
            row = by_id.get(member.pk, {})
            data[f"memberships-{index}-id"] = member.pk
            data[f"memberships-{index}-club"] = club.pk
            data[f"memberships-{index}-role"] = row.get("role", member.role)
        else:
            row = next(new)
            data[f"memberships-{index}-club"] = club.pk
            data[f"memberships-{index}-player"] = row["player"]
            data[f"memberships-{index}-role"] = row["role"]
    return data


# --- Every page renders --------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [Player, Club, Membership, Bot, BotVersion])
def test_every_changelist_change_and_add_page_renders_for_a_superuser(boss: Client, model: Any) -> None:
    version = BotVersionFactory()
    MembershipFactory(player=version.bot.owner)
    response = boss.get(url(model, "changelist"))
    assert response.status_code == 200
    assert response.context["cl"].result_count > 0
    for obj in model.objects.all()[:3]:
        assert boss.get(change_url(obj)).status_code == 200
    expected = 403 if model in (Membership, BotVersion) else 200
    assert boss.get(url(model, "add")).status_code == expected


@pytest.mark.parametrize("model", [Player, Club, Membership, Bot, BotVersion])
def test_a_changelist_takes_as_many_queries_for_many_rows_as_for_few(boss: Client, model: Any) -> None:
    MembershipFactory(player=BotVersionFactory().bot.owner)
    with CaptureQueriesContext(connection) as few:
        assert boss.get(url(model, "changelist")).status_code == 200
    for _ in range(4):
        MembershipFactory(player=BotVersionFactory().bot.owner, role=Membership.Role.ORGANISER)
    with CaptureQueriesContext(connection) as many:
        assert boss.get(url(model, "changelist")).status_code == 200
    assert len(many) == len(few)


def test_an_organiser_looks_up_only_their_clubs_members(client: Client) -> None:
    club = ClubFactory()
    organiser = organiser_of(club)
    MembershipFactory(club=club, player=PlayerFactory(display_name="Zelda"))
    PlayerFactory(display_name="Zed")  # in no club of theirs
    client.force_login(organiser.user)
    query = "?app_label=league&model_name=membership&field_name=player&term=ze"
    response = client.get(reverse("admin:autocomplete") + query)
    assert response.status_code == 200
    assert [r["text"] for r in response.json()["results"]] == ["Zelda"]


# --- Players -------------------------------------------------------------------------------------------


def test_adding_a_player_creates_the_login_and_the_membership_through_the_services(boss: Client) -> None:
    club = ClubFactory()
    data = {"username": "newbie", "display_name": "New Bie", "password": "s3cret-pass", "club": club.pk}
    response = boss.post(url(Player, "add"), {**data, "role": "member"})
    assert response.status_code == 302
    player = Player.objects.get(user__username="newbie")
    assert player.display_name == "New Bie" and player.user.check_password("s3cret-pass")
    assert Membership.objects.get(player=player).club == club
    response = boss.post(url(Player, "add"), {**data, "role": "member"})
    assert response.status_code == 200
    assert "the username 'newbie' is taken" in response.context["adminform"].form.errors["username"]
    assert get_user_model().objects.filter(username="newbie").count() == 1


def test_an_organisers_add_player_form_refuses_a_weak_password(client: Client) -> None:
    club = ClubFactory()
    client.force_login(organiser_of(club).user)
    data = {"username": "newbie", "display_name": "", "club": club.pk, "role": "member"}
    response = client.post(url(Player, "add"), {**data, "password": "1"})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["password"]  # Django's validators name what is wrong
    assert not get_user_model().objects.filter(username="newbie").exists()
    response = client.post(url(Player, "add"), {**data, "password": "s3cret-pass-long"})
    assert response.status_code == 302
    assert Player.objects.get(user__username="newbie").user.check_password("s3cret-pass-long")


def test_renaming_a_player_goes_through_player_update(boss: Client) -> None:
    player = PlayerFactory(display_name="Old")
    response = boss.post(change_url(player), {"display_name": "   "})
    assert response.status_code == 200
    assert "display_name" in response.context["adminform"].form.errors
    assert boss.post(change_url(player), {"display_name": "New"}).status_code == 302
    player.refresh_from_db()
    assert player.display_name == "New"


# --- Clubs ---------------------------------------------------------------------------------------------


def test_a_superuser_creates_a_club_with_its_first_organiser(boss: Client) -> None:
    first = PlayerFactory()
    response = boss.post(url(Club, "add"), {"name": "Aces", "slug": "aces", "organiser": first.pk})
    assert response.status_code == 302
    club = Club.objects.get(slug="aces")
    assert list(club.memberships.values_list("player", "role")) == [(first.pk, "organiser")]


def test_an_organiser_changes_roles_from_the_club_page_but_adds_no_one(client: Client) -> None:
    club = ClubFactory()
    organiser = organiser_of(club)
    newcomer, member = PlayerFactory(), MembershipFactory(club=club).player
    client.force_login(organiser.user)
    page = client.get(change_url(club))
    assert page.context["inline_admin_formsets"][0].has_add_permission is False
    member_row = club.memberships.get(player=member)
    data = membership_forms(
        club, [{"id": member_row.pk, "role": "organiser"}, {"player": newcomer.pk, "role": "member"}]
    )
    response = client.post(change_url(club), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    # The role changed; the row for a newcomer was not the organiser's to add (they invite, the person accepts).
    roles = dict(club.memberships.values_list("player_id", "role"))
    assert roles == {organiser.pk: "organiser", member.pk: "organiser"}


def test_a_superuser_adds_members_from_the_club_page(boss: Client) -> None:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).player
    newcomer = PlayerFactory()
    response = boss.post(change_url(club), membership_forms(club, [{"player": newcomer.pk, "role": "referee"}]))
    assert response.status_code == 302, response.context and response.context["errors"]
    assert dict(club.memberships.values_list("player_id", "role")) == {
        organiser.pk: "organiser",
        newcomer.pk: "referee",
    }
    # The same person twice is a form error, not a second row.
    response = boss.post(change_url(club), membership_forms(club, [{"player": newcomer.pk, "role": "member"}]))
    assert response.status_code == 200
    assert club.memberships.count() == 2


def test_an_organiser_sees_only_the_clubs_they_organise(client: Client) -> None:
    home, away = ClubFactory(name="Home"), ClubFactory(name="Away")
    organiser = organiser_of(home)
    MembershipFactory(club=away, player=organiser, role=Membership.Role.MEMBER)
    client.force_login(organiser.user)
    listed = client.get(url(Club, "changelist")).context["cl"].result_list
    assert [c.name for c in listed] == ["Home"]
    assert client.get(change_url(away)).status_code == 302
    assert client.get(url(Club, "add")).status_code == 403
    form = client.get(url(Player, "add")).context["adminform"].form
    assert list(form.fields["club"].queryset) == [home]


def test_staff_who_organise_no_club_cannot_use_the_league_pages(client: Client) -> None:
    member = PlayerFactory(user=UserFactory(username="mel", is_staff=True))
    MembershipFactory(player=member, role=Membership.Role.MEMBER)
    client.force_login(member.user)
    for model in (Player, Club, Membership, Bot, BotVersion):
        assert client.get(url(model, "changelist")).status_code == 403


# --- Bots ----------------------------------------------------------------------------------------------


def test_adding_a_bot_with_its_first_built_in_version(boss: Client, root: Player) -> None:
    data = {"owner": root.pk, "name": "Counting", "game": "1923", "description": "", "strategy": "upgrader"}
    response = boss.post(url(Bot, "add"), data)
    assert response.status_code == 200
    assert "1923 has no strategy 'upgrader'" in response.context["adminform"].form.errors["strategy"][0]
    assert boss.post(url(Bot, "add"), {**data, "strategy": "counter"}).status_code == 302
    bot = Bot.objects.get(name="Counting")
    assert list(bot.versions.values_list("number", "kind", "strategy", "status")) == [
        (1, "builtin", "counter", "ready")
    ]
    response = boss.post(url(Bot, "add"), {**data, "strategy": ""})
    assert "already has a bot called 'Counting'" in response.context["adminform"].form.errors["name"][0]


def bot_page_data(bot: Bot, **fields: Any) -> dict[str, Any]:
    versions = list(bot.versions.order_by("number"))
    data: dict[str, Any] = {
        "name": bot.name,
        "description": bot.description,
        "versions-TOTAL_FORMS": len(versions) + 1,
        "versions-INITIAL_FORMS": len(versions),
    }
    for index, version in enumerate(versions):
        data[f"versions-{index}-id"] = version.pk
        data[f"versions-{index}-bot"] = bot.pk
    data[f"versions-{len(versions)}-bot"] = bot.pk
    return {**data, **fields}


def test_the_owner_adds_a_version_and_renames_the_bot_through_the_services(client: Client) -> None:
    club = ClubFactory()
    owner = organiser_of(club)
    bot = BotFactory(owner=owner, game="banter", name="Bant")
    BotVersionFactory(bot=bot, number=1, strategy="random")
    client.force_login(owner.user)
    response = client.post(change_url(bot), bot_page_data(bot, **{"versions-1-strategy": "tracker"}))
    assert response.status_code == 200
    assert bot.versions.count() == 1
    data = bot_page_data(bot, name="Banterer", **{"versions-1-strategy": "upgrader"})
    assert client.post(change_url(bot), data).status_code == 302
    bot.refresh_from_db()
    assert bot.name == "Banterer"
    assert list(bot.versions.values_list("number", "strategy")) == [(1, "random"), (2, "upgrader")]


def test_only_a_bots_owner_changes_or_retires_it(client: Client) -> None:
    club = ClubFactory()
    organiser = organiser_of(club)
    # A member's bot: the organiser sees it, but it is the member's to change.
    theirs = BotFactory(owner=MembershipFactory(club=club).player, name="Theirs")
    ours = BotFactory(owner=organiser, name="Ours")
    client.force_login(organiser.user)
    page = client.get(change_url(theirs))
    assert page.status_code == 200 and page.context["has_change_permission"] is False
    assert client.post(change_url(theirs), bot_page_data(theirs, name="Hijacked")).status_code == 403
    data = {"action": "retire_bots", "_selected_action": [theirs.pk, ours.pk]}
    response = client.post(url(Bot, "changelist"), data, follow=True)
    assert messages_of(response) == [
        "Retired: Ours.",
        "Only a bot's owner may retire it; not retired: Theirs.",
    ]
    theirs.refresh_from_db()
    ours.refresh_from_db()
    assert (theirs.name, theirs.retired_at, ours.retired_at is not None) == ("Theirs", None, True)


def test_an_organiser_keeps_bots_only_for_their_clubs_members(client: Client) -> None:
    club = ClubFactory()
    organiser = organiser_of(club)
    member = MembershipFactory(club=club).player
    PlayerFactory()  # a stranger
    client.force_login(organiser.user)
    form = client.get(url(Bot, "add")).context["adminform"].form
    assert set(form.fields["owner"].queryset) == {organiser, member}


def test_bot_versions_are_read_only(boss: Client) -> None:
    version = BotVersionFactory()
    response = boss.get(change_url(version))
    assert response.context["has_change_permission"] is False
    assert boss.post(change_url(version), {"strategy": "counter"}).status_code == 403


def test_the_admin_shows_an_upload_by_name_and_checksum_but_never_its_log_code_or_url(
    client: Any, django_user_model: Any
) -> None:
    superuser = django_user_model.objects.create_superuser("root-admin", password="pw")
    client.force_login(superuser)
    version = BotVersionFactory(
        kind=BotVersion.Kind.UPLOAD,
        strategy="",
        source=b"SECRET_SOURCE = 1",
        filename="mine.py",
        entry="mine.py",
        sha256="a" * 64,
        log="PRIVATE-LOG-LINE",
    )
    page = client.get(reverse("admin:league_botversion_change", args=[version.pk])).text
    assert "mine.py" in page and "a" * 64 in page
    assert "PRIVATE-LOG-LINE" not in page and "SECRET_SOURCE" not in page
