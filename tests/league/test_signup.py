"""Sign-up (issue 13): POST /api/auth/register/ and the /accounts/signup/ page, through allauth's one form and
adapter; every new user gets a Player; refusals name their field; sign-ups are throttled per address;
and where the service's mail goes (config/env.py, email_config)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.env import EmailConfig, email_config
from league.accounts import AccountAdapter
from league.models import Player
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

URL = "/api/auth/register/"
GOOD_PASSWORD = "quiet-harbour-lantern-42"


def register(client: APIClient | None = None, address: str = "10.0.0.1", **body: Any) -> Any:
    return (client or APIClient()).post(URL, body, format="json", REMOTE_ADDR=address)


def test_a_newcomer_gets_a_user_a_player_and_a_token_that_works_at_once() -> None:
    response = register(username="Newcomer", password=GOOD_PASSWORD, email="new@example.org", display_name="Nell")
    assert response.status_code == 201, response.json()
    body = response.json()
    player = Player.objects.select_related("user").get()
    assert body == {
        "player": {
            "id": player.pk,
            "username": "Newcomer",
            "display_name": "Nell",
            "created_at": body["player"]["created_at"],
        },
        "token": Token.objects.get(user=player.user).key,
    }
    assert player.user.username == "Newcomer" and player.user.email == "new@example.org"
    assert player.user.check_password(GOOD_PASSWORD)
    # The token writes at once: no e-mail confirmation is needed to play.
    client = APIClient(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert client.get("/api/players/me/").json()["id"] == player.pk
    assert client.post("/api/bots/", {"name": "First", "game": "war"}, format="json").status_code == 201
    # ... and a confirmation link went to the address (settings: optional verification).
    [message] = mail.outbox
    assert message.to == ["new@example.org"] and "/accounts/confirm-email/" in message.body
    # The API signs in with the token only: no session was opened.
    assert "sessionid" not in response.cookies


def test_without_a_display_name_or_e_mail_the_username_is_the_display_name_and_no_mail_is_sent() -> None:
    response = register(username="plainpat", password=GOOD_PASSWORD)
    assert response.status_code == 201
    assert response.json()["player"]["display_name"] == "plainpat"
    assert get_user_model().objects.get(username="plainpat").email == ""
    assert mail.outbox == []
    assert register(username="blankpat", password=GOOD_PASSWORD, email="", display_name="  ").status_code == 201
    assert Player.objects.get(user__username="blankpat").display_name == "blankpat"


@pytest.mark.parametrize("taken_as", ["alice", "ALICE", "Alice", "aLiCe"])
def test_a_username_is_taken_whatever_its_case(taken_as: str) -> None:
    PlayerFactory(user__username="Alice")
    response = register(username=taken_as, password=GOOD_PASSWORD)
    assert response.status_code == 400
    assert response.json() == {"username": ["A user with that username already exists."]}
    assert get_user_model().objects.count() == 1


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("shortie", "a1b2c3", "This password is too short. It must contain at least 8 characters."),
        ("commoner", "password123", "This password is too common."),
        ("numbers", "80418273649", "This password is entirely numeric."),
        ("margaretha", "margaretha1", "The password is too similar to the username."),
    ],
)
def test_a_weak_password_is_refused_with_djangos_validators_messages(
    username: str, password: str, message: str
) -> None:
    response = register(username=username, password=password)
    assert response.status_code == 400
    assert message in response.json()["password"]
    assert set(response.json()) == {"password"}
    assert not get_user_model().objects.exists() and not Player.objects.exists()


def test_a_password_like_the_e_mail_address_is_refused() -> None:
    response = register(username="someone", password="harbourmaster", email="harbourmaster@example.org")
    assert response.status_code == 400
    assert response.json()["password"] == ["The password is too similar to the email address."]


def test_a_bad_or_taken_e_mail_address_is_refused() -> None:
    bad = register(username="mailer", password=GOOD_PASSWORD, email="not an address")
    assert bad.status_code == 400 and bad.json() == {"email": ["Enter a valid email address."]}
    assert register(username="first", password=GOOD_PASSWORD, email="same@example.org").status_code == 201
    taken = register(username="second", password=GOOD_PASSWORD, email="SAME@example.org")
    assert taken.status_code == 400
    assert taken.json() == {"email": ["A user is already registered with this email address."]}


def test_a_bad_username_missing_fields_wrong_types_and_unknown_fields_are_refused_by_name() -> None:
    ascii_only = (
        "Enter a valid username. This value may contain only unaccented lowercase a-z and uppercase A-Z letters, "
        "numbers, and @/./+/-/_ characters."
    )
    # Only ASCII: no newcomer takes a name that merely looks like another's (a Cyrillic а, a full-width ａ).
    for username in ("no spaces", " padded", "\u0430lice", "\uff41lice", "Zoë"):
        assert register(username=username, password=GOOD_PASSWORD).json() == {"username": [ascii_only]}, username
    assert register().json() == {"username": ["This field is required."], "password": ["This field is required."]}
    assert register(username=12345, password=GOOD_PASSWORD).json() == {"username": ["Not a valid string."]}
    unknown = register(username="extra", password=GOOD_PASSWORD, is_staff=True, nickname="x")
    assert unknown.status_code == 400
    assert unknown.json() == {"is_staff": ["Unknown field."], "nickname": ["Unknown field."]}
    assert register(username="x" * 151, password=GOOD_PASSWORD).json() == {
        "username": ["Ensure this field has no more than 150 characters."]
    }
    assert not get_user_model().objects.exists()


def test_a_username_taken_by_a_racing_sign_up_after_the_check_is_a_400_not_a_500(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from allauth.account.internal import userkit

    from league import accounts

    PlayerFactory(user__username="Racer")
    real = userkit.filter_users_by_username
    calls: list[str] = []

    def free_the_first_time(*names: str) -> Any:
        calls.append(names[0])
        found = real(*names)
        return found.none() if len(calls) == 1 else found

    monkeypatch.setattr(userkit, "filter_users_by_username", free_the_first_time)
    # The names' claims are checked as the form is (league/names.py): blind that check the first time too.
    real_names_check = accounts.names_check
    monkeypatch.setattr(accounts, "names_check", lambda **names: real_names_check(**names) if len(calls) > 1 else None)
    response = register(username="Racer", password=GOOD_PASSWORD)
    assert response.status_code == 400
    assert response.json() == {"username": ["A user with that username already exists."]}
    assert calls == ["Racer", "Racer"] and Player.objects.count() == 1


def test_credentials_sent_along_are_not_looked_at() -> None:
    client = APIClient(HTTP_AUTHORIZATION="Token not-a-token")
    assert register(client, username="stale", password=GOOD_PASSWORD).status_code == 201


@pytest.fixture
def rates(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Sets the named scopes' rates for this test, every other scope off; the clock stands still."""
    monkeypatch.setattr("config.throttles.time.time", lambda: 1_800_000_000.0 + 10)

    def set_rates(**scoped: str) -> None:
        defaults = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {**defaults, **scoped}}

    return set_rates


