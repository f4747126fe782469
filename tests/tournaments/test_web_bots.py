"""A bot author's pages without a browser (tournaments/web/bots.py): who may open them, what they show, and every
refusal as a message on the form, with the effect (or its absence) in the database.

The pages in chromium, with a real validation game, are in tests/e2e/test_site_bots.py.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from engine.sandbox.code import MAX_UPLOAD_BYTES
from league.models import Bot, BotVersion, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    CompetitionFactory,
    EntrantFactory,
    PlayerFactory,
    UserFactory,
)
from tournaments.models import Match
from tournaments.services.competitions import competition_start
from tournaments.services.play import match_play

pytestmark = pytest.mark.django_db

GOOD = b"def act(turn):\n    return turn.legal_actions[0]\n"


def signed_in(client: Client, player: Player) -> Client:
    client.force_login(player.user)
    return client


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def post_upload(client: Client, bot: Bot, name: str, content: bytes, entry: str = "") -> Any:
    return client.post(
        reverse("site:bot-version-new", args=[bot.pk]),
        {"kind": "upload", "upload-source": SimpleUploadedFile(name, content), "upload-entry": entry},
    )


def form_errors(response: Any, form: str) -> list[str]:
    """Every error the named form of the new-version page shows, its own and its fields'."""
    bound = response.context["forms"][form]
    return [str(message) for messages in bound.errors.values() for message in messages]


@pytest.fixture
def ann() -> Player:
    return PlayerFactory(user=UserFactory(username="ann"), display_name="Ann")


# Who may open what.


@pytest.mark.parametrize("name", ["site:bots", "site:bot-new"])
def test_a_visitor_is_sent_to_sign_in_for_the_bot_lists(client: Client, name: str) -> None:
    response = client.get(reverse(name))
    assert response.status_code == 302 and response.headers["Location"].startswith(reverse("site:login"))


@pytest.mark.parametrize("name", ["site:bot", "site:bot-version-new", "site:bot-versions", "site:bot-retire"])
def test_a_visitor_is_sent_to_sign_in_for_a_bots_pages(client: Client, name: str) -> None:
    bot = BotFactory()
    response = client.get(reverse(name, args=[bot.pk]))
    assert response.status_code == 302 and response.headers["Location"].startswith(reverse("site:login"))


@pytest.mark.parametrize("name", ["site:bot", "site:bot-version-new", "site:bot-versions", "site:bot-retire"])
def test_another_member_is_refused_a_bots_pages_as_the_api_refuses_its_logs(
    client: Client, ann: Player, name: str
) -> None:
    bot = BotFactory()
    response = signed_in(client, ann).get(reverse(name, args=[bot.pk]))
    assert response.status_code == 403
    assert b"Only a bot&#x27;s owner may see its page." in response.content
    api = client.get(f"/api/bots/{bot.pk}/versions/1/log/")
    assert api.status_code == 403  # the API's answer to the same person


def test_another_member_cannot_read_a_versions_log_or_add_one(client: Client, ann: Player) -> None:
    version = BotVersionFactory(
        kind=BotVersion.Kind.UPLOAD, filename="b.py", entry="b.py", sha256="0" * 64, log="SECRET"
    )
    signed_in(client, ann)
    page = client.get(reverse("site:bot-version", args=[version.bot.pk, version.number]))
    assert page.status_code == 403 and b"SECRET" not in page.content
    refused = post_upload(client, version.bot, "mine.py", GOOD)
    assert refused.status_code == 403
    assert version.bot.versions.count() == 1


def test_an_unknown_bot_or_version_is_the_sites_404(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann)
    signed_in(client, ann)
    assert client.get(reverse("site:bot", args=[bot.pk + 1000])).status_code == 404
    missing = client.get(reverse("site:bot-version", args=[bot.pk, 7]))
    assert missing.status_code == 404 and b"We could not find that page" in missing.content


# My bots.


