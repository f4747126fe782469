"""Uploaded and HTTP bot versions through the API: checked on the way in, validated in the sandbox, owner-only logs."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from league.models import BotVersion
from league.validation import bot_version_validate
from tests.engine.sandbox_support import needs_sandbox
from tests.factories import BotFactory, UserFactory
from tests.league.test_api_support import client_for

pytestmark = pytest.mark.django_db

GOOD_1923 = b"def act(turn):\n    print('deciding', turn.decision)\n    return turn.legal_actions[0]\n"
CRASHES = b"raise RuntimeError('broken on purpose')\n"


def upload(bot: Any, name: str, content: bytes, **extra: str) -> Any:
    return client_for(bot.owner.user).post(
        f"/api/bots/{bot.pk}/versions/",
        {"kind": "upload", "source": SimpleUploadedFile(name, content), **extra},
        format="multipart",
    )


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


@needs_sandbox
def test_an_upload_is_stored_checksummed_and_becomes_ready_after_its_validation_game(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    bot = BotFactory(game="1923")
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bot, "mybot.py", GOOD_1923)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["kind"] == "upload" and body["filename"] == "mybot.py" and body["entry"] == "mybot.py"
    assert len(body["sha256"]) == 64
    version = BotVersion.objects.get(pk=body["id"])
    assert bytes(version.source) == GOOD_1923
    assert version.status == BotVersion.Status.READY, version.status_detail
    assert "played a 1923 game" in version.status_detail
    assert "deciding 0" in version.log


@needs_sandbox
def test_what_a_bot_sent_stays_out_of_the_public_status_and_in_its_owners_log(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    """Issue 11, finding 6: a real bot's illegal action could name a card of its hand."""
    bot = BotFactory(game="1923")
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bot, "leaky.py", b"def act(turn):\n    return 'PLAY ZZ-ILLEGAL-SECRET'\n")
    version = BotVersion.objects.get(pk=response.json()["id"])
    assert version.status == BotVersion.Status.FAILED
    assert version.status_detail == "illegal_action at move 0 (the log says more)"
    public = client_for(UserFactory()).get(f"/api/bots/{bot.pk}/versions/{version.number}/")
    assert "SECRET" not in public.content.decode()
    owner_log = client_for(bot.owner.user).get(f"/api/bots/{bot.pk}/versions/{version.number}/log/").json()["log"]
    assert owner_log.startswith("illegal_action at move 0: ")
    assert "ZZ-ILLEGAL-SECRET" in owner_log