def test_sign_ups_are_throttled_per_address_on_the_api_and_the_page_alike(rates: Callable[..., None]) -> None:
    rates(register="3/hour")
    codes = [register(username=f"flood{n}", password=GOOD_PASSWORD).status_code for n in range(2)]
    codes.append(register(username="flood2", password="weak").status_code)  # refused attempts count too
    assert codes == [201, 201, 400]
    throttled = register(username="flood3", password=GOOD_PASSWORD)
    assert throttled.status_code == 429
    assert throttled["Retry-After"] == "3590"
    assert "throttled" in throttled.json()["detail"]
    # The page counts against the same rate, and keeps what was typed but the password.
    page = Client().post(
        "/accounts/signup/",
        {"username": "flood4", "password1": GOOD_PASSWORD, "display_name": "Flo"},
        REMOTE_ADDR="10.0.0.1",
    )
    assert page.status_code == 429 and page["Retry-After"] == "3590"
    html = page.content.decode()
    assert "Too many sign-ups from your address. Try again in 3590 seconds." in html
    assert 'value="flood4"' in html and 'value="Flo"' in html and GOOD_PASSWORD not in html
    # Another address is counted apart; reads of the page are never counted.
    assert register(address="10.0.0.2", username="elsewhere", password=GOOD_PASSWORD).status_code == 201
    assert Client().get("/accounts/signup/", REMOTE_ADDR="10.0.0.1").status_code == 200
    assert not get_user_model().objects.filter(username__in=["flood3", "flood4"]).exists()