def test_my_bots_lists_mine_only_with_each_latest_version_in_plain_words(client: Client, ann: Player) -> None:
    checking = BotFactory(owner=ann, name="Checker", game="1923")
    BotVersionFactory(bot=checking, number=1, status=BotVersion.Status.READY)
    BotVersionFactory(bot=checking, number=2, status=BotVersion.Status.PENDING)
    failed = BotFactory(owner=ann, name="Faller", game="punk")
    BotVersionFactory(bot=failed, number=1, status=BotVersion.Status.FAILED)
    BotFactory(owner=ann, name="Empty", game="banter")
    BotFactory(name="Someone else's")
    page = signed_in(client, ann).get(reverse("site:bots"))
    assert page.status_code == 200
    lines = {line.bot.name: line for line in page.context["bot_lines"]}
    assert set(lines) == {"Checker", "Faller", "Empty"}
    assert (lines["Checker"].bot.latest_number, lines["Checker"].latest_words) == (2, "checking")
    assert (lines["Faller"].bot.latest_number, lines["Faller"].latest_words) == (1, "failed")
    assert lines["Empty"].bot.latest_number is None
    text = page.content.decode()
    assert "Version 2" in text and ">checking<" in text and ">failed<" in text and "1923" in text
    assert reverse("site:bot-new") in text


def test_my_bots_costs_the_same_queries_for_many_bots(
    client: Client, ann: Player, django_assert_num_queries: Callable[..., Any]
) -> None:
    signed_in(client, ann)
    for n in range(6):
        bot = BotFactory(owner=ann, name=f"bot {n}")
        for number in range(1, 4):
            BotVersionFactory(bot=bot, number=number)
    # The session, the user, the player and the bots with their latest versions.
    with django_assert_num_queries(5):
        page = client.get(reverse("site:bots"))
    assert len(page.context["bot_lines"]) == 6


def test_a_member_with_no_bots_yet_gets_an_empty_list_and_no_profile_made(client: Client) -> None:
    user = UserFactory(username="newcomer")
    client.force_login(user)
    page = client.get(reverse("site:bots"))
    assert page.status_code == 200 and b"You have no bots yet" in page.content
    assert not Player.objects.filter(user=user).exists()


# A new bot.


def test_a_new_bot_is_made_by_the_service_and_leads_to_its_first_version(client: Client, ann: Player) -> None:
    page = signed_in(client, ann).get(reverse("site:bot-new"))
    games = [value for value, _ in page.context["form"].fields["game"].choices]
    assert games == ["war", "1923", "banter", "punk"]
    response = client.post(reverse("site:bot-new"), {"name": "Locksmith", "game": "1923", "description": "locks"})
    bot = Bot.objects.get(owner=ann, name="Locksmith")
    assert (bot.game, bot.description) == ("1923", "locks")
    assert response.status_code == 302 and response.headers["Location"] == reverse(
        "site:bot-version-new", args=[bot.pk]
    )


def test_a_new_bot_for_a_signed_up_user_without_a_profile_gets_one(client: Client) -> None:
    user = UserFactory(username="fresh")
    client.force_login(user)
    client.post(reverse("site:bot-new"), {"name": "First", "game": "war"})
    assert Bot.objects.get(name="First").owner.user == user


def test_a_name_already_used_is_refused_on_the_form_in_the_services_words(client: Client, ann: Player) -> None:
    BotFactory(owner=ann, name="Twin")
    response = signed_in(client, ann).post(reverse("site:bot-new"), {"name": "Twin", "game": "war"})
    assert response.status_code == 200
    assert response.context["form"].errors["name"] == ["you already have a bot called 'Twin'"]
    assert Bot.objects.filter(owner=ann).count() == 1


def test_an_unknown_game_and_a_blank_name_are_refused_on_the_form(client: Client, ann: Player) -> None:
    response = signed_in(client, ann).post(reverse("site:bot-new"), {"name": "", "game": "chess"})
    errors = response.context["form"].errors
    assert "name" in errors and "Select a valid choice" in errors["game"][0]
    assert not Bot.objects.exists()


# A bot's page.


def played_matches(bot: Bot, count: int) -> None:
    """``count`` War matches played to their end by a version of ``bot`` against other bots."""
    version = BotVersionFactory(bot=bot, number=bot.versions.count() + 1)
    for _ in range(count):
        competition = CompetitionFactory(game="war", options={"max_rounds": 50})
        EntrantFactory(competition=competition, bot_version=version, name=bot.name)
        EntrantFactory(competition=competition)
        competition_start(competition=competition)
        match_play(match_id=Match.objects.get(competition=competition).pk)


