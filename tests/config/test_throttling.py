"""Request rates (issue 11, finding 3): sign-in, anonymous reads, writes and bot versions are throttled
with 429 and Retry-After, counted atomically, from rates that are settings."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from config.throttles import LoginAddressThrottle
from league.models import Player
from league.services import player_create
from tests.factories import BotFactory, PlayerFactory
from tests.tournaments.live_support import live_match
from tournaments.models import Match

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TOKEN_URL = "/api/auth/token/"


#: The throttles' clock in these tests: 10 s into a minute and into an hour, so that no window turns
#: during a test and every wait is known.
NOW = 1_800_000_000 + 10


@pytest.fixture
def rates(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Sets the named scopes' rates for this test; every other scope is left off. The clock stands still."""
    monkeypatch.setattr("config.throttles.time.time", lambda: float(NOW))

    def set_rates(**scoped: str) -> None:
        defaults = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {**defaults, **scoped}}

    return set_rates


def wrong_password(client: Client, username: str = "alice", address: str = "10.0.0.1") -> int:
    response = client.post(TOKEN_URL, {"username": username, "password": "wrong"}, REMOTE_ADDR=address)
    return response.status_code


def test_token_attempts_from_one_address_are_throttled_with_retry_after(rates: Callable[..., None]) -> None:
    rates(login="5/minute")
    player_create(username="alice", password="right-password-1")
    client = APIClient()
    codes = [wrong_password(client, username=f"user{n}") for n in range(5)]
    assert codes == [400] * 5
    response = client.post(TOKEN_URL, {"username": "alice", "password": "right-password-1"}, REMOTE_ADDR="10.0.0.1")
    assert response.status_code == 429
    assert response["Retry-After"] == "50"
    assert "throttled" in response.json()["detail"]
    # Another address is counted apart.
    other = client.post(TOKEN_URL, {"username": "alice", "password": "right-password-1"}, REMOTE_ADDR="10.0.0.2")
    assert other.status_code == 200


def test_attempts_at_one_username_are_throttled_from_any_address(rates: Callable[..., None]) -> None:
    rates(login_username="3/minute")
    client = APIClient()
    assert [wrong_password(client, address=f"10.0.1.{n}") for n in range(3)] == [400] * 3
    # The same account, whatever the case and spacing, from a fourth address.
    assert wrong_password(client, username=" ALICE ", address="10.0.1.9") == 429
    assert wrong_password(client, username="bob", address="10.0.1.9") == 400


def test_a_forwarded_for_header_does_not_pick_the_counted_address(rates: Callable[..., None]) -> None:
    rates(login="2/minute")
    client = APIClient()
    codes = [
        client.post(
            TOKEN_URL, {"username": "x", "password": "y"}, REMOTE_ADDR="10.0.2.1", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}"
        ).status_code
        for n in range(3)
    ]
    assert codes == [400, 400, 429]


def test_behind_a_proxy_the_address_it_appended_is_counted(rates: Callable[..., None], settings: Any) -> None:
    rates(login="1/minute")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = APIClient()

    def attempt(forwarded: str) -> int:
        response = client.post(
            TOKEN_URL, {"username": "x", "password": "y"}, REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR=forwarded
        )
        return response.status_code

    # The client may prepend anything; the proxy's own entry is the last one.
    assert attempt("6.6.6.6, 192.0.2.1") == 400
    assert attempt("7.7.7.7, 192.0.2.1") == 429
    assert attempt("6.6.6.6, 192.0.2.2") == 400


def test_concurrent_attempts_never_exceed_the_rate(rates: Callable[..., None]) -> None:
    """The finding: 300 wrong passwords 16 at a time were never refused. Counting is atomic.

    The throttle itself, in 16 threads: through the view, each thread's sign-in would open a database
    connection of its own outside the test's transaction.
    """
    rates(login="20/minute")
    factory = APIRequestFactory()

    def allowed(n: int) -> bool:
        request = Request(factory.post(TOKEN_URL, {"username": f"user{n}"}, REMOTE_ADDR="10.0.3.1"))
        return LoginAddressThrottle().allow_request(request, None)

    with ThreadPoolExecutor(max_workers=16) as pool:
        verdicts = list(pool.map(allowed, range(300)))
    assert verdicts.count(True) == 20