# --- The page ---------------------------------------------------------------------------------------


def test_the_page_signs_a_newcomer_up_with_a_player_and_lands_them_on_their_dashboard() -> None:
    client = Client()
    page = client.get("/accounts/signup/")
    assert page.status_code == 200
    assert b'href="/accounts/login/"' in page.content
    response = client.post("/accounts/signup/", {"username": "Webby", "password1": GOOD_PASSWORD, "email": ""})
    assert response.status_code == 302 and response["Location"] == "/"
    assert Player.objects.get(user__username="Webby").display_name == "Webby"
    assert client.get("/play/").status_code == 200  # signed in
    # Signed in, the page sends them to their dashboard.
    assert client.get("/accounts/signup/")["Location"] == "/"


def test_the_page_shows_refusals_and_keeps_what_was_typed_but_the_password() -> None:
    PlayerFactory(user__username="Taken")
    response = Client().post(
        "/accounts/signup/",
        {"username": "taken", "password1": "12345678", "email": "x@example.org", "display_name": "Tak"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "A user with that username already exists." in html
    assert "This password is too common." in html and "This password is entirely numeric." in html
    assert 'value="taken"' in html and 'value="x@example.org"' in html and 'value="Tak"' in html
    assert "12345678" not in html
    assert get_user_model().objects.count() == 1


def test_a_name_taken_between_the_check_and_the_save_gives_the_form_back_not_a_500(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_save = AccountAdapter.save_user

    def save_after_someone_else(self: Any, request: Any, user: Any, form: Any, commit: bool = True) -> Any:
        # Another sign-up takes the name after this form found it free.
        get_user_model().objects.create_user(username="Racer", password="x")
        return real_save(self, request, user, form, commit=commit)

    monkeypatch.setattr(AccountAdapter, "save_user", save_after_someone_else)
    response = Client().post("/accounts/signup/", {"username": "Racer", "password1": GOOD_PASSWORD, "email": ""})
    assert response.status_code == 200
    assert "That user name was taken a moment ago: choose another." in response.content.decode()
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["Racer"]
    assert not Player.objects.filter(user__username="Racer").exists()


def test_the_confirmation_link_confirms_the_address_on_a_page_in_the_sites_frame() -> None:
    from allauth.account.models import EmailAddress

    assert register(username="confirmer", password=GOOD_PASSWORD, email="c@example.org").status_code == 201
    [message] = mail.outbox
    link = next(word for word in message.body.split() if "/accounts/confirm-email/" in word)
    path = link[link.index("/accounts/") :]
    client = Client()
    page = client.get(path)
    assert page.status_code == 200
    assert b'<header class="site">' in page.content and b"c@example.org" in page.content
    assert client.post(path).status_code == 302
    assert EmailAddress.objects.get(email="c@example.org").verified


def test_the_sign_in_page_links_to_sign_up() -> None:
    page = Client().get("/accounts/login/")
    assert page.status_code == 200 and b'href="/accounts/signup/"' in page.content


# --- Where mail goes (config/env.py) -------------------------------------------------------------------

SMTP = "django.core.mail.backends.smtp.EmailBackend"


def test_mail_goes_to_the_console_by_default_and_to_a_folder_with_email_file_path() -> None:
    assert email_config({}) == EmailConfig(backend="django.core.mail.backends.console.EmailBackend")
    assert email_config({"EMAIL_FILE_PATH": "/var/mail/cardclub"}) == EmailConfig(
        backend="django.core.mail.backends.filebased.EmailBackend", file_path="/var/mail/cardclub"
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://mail.example.org", EmailConfig(backend=SMTP, host="mail.example.org", port=25)),
        (
            "smtp+tls://club%40example.org:p%2Fss@mail.example.org",
            EmailConfig(
                backend=SMTP, host="mail.example.org", port=587, user="club@example.org", password="p/ss", use_tls=True
            ),
        ),
        (
            "smtps://club:secret@mail.example.org:2465",
            EmailConfig(backend=SMTP, host="mail.example.org", port=2465, user="club", password="secret", use_ssl=True),
        ),
    ],
)
def test_email_url_names_an_smtp_server(url: str, expected: EmailConfig) -> None:
    assert email_config({"EMAIL_URL": url}) == expected


def test_email_host_and_its_companions_name_an_smtp_server() -> None:
    assert email_config(
        {
            "EMAIL_HOST": "mail.example.org",
            "EMAIL_HOST_USER": "club",
            "EMAIL_HOST_PASSWORD": "pw",
            "EMAIL_USE_TLS": "yes",
        }
    ) == EmailConfig(backend=SMTP, host="mail.example.org", port=587, user="club", password="pw", use_tls=True)
    assert email_config({"EMAIL_HOST": "mail.example.org", "EMAIL_PORT": "2525"}).port == 2525


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"EMAIL_URL": "http://mail.example.org"}, "use smtp://, smtp+tls:// (STARTTLS) or smtps:// (TLS)"),
        ({"EMAIL_URL": "smtp://user:hunter2@mail.example.org:99999"}, "the port is not a number from 1 to 65535"),
        ({"EMAIL_URL": "smtp://"}, "no host name"),
        ({"EMAIL_URL": "smtp://mail.example.org/inbox?x=1"}, "give only user, password, host and port"),
        ({"EMAIL_HOST": "mail.example.org", "EMAIL_PORT": "twenty-five"}, "EMAIL_PORT='twenty-five': expected a port"),
        ({"EMAIL_HOST": "mail.example.org", "EMAIL_USE_TLS": "maybe"}, "EMAIL_USE_TLS='maybe': expected one of"),
        ({"EMAIL_HOST": "m", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"}, "STARTTLS or TLS, not both"),
        ({"EMAIL_URL": "smtp://m", "EMAIL_HOST": "m"}, "EMAIL_URL and EMAIL_HOST are both set: set only one"),
    ],
)
def test_a_bad_mail_setting_stops_the_service_with_a_clear_message(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ImproperlyConfigured) as refused:
        email_config(environ)
    assert message in str(refused.value)
    assert "hunter2" not in str(refused.value)  # a password in EMAIL_URL is never repeated


