"""Names (issue 21, findings 5 and 10): a username or display name that folds (case, spaces, Unicode look-alikes)
to another player's username or display name is taken, and the database holds it against racing requests."""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import tomllib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from league import names
from league.accounts import AccountAdapter
from league.models import Player
from tests.factories import PlayerFactory
from tests.league.test_api_support import client_for

pytestmark = pytest.mark.django_db

TAKEN = "that name is taken, or looks too like one that is: choose another"
GOOD_PASSWORD = "quiet-harbour-lantern-42"


def rename(player: Player, display_name: str) -> Any:
    return client_for(player.user).patch("/api/players/me/", {"display_name": display_name}, format="json")


def register(**body: Any) -> Any:
    return APIClient().post("/api/auth/register/", body, format="json")


def racing(count: int, attempt: Callable[[int], int]) -> list[int]:
    """``attempt(i)`` for i in range(count), each in its own thread (so on its own database connection),
    all let go at once; the status codes they answered."""
    start = threading.Barrier(count)
    answers: list[int] = []

    def run(i: int) -> None:
        start.wait()
        try:
            answers.append(attempt(i))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def hold_after_the_check(monkeypatch: pytest.MonkeyPatch, target: Any, name: str, parties: int) -> None:
    """Make every racer pass the up-front check before any of them writes: the widest window a race can have,
    so only the database can still tell them apart."""
    real = getattr(target, name, None)
    if real is None:
        return  # no check to hold at (as before finding 10's fix): the racers simply race
    gate = threading.Barrier(parties, timeout=10)

    def held(*args: Any, **kwargs: Any) -> Any:
        # A racer refused before the gate breaks it: the rest go on.
        with contextlib.suppress(threading.BrokenBarrierError):
            gate.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, held)


# --- Finding 5: racing sign-ups of one name in several casings ------------------------------------