def test_a_bots_page_shows_its_versions_the_newest_log_and_its_matches(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, name="Warrior", game="war")
    BotVersionFactory(bot=bot, number=1, kind="upload", filename="a.py", entry="a.py", sha256="1" * 64,
                      status="failed", status_detail="crash at move 0", log="old log")  # fmt: skip
    played_matches(bot, 2)  # version 2, built-in
    BotVersionFactory(bot=bot, number=3, kind="upload", filename="w.zip", entry="bot/play.py", sha256="2" * 64,
                      status="ready", status_detail="started and answered", log="hello from v3")  # fmt: skip
    page = signed_in(client, ann).get(reverse("site:bot", args=[bot.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    lines = page.context["version_lines"]
    assert [(line.version.number, line.status) for line in lines] == [(3, "ready"), (2, "ready"), (1, "failed")]
    assert lines[0].what == "File w.zip, running bot/play.py" and lines[2].what == "File a.py"
    assert "hello from v3" in text and "old log" not in text  # the newest version's log; older ones a click away
    assert "Crash at move 0" in text
    assert 'hx-trigger="every 2s"' not in text  # nothing being checked: the page does not poll
    match_lines = page.context["match_lines"]
    assert len(match_lines) == 2
    for line in match_lines:
        assert line.version_number == 2 and len(line.opponents) == 1
        assert line.result in {"Won", "Lost", "Drew"}
        assert reverse("site:table", args=[line.match.pk]) in text
        assert reverse("site:competition", args=[line.match.competition_id]) in text


def test_a_bots_page_costs_the_same_queries_for_many_versions_and_matches(
    client: Client, ann: Player, django_assert_num_queries: Callable[..., Any]
) -> None:
    bot = BotFactory(owner=ann, game="war")
    played_matches(bot, 3)
    for number in range(2, 8):
        BotVersionFactory(bot=bot, number=number, status="pending" if number == 7 else "ready")
    signed_in(client, ann)
    # Session, user, bot; its versions, the newest's log; the matches' count, page and tables.
    with django_assert_num_queries(9):
        page = client.get(reverse("site:bot", args=[bot.pk]))
    assert len(page.context["version_lines"]) == 7 and len(page.context["match_lines"]) == 3
    played_matches(bot, 3)
    with django_assert_num_queries(9):
        page = client.get(reverse("site:bot", args=[bot.pk]))
    assert len(page.context["match_lines"]) == 6


def test_a_version_being_checked_shows_progress_and_its_part_asks_again_until_it_is_decided(
    client: Client, ann: Player
) -> None:
    bot = BotFactory(owner=ann, game="1923")
    version = BotVersionFactory(bot=bot, number=1, kind="http", url="https://bots.example.org/x", status="pending")
    signed_in(client, ann)
    page = client.get(reverse("site:bot", args=[bot.pk])).content.decode()
    part_url = reverse("site:bot-versions", args=[bot.pk])
    assert f'hx-get="{part_url}"' in page and 'hx-trigger="every 2s"' in page
    assert "<progress" in page and "Checking: a test game against the random bot" in page
    BotVersion.objects.filter(pk=version.pk).update(status="ready", status_detail="played a 1923 game", log="done")
    part = client.get(part_url).content.decode()
    assert "hx-trigger" not in part and "<progress" not in part
    assert ">ready<" in part and "done" in part and "Played a 1923 game" in part


def test_a_versions_own_page_shows_its_log_to_its_owner(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    BotVersionFactory(bot=bot, number=1, kind="upload", filename="a.py", entry="a.py", sha256="3" * 64,
                      status="failed", status_detail="crash at move 0 (the log says more)",
                      log="crash at move 0: Traceback ... RuntimeError: oops")  # fmt: skip
    BotVersionFactory(bot=bot, number=2)
    page = signed_in(client, ann).get(reverse("site:bot-version", args=[bot.pk, 1]))
    assert page.status_code == 200 and b"RuntimeError: oops" in page.content and b"3333" in page.content


def test_renaming_goes_through_the_service_and_a_taken_name_is_a_message_on_the_form(
    client: Client, ann: Player
) -> None:
    BotFactory(owner=ann, name="Taken")
    bot = BotFactory(owner=ann, name="Old")
    signed_in(client, ann)
    url = reverse("site:bot", args=[bot.pk])
    refused = client.post(url, {"name": "Taken", "description": "x"})
    assert refused.status_code == 200
    assert refused.context["form"].errors["name"] == ["you already have a bot called 'Taken'"]
    assert refused.context["bot"].name == "Old"  # the heading keeps the name the bot has
    bot.refresh_from_db()
    assert (bot.name, bot.description) == ("Old", "")
    done = client.post(url, {"name": "New", "description": "plays fast"})
    assert done.status_code == 302
    bot.refresh_from_db()
    assert (bot.name, bot.description) == ("New", "plays fast")


def test_retiring_asks_first_then_retires_and_the_bot_takes_no_more_versions(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, name="Old timer", game="1923")
    signed_in(client, ann)
    confirm = client.get(reverse("site:bot-retire", args=[bot.pk]))
    assert b"You cannot undo this." in confirm.content
    bot.refresh_from_db()
    assert bot.retired_at is None  # looking at the question retires nothing
    done = client.post(reverse("site:bot-retire", args=[bot.pk]), follow=True)
    assert b"Old timer is retired." in done.content
    bot.refresh_from_db()
    assert bot.retired_at is not None
    page = client.get(reverse("site:bot-version-new", args=[bot.pk]))
    assert b"is retired, so it takes no new versions" in page.content and b'name="kind"' not in page.content
    refused = client.post(
        reverse("site:bot-version-new", args=[bot.pk]), {"kind": "builtin", "builtin-strategy": "random"}
    )
    assert form_errors(refused, "builtin") == ["This bot is retired."]
    assert not bot.versions.exists()


# A new version, three ways.


def test_a_py_upload_is_saved_for_checking_on_a_worker(
    client: Client, ann: Player, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    bot = BotFactory(owner=ann, game="1923")
    signed_in(client, ann)
    with django_capture_on_commit_callbacks() as sent:
        response = post_upload(client, bot, "mybot.py", GOOD)
    assert response.status_code == 302 and response.headers["Location"] == reverse("site:bot", args=[bot.pk])
    version = bot.versions.get()
    assert (version.kind, version.filename, version.status) == ("upload", "mybot.py", "pending")
    assert bytes(version.source) == GOOD
    assert len(sent) == 1  # the validation task, sent once the version is committed


def test_a_zip_upload_runs_the_entry_it_names(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    post_upload(signed_in(client, ann), bot, "bot.zip", zipped({"bot/play.py": GOOD}), entry="bot/play.py")
    assert bot.versions.get().entry == "bot/play.py"


def test_a_zip_without_its_entry_is_refused_on_the_form_and_asks_for_the_file_again(
    client: Client, ann: Player
) -> None:
    bot = BotFactory(owner=ann, game="1923")
    response = post_upload(signed_in(client, ann), bot, "bot.zip", zipped({"other.py": GOOD}))
    assert response.status_code == 200
    assert form_errors(response, "upload") == [
        "bot.zip has no 'main.py': name the entry module, or add a main.py at the top level"
    ]
    assert b"Choose your file again (bot.zip)" in response.content
    assert not bot.versions.exists()


def test_a_file_over_the_limit_is_refused_on_the_form(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    big = b"#" * (MAX_UPLOAD_BYTES + 1) + b"\n"
    response = post_upload(signed_in(client, ann), bot, "big.py", big)
    assert response.status_code == 200
    assert form_errors(response, "upload") == [f"big.py is {len(big):,} bytes; a bot's file may be at most 512 KiB."]
    assert not bot.versions.exists()


def test_a_request_far_over_the_limit_is_not_read_and_is_refused_on_the_form(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    response = post_upload(signed_in(client, ann), bot, "huge.py", b"#" * (MAX_UPLOAD_BYTES + 100 * 1024))
    assert response.status_code == 200
    assert form_errors(response, "upload") == ["That file is too large: a bot's file may be at most 512 KiB."]
    assert b"Choose your file again" in response.content
    assert not bot.versions.exists()


def test_a_file_that_is_not_python_is_refused_in_the_services_words(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    response = post_upload(signed_in(client, ann), bot, "notes.txt", b"hello")
    assert form_errors(response, "upload") == ["notes.txt: upload a .py file or a .zip with an entry module"]


def test_an_address_is_checked_by_the_service_and_a_bad_one_refused_on_the_form(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    signed_in(client, ann)
    url = reverse("site:bot-version-new", args=[bot.pk])
    for address in ["ftp://bots.example.org/", "http://127.0.0.1:8080/"]:
        response = client.post(url, {"kind": "http", "http-url": address})
        assert response.status_code == 200
        (message,) = form_errors(response, "http")
        assert message and response.context["forms"]["http"].errors["url"]
    assert not bot.versions.exists()


def test_a_built_in_strategy_is_ready_at_once_and_only_the_games_own_are_offered(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    signed_in(client, ann)
    url = reverse("site:bot-version-new", args=[bot.pk])
    page = client.get(url)
    offered = dict(page.context["forms"]["builtin"].fields["strategy"].choices)
    assert list(offered) == ["counter", "random"]
    assert offered["random"] == "random: Picks uniformly among the legal actions."  # its docstring says how it plays
    refused = client.post(url, {"kind": "builtin", "builtin-strategy": "tracker"})
    assert "Select a valid choice" in form_errors(refused, "builtin")[0]
    done = client.post(url, {"kind": "builtin", "builtin-strategy": "counter"}, follow=True)
    assert b"Version 1 is ready to enter competitions." in done.content
    version = bot.versions.get()
    assert (version.kind, version.strategy, version.status) == ("builtin", "counter", "ready")


def test_past_the_per_user_rate_for_new_versions_the_form_says_when_to_try_again(
    client: Client, ann: Player, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("config.throttles.time.time", lambda: 1_800_000_000.0 + 10)  # 10 s into the hour
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {**rates, "bot_version": "2/hour"}}
    bot = BotFactory(owner=ann, game="1923")
    signed_in(client, ann)
    assert post_upload(client, bot, "one.py", GOOD).status_code == 302
    assert post_upload(client, bot, "two.py", GOOD).status_code == 302
    refused = post_upload(client, bot, "three.py", GOOD)
    assert refused.status_code == 200
    assert form_errors(refused, "upload") == [
        "You have added as many versions as the club allows for now. Try again in 60 minutes."
    ]
    assert b"Choose your file again (three.py)" in refused.content
    assert bot.versions.count() == 2
    # The API counts the same rate: the web's versions used it up.
    api = Client()
    api.force_login(ann.user)
    answer = api.post(
        f"/api/bots/{bot.pk}/versions/", {"kind": "builtin", "strategy": "random"}, content_type="application/json"
    )
    assert answer.status_code == 429


def test_an_unknown_kind_changes_nothing_and_shows_the_page(client: Client, ann: Player) -> None:
    bot = BotFactory(owner=ann, game="1923")
    response = signed_in(client, ann).post(reverse("site:bot-version-new", args=[bot.pk]), {"kind": "carrier pigeon"})
    assert response.status_code == 200 and not bot.versions.exists()


def test_the_new_version_page_and_a_versions_page_cost_a_fixed_number_of_queries(
    client: Client, ann: Player, django_assert_num_queries: Callable[..., Any]
) -> None:
    bot = BotFactory(owner=ann, game="punk")
    for number in range(1, 6):
        BotVersionFactory(bot=bot, number=number)
    signed_in(client, ann)
    # The session, the user, the bot and the unread count: the strategies come from the engine.
    with django_assert_num_queries(4):
        assert client.get(reverse("site:bot-version-new", args=[bot.pk])).status_code == 200
    with django_assert_num_queries(5):
        assert client.get(reverse("site:bot-version", args=[bot.pk, 3])).status_code == 200
    # The versions part: the session, the user, the bot, its versions and the newest one's log.
    with django_assert_num_queries(5):
        assert client.get(reverse("site:bot-versions", args=[bot.pk])).status_code == 200


def test_a_bots_page_links_its_training_data_for_a_game_with_decisions_only(client: Client, ann: Player) -> None:
    punk = BotFactory(owner=ann, game="punk")
    war = BotFactory(owner=ann, game="war")
    for bot in (punk, war):
        BotVersionFactory(bot=bot, number=1)
        played_matches(bot, 1)
    signed_in(client, ann)
    link = f'href="/api/bots/{punk.pk}/training-data/" download>Download training data</a>'
    assert link in client.get(reverse("site:bot", args=[punk.pk])).content.decode()
    # War asks no one anything: its download would be empty.
    assert "training-data" not in client.get(reverse("site:bot", args=[war.pk])).content.decode()