def test_anonymous_reads_are_throttled_per_address_and_signed_in_reads_are_not(
    rates: Callable[..., None],
) -> None:
    rates(anon_read="3/minute")
    anonymous = APIClient()
    codes = [anonymous.get("/api/tournaments/", REMOTE_ADDR="10.0.4.1").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    signed_in = APIClient()
    signed_in.force_authenticate(PlayerFactory().user)
    assert [signed_in.get("/api/tournaments/", REMOTE_ADDR="10.0.4.1").status_code for _ in range(4)] == [200] * 4


def test_writes_are_throttled_per_user(rates: Callable[..., None]) -> None:
    rates(user_write="2/minute")
    owner, other = PlayerFactory(), PlayerFactory()
    client = APIClient()
    client.force_authenticate(owner.user)
    codes = [client.post("/api/bots/", {"name": f"b{n}", "game": "war"}, format="json").status_code for n in range(3)]
    assert codes == [201, 201, 429]
    assert client.post("/api/bots/", {"name": "b9", "game": "war"}, format="json")["Retry-After"] == "50"
    client.force_authenticate(other.user)
    assert client.post("/api/bots/", {"name": "c", "game": "war"}, format="json").status_code == 201
    # Reads are not writes.
    client.force_authenticate(owner.user)
    assert client.get("/api/bots/").status_code == 200


def test_bot_versions_have_a_rate_of_their_own(rates: Callable[..., None]) -> None:
    rates(bot_version="2/hour", user_write="100/minute")
    bot = BotFactory(game="war")
    client = APIClient()
    client.force_authenticate(bot.owner.user)
    url = f"/api/bots/{bot.pk}/versions/"
    body = {"kind": "builtin", "strategy": "random"}
    codes = [client.post(url, body, format="json").status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    # Windows are fixed hours: the wait is what is left of this one.
    assert client.post(url, body, format="json")["Retry-After"] == "3590"
    # Other writes of the same user go on.
    assert client.post("/api/bots/", {"name": "next", "game": "war"}, format="json").status_code == 201


@pytest.mark.parametrize("url", ["/accounts/login/", "/api/auth/login/"])
def test_the_sign_in_forms_are_throttled_and_say_so(rates: Callable[..., None], url: str) -> None:
    rates(login="2/minute")
    player_create(username="carol", password="right-password-1")
    client = Client()
    for _ in range(2):
        assert client.post(url, {"username": "carol", "password": "wrong"}, REMOTE_ADDR="10.0.5.1").status_code == 200
    throttled = client.post(url, {"username": "carol", "password": "right-password-1"}, REMOTE_ADDR="10.0.5.1")
    assert throttled.status_code == 429
    assert throttled["Retry-After"] == "50"
    assert "Too many sign-in attempts" in throttled.content.decode()
    assert "_auth_user_id" not in client.session  # the right password was not even tried


def django_setup(rates: str) -> subprocess.CompletedProcess[str]:
    """Settings loaded in a fresh process with THROTTLE_RATES set; prints the rates they hold."""
    show = "from django.conf import settings; print(settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'])"
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {show}"],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "THROTTLE_RATES": rates},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("rates_setting", "message"),
    [
        ("login=5/fortnight", "is not scope=N/period"),
        ("logins=5/minute", "unknown scope 'logins'"),
        ("login", "is not scope=N/period"),
    ],
)
def test_a_bad_rate_setting_is_refused_with_a_clear_message(rates_setting: str, message: str) -> None:
    started = django_setup(rates_setting)
    assert started.returncode != 0
    assert message in started.stderr
    assert "THROTTLE_RATES" in started.stderr


def test_rates_are_read_from_the_environment() -> None:
    started = django_setup("login=7/h,anon_read=off")
    assert "'login': '7/h'" in started.stdout
    assert "'anon_read': None" in started.stdout
    assert "'user_write': '120/minute'" in started.stdout
    assert "'move_refused': '60/minute'" in started.stdout


def test_the_admin_sign_in_is_throttled_too(rates: Callable[..., None]) -> None:
    """Organisers and superusers sign in there: the accounts most worth guessing."""
    rates(login="2/minute")
    player = player_create(username="boss", password="right-password-1")
    player.user.is_staff = player.user.is_superuser = True
    player.user.save()
    client = Client()
    for _ in range(2):
        wrong = client.post("/admin/login/", {"username": "boss", "password": "wrong"}, REMOTE_ADDR="10.0.6.1")
        assert wrong.status_code == 200
    right = {"username": "boss", "password": "right-password-1"}
    throttled = client.post("/admin/login/", right, REMOTE_ADDR="10.0.6.1")
    assert throttled.status_code == 429
    assert throttled["Retry-After"] == "50"
    assert "Too many sign-in attempts. Try again in 50 seconds." in throttled.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_look_alike_of_a_username_is_the_same_account_to_the_count(rates: Callable[..., None]) -> None:
    """Sign-in folds look-alikes (NFKC): a full-width "ａ" signs in as "a", so it counts as "a" too."""
    rates(login_username="2/minute")
    client = APIClient()
    assert [wrong_password(client, "alice", f"10.0.7.{n}") for n in range(2)] == [400, 400]
    assert wrong_password(client, "\uff41lice", "10.0.7.9") == 429
    assert wrong_password(APIClient(), "\uff41lice", "10.0.7.10") == 429


def test_a_username_sent_as_a_number_is_counted(rates: Callable[..., None]) -> None:
    rates(login_username="2/minute")
    client = APIClient()

    def attempt(address: str) -> int:
        body = {"username": 12345, "password": "wrong"}
        return client.post(TOKEN_URL, body, format="json", REMOTE_ADDR=address).status_code

    assert [attempt(f"10.0.8.{n}") for n in range(3)] == [400, 400, 429]


def test_a_whole_game_played_fast_through_the_api_is_never_throttled(rates: Callable[..., None]) -> None:
    """Issue 21, finding 11: the 230th move of a Banter game got 429 under the general write rate.

    Here every move of a whole game is made within one minute (the clock stands still) by people whose
    general write rate is 20 a minute: legal moves are not counted against it.
    """
    rates(user_write="20/minute", move_refused="5/minute")
    match, players = live_match("banter", games=3)
    clients = {player.pk: client_of(player) for player in players}
    rng = random.Random(21)
    moves = 0
    for _ in range(2000):
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            break
        for client in clients.values():
            view = client.get(f"/api/matches/{match.pk}/table/").json()
            if view["legal_actions"]:
                body = {"action": rng.choice(view["legal_actions"]), "version": view["version"]}
                answer = client.post(f"/api/matches/{match.pk}/moves/", {**body, "client_move_id": f"m{moves}"})
                assert answer.status_code == 200, (moves, answer.status_code, answer.content)
                moves += 1
    assert match.status == Match.Status.DONE
    assert moves > 20 * 2  # well past what the general write rate allows each of the two players
    # Their other writes are still counted under the general rate.
    assert clients[players[0].pk].post("/api/bots/", {"name": "b", "game": "war"}).status_code == 201


def test_refused_moves_past_their_rate_get_429_with_retry_after(rates: Callable[..., None]) -> None:
    rates(user_write="100/minute", move_refused="3/minute")
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    alice_client, stranger = client_of(alice), client_of(PlayerFactory())
    version = alice_client.get(f"/api/matches/{match.pk}/table/").json()["version"]

    def attempt(client: APIClient, action: str, move_id: str) -> Any:
        body = {"action": action, "version": version, "client_move_id": move_id}
        return client.post(f"/api/matches/{match.pk}/moves/", body, format="json")

    # Someone not seated is refused anyway (403), and each refusal counts.
    assert [attempt(stranger, "LOCK", f"s{n}").status_code for n in range(3)] == [403] * 3
    throttled = attempt(stranger, "LOCK", "s3")
    assert throttled.status_code == 429 and throttled["Retry-After"] == "50"
    # A seated player's illegal moves count too, and past the rate they are answered 429 ...
    assert [attempt(alice_client, "PLAY ZZ", f"a{n}").status_code for n in range(3)] == [400] * 3
    assert attempt(alice_client, "PLAY ZZ", "a3").status_code == 429
    # ... but a legal move is never refused by a rate (review 1.6: it was 429 while her clock ran).
    assert attempt(alice_client, "LOCK", "a-legal").status_code == 200
    # Bob refused nothing: his moves are his own to make.
    assert attempt(client_of(bob), "LOCK", "b1").status_code == 200


def test_a_loop_of_replayed_moves_meets_the_refused_rate(rates: Callable[..., None]) -> None:
    """Review 1.6: a replayed client_move_id is answered again from the database, taking nothing: a client
    looping on one was never counted. Replays count as refusals do, and past the rate get 429."""
    rates(user_write="100/minute", move_refused="3/minute")
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    alice_client = client_of(alice)
    version = alice_client.get(f"/api/matches/{match.pk}/table/").json()["version"]
    body = {"action": "LOCK", "version": version, "client_move_id": "a1"}
    answers = [alice_client.post(f"/api/matches/{match.pk}/moves/", body, format="json") for _ in range(5)]
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 429]
    assert [a.get("Idempotent-Replayed") for a in answers[:4]] == [None, "true", "true", "true"]
    assert int(answers[4]["Retry-After"]) > 0
    # Only alice's replays were counted.
    bob_body = {"action": "LOCK", "version": version, "client_move_id": "b1"}
    assert client_of(bob).post(f"/api/matches/{match.pk}/moves/", bob_body, format="json").status_code == 200


def client_of(player: Player) -> APIClient:
    client = APIClient()
    client.force_authenticate(player.user)
    return client