@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_sign_ups_of_one_name_in_five_casings_make_one_account(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("racing transactions need PostgreSQL")
    casings = ["racer", "Racer", "RACER", "rAcEr", "RaCeR"]
    # Each sign-up has been checked by the form (the name is free) before any is saved.
    hold_after_the_check(monkeypatch, AccountAdapter, "save_user", 20)

    def sign_up(i: int) -> int:
        response = register(username=casings[i % 5], password=GOOD_PASSWORD)
        return int(response.status_code)

    answers = racing(20, sign_up)
    assert sorted(answers) == [201] + [400] * 19
    [user] = get_user_model().objects.filter(username__iexact="racer")
    assert Player.objects.filter(user=user).count() == 1 and Player.objects.count() == 1
    # Signing in in lower case (or any case) finds that one account.
    token = APIClient().post("/api/auth/token/", {"username": "racer", "password": GOOD_PASSWORD}, format="json")
    assert token.status_code == 200, token.json()
    assert Token.objects.get(key=token.json()["token"]).user == user


def test_a_sign_up_whose_username_folds_to_another_players_display_name_is_refused() -> None:
    PlayerFactory(user__username="bob", display_name="Dealer")
    refused = register(username="DEALER", password=GOOD_PASSWORD)
    assert refused.status_code == 400
    assert refused.json() == {"username": [TAKEN]}
    assert not get_user_model().objects.filter(username="DEALER").exists()


@pytest.mark.parametrize("display_name", ["alice", "Dealer", "ａlice", "Dеaler"])  # full-width a; Cyrillic е
def test_a_sign_up_with_another_players_name_as_display_name_is_refused(display_name: str) -> None:
    PlayerFactory(user__username="alice")
    PlayerFactory(user__username="bob", display_name="Dealer")
    refused = register(username="newcomer", password=GOOD_PASSWORD, display_name=display_name)
    assert refused.status_code == 400
    assert refused.json() == {"display_name": [TAKEN]}
    assert not get_user_model().objects.filter(username="newcomer").exists()


def test_a_sign_up_may_show_its_own_username_in_another_case() -> None:
    made = register(username="newcomer", password=GOOD_PASSWORD, display_name="NewComer")
    assert made.status_code == 201, made.json()
    assert made.json()["player"]["display_name"] == "NewComer"


def test_the_page_refuses_a_display_name_that_copies_another_players() -> None:
    from django.test import Client

    PlayerFactory(user__username="alice")
    page = Client().post(
        "/accounts/signup/", {"username": "newcomer", "password1": GOOD_PASSWORD, "display_name": "ALICE"}
    )
    assert page.status_code == 200
    assert TAKEN in page.content.decode()
    assert not get_user_model().objects.filter(username="newcomer").exists()


# --- Finding 10: display names that copy another player's name ------------------------------------


@pytest.mark.parametrize(
    "copy",
    [
        "alice",  # another's username
        "ALICE",
        "  Alice  ",
        "ａｌｉｃｅ",  # full-width: sign-in folds it (NFKC) to alice
        "аlice",  # Cyrillic а
        "The Dealer",  # another's display name
        "the dealer",
        "THE   DEALER",
        "The Dеaler",  # Cyrillic е
        "The Deal\u200ber",  # a zero-width space
    ],
)
def test_a_display_name_may_not_copy_another_players_username_or_display_name(copy: str) -> None:
    PlayerFactory(user__username="alice")
    PlayerFactory(user__username="bob", display_name="The Dealer")
    carol = PlayerFactory(user__username="carol", display_name="Carol")
    refused = rename(carol, copy)
    assert refused.status_code == 400
    assert refused.json() == {"display_name": [TAKEN]}
    carol.refresh_from_db()
    assert carol.display_name == "Carol"


def test_a_display_name_showing_nothing_is_refused() -> None:
    carol = PlayerFactory(user__username="carol")
    refused = rename(carol, "\u200b\u200d")
    assert refused.status_code == 400
    assert refused.json() == {"display_name": ["a display name cannot be blank"]}


def test_one_may_keep_or_return_to_ones_own_username_in_any_case() -> None:
    carol = PlayerFactory(user__username="carol", display_name="Carol")
    assert rename(carol, "Carol the Bold").status_code == 200
    answer = rename(carol, "CAROL")
    assert answer.status_code == 200 and answer.json()["display_name"] == "CAROL"
    assert rename(carol, "carol").status_code == 200
    assert rename(carol, "carol").status_code == 200


def test_changing_ones_display_name_releases_the_old_one() -> None:
    bob = PlayerFactory(user__username="bob", display_name="The Dealer")
    carol = PlayerFactory(user__username="carol")
    assert rename(carol, "the dealer").status_code == 400
    assert rename(bob, "Bob").status_code == 200
    assert rename(carol, "the dealer").status_code == 200
    assert rename(bob, "The Dealer").json() == {"display_name": [TAKEN]}


@pytest.mark.django_db(transaction=True)
def test_two_players_racing_for_one_display_name_get_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("racing transactions need PostgreSQL")
    import league.services

    racers = [PlayerFactory(user__username=f"racer{i}") for i in range(2)]
    # Both have been found free to take the name before either writes it (the check exists only with the fix).
    hold_after_the_check(monkeypatch, league.services, "names_check", 2)

    answers = racing(2, lambda i: int(rename(racers[i], "Lucky Seven").status_code))
    assert sorted(answers) == [200, 400]
    assert Player.objects.filter(display_name="Lucky Seven").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_sign_up_and_a_rename_racing_for_one_name_get_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("racing transactions need PostgreSQL")
    import league.services

    renamer = PlayerFactory(user__username="renamer")
    hold_after_the_check(monkeypatch, league.services, "names_check", 2)

    def attempt(i: int) -> int:
        if i == 0:
            return int(register(username="lucky", password=GOOD_PASSWORD).status_code)
        return int(rename(renamer, "LUCKY").status_code)

    answers = racing(2, attempt)
    signed_up = get_user_model().objects.filter(username="lucky").exists()
    renamed = Player.objects.filter(pk=renamer.pk, display_name="LUCKY").exists()
    assert sorted(answers) in ([200, 400], [201, 400])
    assert signed_up != renamed


def test_the_database_refuses_a_second_account_differing_only_in_case() -> None:
    # createsuperuser and Django's user pages make users without a player: auth_user's own index holds them.
    from django.db import IntegrityError, transaction

    User = get_user_model()
    User.objects.create_user(username="Sam")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="sAM")
    assert User.objects.filter(username__iexact="sam").count() == 1


def test_a_first_profile_whose_username_another_shows_gets_a_suffix_not_an_error() -> None:
    # An account made without a player (createsuperuser); meanwhile a player took its name to show.
    PlayerFactory(user__username="bob", display_name="Root")
    root = get_user_model().objects.create_user(username="root")
    me = client_for(root).get("/api/players/me/")
    assert me.status_code == 200
    assert me.json()["display_name"] == "root (2)"


# --- The admin's forms ------------------------------------------------------------------------------


@pytest.fixture
def boss(client: Any) -> Any:
    root = PlayerFactory(user__username="root", user__is_staff=True, user__is_superuser=True)
    client.force_login(root.user)
    return client


