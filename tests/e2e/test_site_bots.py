"""A bot author's journey in chromium at both widths (issue 23): a member makes a bot and uploads a version from a
.py file through the pages, sees it checked (the page follows the test game by itself), reads its log, renames
and retires the bot; the effect is checked through the API.

The test stands in for the worker: the upload's validation task is held when the upload sends it, so the page
can be seen while the version is being checked, and then the test runs that very task, whose test game plays
the uploaded file in the sandbox as a worker would (tests/e2e/test_sandboxed_bots.py runs it on a real worker).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from league.models import Bot, BotVersion, Player
from league.services import bot_create, bot_version_create_builtin, player_create
from league.tasks import validate_bot_version
from league.validation import VALIDATE_BOT_VERSION
from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.site_checks import check_page
from tests.engine.sandbox_support import needs_sandbox
from tests.factories import CompetitionFactory, EntrantFactory
from tests.league.test_api_support import client_for
from tournaments.models import Match
from tournaments.services.competitions import competition_start, entrant_join
from tournaments.services.play import match_play

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page
expect = playwright_sync.expect

pytestmark = [pytest.mark.django_db(transaction=True), needs_sandbox]

#: A 1923 bot that says what it decides in its log, as bot authors debug with print().
MYBOT = "def act(turn):\n    print('deciding', turn.decision, turn.legal_actions)\n    return turn.legal_actions[-1]\n"


@pytest.fixture
def held_tasks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[object, ...]]]:
    """The tasks the web sends to the workers, held here instead of sent, for the test to run as a worker."""
    held: list[tuple[str, tuple[object, ...]]] = []

    def hold(task_name: str, *args: object, queue: str) -> None:
        held.append((task_name, args))

    monkeypatch.setattr("league.validation.enqueue_on_commit", hold)
    return held


def sign_in(page: Page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/?next=/bots/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/bots/$"))


def zip_without_main(path: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("helpers.py", "X = 1\n")
    path.write_bytes(buffer.getvalue())
    return path


def test_a_member_makes_a_bot_uploads_a_py_file_and_sees_it_checked_ready_with_its_log(
    page: Page, live_server: Any, tmp_path: Path, held_tasks: list[tuple[str, tuple[object, ...]]]
) -> None:
    base = live_server.url
    width = page.viewport_size["width"]
    ann = player_create(username="ann", password="a-long-password-1")
    sign_in(page, base, "ann", "a-long-password-1")
    expect(page.get_by_text("You have no bots yet")).to_be_visible()
    check_page(page, "bots-empty")

    # A new bot: first sent empty, then filled in.
    page.get_by_role("link", name="New bot").click()
    check_page(page, "bot-new")
    page.get_by_role("button", name="Make the bot").click()
    expect(page.get_by_text("Please correct what is marked below.")).to_be_visible()
    check_page(page, "bot-new-refused")
    page.get_by_label("Name").fill("Lockstep")
    page.get_by_label("Game").select_option(label="1923")
    page.get_by_label("Description").fill("Draws while the deck lasts.")
    page.get_by_role("button", name="Make the bot").click()
    expect(page.get_by_role("heading", name="New version of Lockstep")).to_be_visible()
    expect(page.get_by_text("Lockstep is made. Now give it its first version.")).to_be_visible()
    check_page(page, "bot-version-new")
    bot = Bot.objects.get(owner=ann, name="Lockstep")
    assert bot.game == "1923"

    # A zip without its entry: refused on the form, and the page says the file must be chosen again.
    page.get_by_label("Your bot's file").set_input_files(str(zip_without_main(tmp_path / "mybot.zip")))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_text("mybot.zip has no 'main.py'")).to_be_visible()
    expect(page.get_by_text("Choose your file again (mybot.zip)")).to_be_visible()
    check_page(page, "bot-version-refused")
    assert not bot.versions.exists() and not held_tasks

    # The .py file: saved, and being checked.
    source = tmp_path / "mybot.py"
    source.write_text(MYBOT)
    page.get_by_label("Your bot's file").set_input_files(str(source))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("heading", name="Lockstep", level=1)).to_be_visible()
    expect(page.get_by_text("Version 1 is saved. A test game against the random bot decides")).to_be_visible()
    versions = page.locator("#versions")
    expect(versions.locator(".pill")).to_have_text("checking")
    expect(versions.locator("progress")).to_be_visible()
    check_page(page, "bot-checking")
    version = bot.versions.get()
    assert held_tasks == [(VALIDATE_BOT_VERSION, (version.pk,))]
    api = client_for(ann.user)
    assert api.get(f"/api/bots/{bot.pk}/versions/1/").json()["status"] == "pending"

    # The worker's part: the held task plays the test game in the sandbox; the page follows by itself.
    validate_bot_version(version.pk)
    expect(versions.locator(".pill")).to_have_text("ready", timeout=15_000)
    expect(versions.locator("progress")).to_have_count(0)
    expect(versions.get_by_text("Played a 1923 game against random to its end")).to_be_visible()
    log = versions.locator("pre.bot-log")
    expect(log).to_contain_text("deciding 0")
    check_page(page, "bot-ready")

    # Through the API: the version is ready, with the same log for its owner.
    shown = api.get(f"/api/bots/{bot.pk}/versions/1/").json()
    assert (shown["status"], shown["kind"], shown["filename"]) == ("ready", "upload", "mybot.py")
    owner_log = api.get(f"/api/bots/{bot.pk}/versions/1/log/").json()["log"]
    assert "deciding 0" in owner_log and owner_log.strip() in log.inner_text().strip()
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY

    # The version's own page, with its log.
    page.get_by_role("link", name="Test game log of version 1").click()
    expect(page.get_by_role("heading", name="Lockstep, version 1")).to_be_visible()
    expect(page.locator("pre.bot-log")).to_contain_text("deciding 0")
    check_page(page, "bot-version")
    page.get_by_role("link", name="Lockstep").click()

    # Renamed, then retired after the question.
    page.get_by_label("Name").fill(f"Lockstep {width}")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Saved.")).to_be_visible()
    assert api.get(f"/api/bots/{bot.pk}/").json()["name"] == f"Lockstep {width}"

    # A second version that crashes: failed, with the reason in a word and the traceback in its log.
    page.get_by_role("link", name="Add a version").click()
    crashing = tmp_path / "broken.py"
    crashing.write_text("def act(turn):\n    raise RuntimeError('oops, a bug')\n")
    page.get_by_label("Your bot's file").set_input_files(str(crashing))
    page.get_by_role("button", name="Upload").click()
    expect(versions.locator(".version").first.locator(".pill")).to_have_text("checking")
    (_, (second_id,)) = held_tasks[-1]
    validate_bot_version(second_id)
    newest = versions.locator(".version").first
    expect(newest.locator(".pill")).to_have_text("failed", timeout=15_000)
    expect(newest).to_contain_text("Crash at move 0 (the log says more)")
    expect(versions.locator("pre.bot-log")).to_contain_text("RuntimeError: oops, a bug")
    check_page(page, "bot-failed")
    assert api.get(f"/api/bots/{bot.pk}/versions/2/").json()["status"] == "failed"

    page.get_by_role("link", name=f"Retire Lockstep {width}").click()
    expect(page.get_by_text("You cannot undo this.")).to_be_visible()
    check_page(page, "bot-retire")
    page.get_by_role("button", name=f"Yes, retire Lockstep {width}").click()
    expect(page.get_by_text(f"Lockstep {width} is retired.")).to_be_visible()
    expect(page.get_by_role("link", name="Add a version")).to_have_count(0)
    check_page(page, "bot-retired")
    assert api.get(f"/api/bots/{bot.pk}/").json()["retired_at"] is not None

    page.get_by_role("link", name="My bots").first.click()
    mine = page.locator("ul.bots li")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("retired")
    expect(mine).to_contain_text("Version 2")
    expect(mine.locator(".pill")).to_have_text("failed")
    check_page(page, "bots-list")


def played_war_bot(owner: Player, name: str) -> Bot:
    """A War bot of ``owner`` with a built-in version that has played two matches to their end."""
    bot = bot_create(owner=owner, name=name, game="war")
    version = bot_version_create_builtin(bot=bot, strategy="random")
    for number in range(2):
        competition = CompetitionFactory(game="war", name=f"Friday war {number + 1}", options={"max_rounds": 50})
        entrant_join(competition=competition, bot_version=version)
        EntrantFactory(competition=competition, name="House bot")
        competition_start(competition=competition)
        match_play(match_id=Match.objects.get(competition=competition).pk)
    return bot


def test_an_address_refused_a_built_in_strategy_chosen_its_matches_listed_and_nobody_else_sees_the_page(
    page: Page, live_server: Any, browser: Browser
) -> None:
    base = live_server.url
    ann = player_create(username="ann", password="a-long-password-1")
    bot = played_war_bot(ann, "Warrior")
    sign_in(page, base, "ann", "a-long-password-1")
    page.get_by_role("link", name="Warrior").click()
    page.get_by_role("link", name="Add a version").click()

    # An address on the club's own machine: refused by the service, on the address's form, which is in view.
    page.get_by_label("Your bot's address").fill("http://127.0.0.1:8080/move")
    page.get_by_role("button", name="Use this address").click()
    refusal = page.locator("#http .field-errors")
    expect(refusal).to_contain_text("127.0.0.1")
    expect(refusal).to_be_in_viewport()
    check_page(page, "bot-version-address-refused")
    assert bot.versions.count() == 1

    # A built-in strategy, chosen by its description: ready at once.
    expect(page.get_by_label("random: Picks uniformly among the legal actions.")).to_be_checked()  # the only one
    page.get_by_role("button", name="Use this strategy").click()
    expect(page.get_by_text("Version 2 is ready to enter competitions.")).to_be_visible()
    expect(page.locator("#versions .version").first).to_contain_text("Built-in strategy “random”")
    matches = page.locator("ul.matches-played > li")
    expect(matches).to_have_count(2)
    expect(matches.first).to_contain_text("Friday war 2, round 1")
    expect(matches.first).to_contain_text("against House bot")
    check_page(page, "bot-with-matches")
    shown = client_for(ann.user).get(f"/api/bots/{bot.pk}/versions/").json()["results"]
    assert [(v["number"], v["kind"], v["status"]) for v in shown] == [(1, "builtin", "ready"), (2, "builtin", "ready")]

    # Each match links to its page.
    first = Match.objects.filter(participants__entrant__bot_version__bot=bot).order_by("-pk").first()
    assert first is not None
    page.get_by_role("link", name="Friday war 2, round 1").click()
    page.wait_for_url(f"{base}/play/matches/{first.pk}/")
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(SCREENSHOTS / f"bot-match-link-{page.viewport_size['width']}.png"), full_page=True)

    # Another member is refused the page, with the site's own words.
    player_create(username="ben", password="a-long-password-2")
    other = browser.new_context(viewport=page.viewport_size)
    try:
        bens = other.new_page()
        sign_in(bens, base, "ben", "a-long-password-2")
        response = bens.goto(f"{base}/bots/{bot.pk}/")
        assert response is not None and response.status == 403
        expect(bens.get_by_text("Only a bot's owner may see its page.")).to_be_visible()
        check_page(bens, "bot-not-yours")
    finally:
        other.close()


@pytest.mark.parametrize("page", [1280], indirect=True, ids=["1280px"])
def test_an_upload_through_the_page_is_checked_by_a_real_worker_and_the_page_follows(
    page: Page, live_server: Any, tmp_path: Path, workers: Any
) -> None:
    """PostgreSQL and Redis: the upload's task goes through the broker to a worker started only once the page
    shows the version being checked, so the page is seen to change from checking to ready by itself."""
    base = live_server.url
    ann = player_create(username="ann", password="a-long-password-1")
    bot = bot_create(owner=ann, name="Lockstep", game="1923")
    sign_in(page, base, "ann", "a-long-password-1")
    page.goto(f"{base}/bots/{bot.pk}/versions/new/")
    source = tmp_path / "mybot.py"
    source.write_text(MYBOT)
    page.get_by_label("Your bot's file").set_input_files(str(source))
    page.get_by_role("button", name="Upload").click()
    versions = page.locator("#versions")
    expect(versions.locator(".pill")).to_have_text("checking")
    assert bot.versions.get().status == BotVersion.Status.PENDING  # nothing has taken the task yet
    workers("w1")
    expect(versions.locator(".pill")).to_have_text("ready", timeout=90_000)
    expect(versions.locator("pre.bot-log")).to_contain_text("deciding 0")
    assert client_for(ann.user).get(f"/api/bots/{bot.pk}/versions/1/").json()["status"] == "ready"


def test_the_owner_downloads_the_bot_s_training_data_from_its_page(page: Page, live_server: Any) -> None:
    base = live_server.url
    ann = player_create(username="ann", password="a-long-password-1")
    bot = bot_create(owner=ann, name="Punky", game="punk")
    version = bot_version_create_builtin(bot=bot, strategy="random")
    competition = CompetitionFactory(game="punk", players_per_match=3, name="Punk night")
    entrant_join(competition=competition, bot_version=version)
    for name in ("House bot", "Other bot"):
        EntrantFactory(competition=competition, name=name)
    competition_start(competition=competition)
    match_play(match_id=Match.objects.get(competition=competition).pk)
    sign_in(page, base, "ann", "a-long-password-1")
    page.get_by_role("link", name="Punky").click()
    link = page.get_by_role("link", name="Download training data")
    expect(link).to_be_visible()
    check_page(page, "bot-training-data")
    with page.expect_download() as download:
        link.click()
    assert download.value.suggested_filename == f"punky-{bot.pk}-training-data.jsonl"
    lines = Path(download.value.path()).read_text().splitlines()
    # Punk at three: seven tricks, a decision of Punky's in each, every one from Punky's own seat.
    assert len(lines) == 7
    assert {json.loads(line)["observation"]["seat"] for line in lines} == {json.loads(lines[0])["seat"]}