@needs_sandbox
def test_a_zip_upload_runs_its_entry_module_with_its_own_imports(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    bot = BotFactory(game="banter")
    content = zipped(
        {
            "bot/play.py": b"from helpers import first\ndef act(turn):\n    return first(turn.legal_actions)\n",
            "bot/helpers.py": b"def first(actions):\n    return actions[0]\n",
        }
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bot, "bot.zip", content, entry="bot/play.py")
    assert response.status_code == 201, response.json()
    version = BotVersion.objects.get(pk=response.json()["id"])
    assert version.status == BotVersion.Status.READY, f"{version.status_detail}\n{version.log}"


@needs_sandbox
def test_a_bot_that_cannot_start_fails_validation_with_its_traceback_for_its_owner_only(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    bot = BotFactory(game="punk")
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bot, "broken.py", CRASHES)
    version = BotVersion.objects.get(pk=response.json()["id"])
    assert version.status == BotVersion.Status.FAILED
    assert version.status_detail.startswith("init_failure")
    owner_view = client_for(bot.owner.user).get(f"/api/bots/{bot.pk}/versions/{version.number}/log/")
    assert owner_view.status_code == 200
    assert "broken on purpose" in owner_view.json()["log"]
    stranger_view = client_for(UserFactory()).get(f"/api/bots/{bot.pk}/versions/{version.number}/log/")
    assert stranger_view.status_code == 403
    listed = client_for(UserFactory()).get(f"/api/bots/{bot.pk}/versions/{version.number}/").json()
    assert "log" not in listed and "source" not in listed


@pytest.mark.parametrize(
    ("name", "content", "extra", "fragment"),
    [
        ("bot.exe", b"MZ", {}, "upload a .py file or a .zip"),
        ("empty.py", b"", {}, "submitted file is empty"),
        ("latin.py", "café = 1".encode("latin-1"), {}, "not UTF-8 text"),
        ("escape.zip", zipped({"../evil.py": b"x = 1\n", "main.py": b"def act(t): return 1\n"}), {}, "plain relative"),
        ("nomain.zip", zipped({"bot.py": b"def act(t): return 1\n"}), {}, "has no 'main.py'"),
        ("big.py", b"#" * (512 * 1024 + 1), {}, "the limit is 524,288"),
        ("two.py", b"def act(t): return 1\n", {"entry": "other.py"}, "a single .py upload is its own entry"),
    ],
)
def test_bad_uploads_are_a_400_on_source_and_store_nothing(
    name: str, content: bytes, extra: dict[str, str], fragment: str
) -> None:
    bot = BotFactory(game="1923")
    response = upload(bot, name, content, **extra)
    assert response.status_code == 400
    assert list(response.json()) == ["source"]
    assert fragment in response.json()["source"][0]
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_only_the_owner_may_upload() -> None:
    bot = BotFactory(game="1923")
    response = client_for(UserFactory()).post(
        f"/api/bots/{bot.pk}/versions/",
        {"kind": "upload", "source": SimpleUploadedFile("x.py", GOOD_1923)},
        format="multipart",
    )
    assert response.status_code == 403
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_an_http_version_s_url_is_shown_to_its_owner_only(settings: Any) -> None:
    settings.BOT_HTTP_ALLOW_PRIVATE = True
    bot = BotFactory(game="1923")
    owner = client_for(bot.owner.user)
    response = owner.post(
        f"/api/bots/{bot.pk}/versions/", {"kind": "http", "url": "http://127.0.0.1:9/move?token=s3cret"}, format="json"
    )
    assert response.status_code == 201, response.json()
    number = response.json()["number"]
    assert response.json()["status"] == "pending"
    assert owner.get(f"/api/bots/{bot.pk}/versions/{number}/").json()["url"].endswith("token=s3cret")
    assert client_for(UserFactory()).get(f"/api/bots/{bot.pk}/versions/{number}/").json()["url"] is None


def test_an_http_bot_that_does_not_answer_fails_validation(settings: Any) -> None:
    settings.BOT_HTTP_ALLOW_PRIVATE = True
    bot = BotFactory(game="1923")
    version = BotVersion.objects.create(bot=bot, number=1, kind=BotVersion.Kind.HTTP, url="http://127.0.0.1:9/")
    validated = bot_version_validate(version_id=version.pk)
    assert validated is not None and validated.status == BotVersion.Status.FAILED
    assert validated.status_detail.startswith("init_failure")


@needs_sandbox
def test_a_validation_delivered_twice_keeps_the_first_verdict(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    bot = BotFactory(game="1923")
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bot, "mybot.py", GOOD_1923)
    version = BotVersion.objects.get(pk=response.json()["id"])
    BotVersion.objects.filter(pk=version.pk).update(source=CRASHES)
    again = bot_version_validate(version_id=version.pk)
    assert again is not None and again.status == BotVersion.Status.READY


def test_an_oversized_request_is_refused_before_its_body_is_read() -> None:
    bot = BotFactory(game="1923")
    response = client_for(bot.owner.user).post(
        f"/api/bots/{bot.pk}/versions/",
        {"kind": "upload", "source": SimpleUploadedFile("huge.py", b"#" * (2 * 1024 * 1024))},
        format="multipart",
    )
    assert response.status_code == 400
    assert "an upload may be 524,288" in response.json()["source"][0]
    assert not BotVersion.objects.filter(bot=bot).exists()


@needs_sandbox
def test_a_nul_byte_in_a_bot_s_log_is_stored_not_fatal(django_capture_on_commit_callbacks: Callable[..., Any]) -> None:
    bot = BotFactory(game="1923")
    source = b"import sys\nsys.stderr.write('hello\\x00world')\ndef act(turn):\n    return turn.legal_actions[0]\n"
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bot, "nul.py", source)
    version = BotVersion.objects.get(pk=response.json()["id"])
    assert version.status == BotVersion.Status.READY
    assert "hello\ufffdworld" in version.log