def test_the_admin_refuses_a_new_player_named_like_another(boss: Any) -> None:
    from django.urls import reverse

    PlayerFactory(user__username="bob", display_name="Dealer")
    add = reverse("admin:league_player_add")
    username_copy = boss.post(add, {"username": "DEALER", "display_name": "", "role": "member"})
    display_copy = boss.post(add, {"username": "newbie", "display_name": "BOB", "role": "member"})
    case_copy = boss.post(add, {"username": "BOB", "display_name": "", "role": "member"})
    assert username_copy.status_code == display_copy.status_code == case_copy.status_code == 200
    assert username_copy.context["adminform"].form.errors == {"username": [TAKEN]}
    assert display_copy.context["adminform"].form.errors == {"display_name": [TAKEN]}
    assert case_copy.context["adminform"].form.errors == {"username": ["the username 'BOB' is taken"]}
    assert not get_user_model().objects.filter(username__in=["DEALER", "newbie", "BOB"]).exists()
    made = boss.post(add, {"username": "newbie", "display_name": "NEWBIE", "role": "member"})
    assert made.status_code == 302


def test_the_admin_refuses_renaming_a_player_to_anothers_name(boss: Any) -> None:
    from django.urls import reverse

    PlayerFactory(user__username="bob", display_name="The Dealer")
    carol = PlayerFactory(user__username="carol")
    change = reverse("admin:league_player_change", args=[carol.pk])
    refused = boss.post(change, {"display_name": "the  dealer"})
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors == {"display_name": [TAKEN]}
    assert boss.post(change, {"display_name": "CAROL"}).status_code == 302
    carol.refresh_from_db()
    assert carol.display_name == "CAROL"


def test_renaming_a_user_on_djangos_user_page_moves_the_claim(boss: Any) -> None:
    from django.urls import reverse

    bob = PlayerFactory(user__username="bob", display_name="Dealer")
    carol = PlayerFactory(user__username="carol", display_name="Carol C.")
    change = reverse("admin:auth_user_change", args=[carol.user.pk])
    form = {"username": "carol", "password": carol.user.password, "is_active": "on", "date_joined_0": "2026-01-01"}
    form["date_joined_1"] = "00:00:00"
    refused = boss.post(change, {**form, "username": "DEALER"})
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors == {"username": [TAKEN]}
    refused = boss.post(change, {**form, "username": "BOB"})
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors == {"username": ["A user with that username already exists."]}
    renamed = boss.post(change, {**form, "username": "caroline"})
    assert renamed.status_code == 302, renamed.context["adminform"].form.errors
    # The old username is free to show now, the new one is not; what Carol shows is still hers.
    assert rename(bob, "Carol").status_code == 200
    assert rename(bob, "Caroline").json() == {"display_name": [TAKEN]}
    assert rename(bob, "carol c.").json() == {"display_name": [TAKEN]}


def test_djangos_add_user_page_refuses_another_players_name(boss: Any) -> None:
    from django.urls import reverse

    PlayerFactory(user__username="bob", display_name="Dealer")
    add = reverse("admin:auth_user_add")
    assert boss.get(add).status_code == 200
    form = {"password1": GOOD_PASSWORD, "password2": GOOD_PASSWORD, "usable_password": "true"}
    refused = boss.post(add, {**form, "username": "dealer"})
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors == {"username": [TAKEN]}
    case_copy = boss.post(add, {**form, "username": "BOB"})
    assert case_copy.context["adminform"].form.errors == {"username": ["A user with that username already exists."]}
    assert boss.post(add, {**form, "username": "staffer"}).status_code == 302
    assert get_user_model().objects.filter(username__iexact="dealer").count() == 0


# --- The folding's data ----------------------------------------------------------------------------------------


#: The sha256 of confusable_homoglyphs 3.3.1's look-alike table as league/names.py reads it.
LOOKALIKES_SHA256 = "135efb191fabe1f333a543fb7d07f03521e2c7578a47909ee7f7d1fe24d3acd6"


def test_the_look_alike_data_is_pinned_to_the_installed_version() -> None:
    """Stored claim keys are hashes of folds made with confusable_homoglyphs' table (review finding 1.9): another
    version could fold a name differently from its stored key, and two look-alike names would both pass. So the
    package is pinned exactly; a new version comes with a data migration that re-keys the claims."""
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    pinned = [r for r in project["project"]["dependencies"] if r.startswith("confusable-homoglyphs")]
    assert pinned == [f"confusable-homoglyphs=={metadata.version('confusable-homoglyphs')}"]


def test_the_look_alike_table_is_the_one_the_stored_keys_were_made_with() -> None:
    # A changed table (another version, or a patched install) changes folds: this says so before the claims drift.
    table = json.dumps(sorted(names._lookalikes().items()))
    assert len(names._lookalikes()) == 1472
    assert hashlib.sha256(table.encode()).hexdigest() == LOOKALIKES_SHA256