# --- Signing in, in any case ---------------------------------------------------------------------


def token_for(username: str, password: str) -> Any:
    return APIClient().post("/api/auth/token/", {"username": username, "password": password}, format="json")


@pytest.mark.parametrize("typed", ["Newcomer", "newcomer", "NEWCOMER"])
def test_one_signs_in_with_the_username_in_any_case_as_sign_up_compares_it(typed: str, client: Client) -> None:
    assert register(username="Newcomer", password=GOOD_PASSWORD).status_code == 201
    answer = token_for(typed, GOOD_PASSWORD)
    assert answer.status_code == 200, answer.json()
    assert Token.objects.get(key=answer.json()["token"]).user.username == "Newcomer"
    assert token_for(typed, "not-the-password").status_code == 400
    # The web sign-in (and the admin's) goes through the same backend.
    assert client.login(username=typed, password=GOOD_PASSWORD)


def test_accounts_that_differ_only_in_case_sign_in_by_their_exact_spelling_only() -> None:
    # Made before sign-up compared names in any case: migration 0008 leaves such a pair out of the index on
    # lower(username), which holds for all others (here it is dropped for the test's transaction only).
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX auth_user_username_lower_unique")
    User = get_user_model()
    User.objects.create_user(username="Sam", password=GOOD_PASSWORD)
    User.objects.create_user(username="sam", password="another-long-passphrase-7")
    assert Token.objects.get(key=token_for("Sam", GOOD_PASSWORD).json()["token"]).user.username == "Sam"
    assert Token.objects.get(key=token_for("sam", "another-long-passphrase-7").json()["token"]).user.username == "sam"
    # "SAM" could be either: it signs in neither.
    assert token_for("SAM", GOOD_PASSWORD).status_code == 400
