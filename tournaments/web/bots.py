"""A bot author's pages: my bots, a new bot, its versions (upload, HTTP endpoint, built-in), logs, retiring.

Only a bot's owner sees its pages; anyone else gets 403, as the API answers anyone else who asks for a
version's log (the bot itself is public there, so its existence is no secret to hide behind a 404). Every
write is a service of league/services.py, the same the API and the admin call, so the three refuse alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.request import Request

from config.throttles import BotVersionThrottle
from engine.games import UnknownGame, get_game
from engine.sandbox.code import MAX_UPLOAD_BYTES
from league.models import Bot, BotVersion
from league.selectors import player_of_user
from league.services import (
    bot_create,
    bot_retire,
    bot_update,
    bot_version_create_builtin,
    bot_version_create_http,
    bot_version_create_upload,
    bot_version_reinstate,
    player_for_user,
)
from tournaments.bot_selectors import (
    bot_participations,
    bot_version_with_log,
    bot_versions_newest_first,
    owned_bot,
    owner_bots,
)
from tournaments.models import Match, MatchParticipant
from tournaments.result_words import failed_by, listed, outcome
from tournaments.web.bot_forms import (
    UPLOAD_LIMIT_WORDS,
    BotDetailsForm,
    BuiltinVersionForm,
    HttpVersionForm,
    NewBotForm,
    UploadVersionForm,
    VersionForm,
)
from tournaments.web.refusals import call_for_form, call_for_message

#: A version's status as the page says it.
STATUS_WORDS = {
    BotVersion.Status.PENDING: "checking",
    BotVersion.Status.READY: "ready",
    BotVersion.Status.FAILED: "failed",
}
#: A match's status, for a seat whose match has no result yet.
MATCH_WORDS = {
    Match.Status.PENDING: "waiting to be played",
    Match.Status.RUNNING: "being played now",
    Match.Status.LIVE: "being played now",
    Match.Status.ERROR: "stopped by an error",
    Match.Status.CANCELLED: "cancelled",
}
#: A request larger than this is not read at all: the largest upload and room for the form around it.
UPLOAD_REQUEST_LIMIT = MAX_UPLOAD_BYTES + 64 * 1024
#: A body past the limit is read and dropped up to this much, so the browser gets the page, not a reset
#: connection; beyond it the request is not worth reading.
DRAIN_LIMIT = 16 * MAX_UPLOAD_BYTES
MATCHES_PER_PAGE = 20


@dataclass(frozen=True)
class BotLine:
    """One of my bots on the list, with its latest version's status in words."""

    bot: Bot
    latest_words: str


@dataclass(frozen=True)
class VersionLine:
    """One version as the pages show it."""

    version: BotVersion
    status: str
    what: str

    @property
    def checking(self) -> bool:
        return self.version.status == BotVersion.Status.PENDING

    @property
    def suspension(self) -> str:
        """Why the version is suspended, in words ("it crashed in 7 and ran out of time in 1 of its recent games");
        "" if it is not."""
        if self.version.suspended_at is None:
            return ""
        causes = self.version.suspension_causes or {}
        said = listed([f"{failed_by(cause)} in {count}" for cause, count in causes.items()])
        return f"it {said} of its recent games"

    @property
    def waiting(self) -> str:
        """How long ago the test game was sent to the workers, in words (a long wait means no worker is free)."""
        if self.version.queued_at is None:
            return ""
        seconds = (timezone.now() - self.version.queued_at).total_seconds()
        if seconds < 60:
            return "less than a minute ago"
        return f"{timesince(self.version.queued_at)} ago"


def version_line(version: BotVersion) -> VersionLine:
    if version.kind == BotVersion.Kind.BUILTIN:
        what = f"Built-in strategy “{version.strategy}”"
    elif version.kind == BotVersion.Kind.HTTP:
        what = f"Web address {version.url}"
    elif version.entry and version.entry != version.filename:
        what = f"File {version.filename}, running {version.entry}"
    else:
        what = f"File {version.filename}"
    return VersionLine(version=version, status=STATUS_WORDS[BotVersion.Status(version.status)], what=what)


@dataclass(frozen=True)
class MatchLine:
    """The bot's seat in one match: where, against whom, and how it ended."""

    match: Match
    version_number: int
    opponents: list[str]
    result: str
    #: How the bot failed in it ("crashed"), with the failure's detail and what it printed; empty if it did not.
    failure: str = ""
    detail: str = ""
    log: str = ""


def match_line(seat: MatchParticipant) -> MatchLine:
    match = seat.match
    table = list(match.participants.all())
    if seat.rank is None:
        result = MATCH_WORDS.get(Match.Status(match.status), match.status)
    else:
        result = outcome(seat.rank, [other.rank or 0 for other in table if other.pk != seat.pk]).words
    version = seat.entrant.bot_version
    run = getattr(seat, "bot_run", None)  # built-in strategies keep no run
    return MatchLine(
        match=match,
        version_number=version.number if version is not None else 0,
        opponents=[other.entrant.name for other in table if other.pk != seat.pk],
        result=result,
        failure=failed_by(run.failure) if run is not None and run.failure else "",
        detail=run.detail if run is not None else "",
        log=run.log if run is not None else "",
    )


def own_bot(request: HttpRequest, bot_id: int) -> Bot:
    """The bot if the signed-in person owns it: 404 if there is none, 403 if it is someone else's."""
    bot = owned_bot(bot_id=bot_id)
    if bot is None:
        raise Http404("no such bot")
    if bot.owner.user_id != request.user.pk:
        raise PermissionDenied("Only a bot's owner may see its page.")
    return bot


@login_required
@require_GET
def my_bots(request: HttpRequest) -> HttpResponse:
    player = player_of_user(request.user)
    bots = owner_bots(owner=player) if player is not None else Bot.objects.none()
    # The selector annotates each bot with its latest version's status; the page says it in words.
    lines = [BotLine(bot=bot, latest_words=STATUS_WORDS.get(bot.latest_status, "")) for bot in bots]  # type: ignore[attr-defined]
    return render(request, "site/bots/list.html", {"bot_lines": lines})


@login_required
@require_http_methods(["GET", "POST"])
def bot_new(request: HttpRequest) -> HttpResponse:
    form = NewBotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        owner = player_for_user(user=request.user)  # type: ignore[arg-type]  # login_required: a User
        bot = call_for_form(form, lambda: bot_create(owner=owner, **form.cleaned_data))
        if bot is not None:
            messages.success(request, f"{bot.name} is made. Now give it its first version.")
            return redirect("site:bot-version-new", bot.pk)
    return render(request, "site/bots/new.html", {"form": form})


def bot_page_context(request: HttpRequest, bot: Bot) -> dict[str, object]:
    matches = Paginator(bot_participations(bot=bot), MATCHES_PER_PAGE).get_page(request.GET.get("page"))
    return {
        "bot": bot,
        **versions_context(bot),
        "matches": matches,
        "match_lines": [match_line(seat) for seat in matches],
        # A game that asks no one anything (War) has no decisions to learn from: no link to an empty file.
        "training_data": _has_decisions(bot.game),
    }


def _has_decisions(game: str) -> bool:
    try:
        return get_game(game).DECISIONS
    except UnknownGame:  # a game no longer registered here (tests/tournaments/test_unknown_game.py)
        return False


def versions_context(bot: Bot) -> dict[str, object]:
    lines = [version_line(version) for version in bot_versions_newest_first(bot=bot)]
    newest = bot_version_with_log(bot=bot, number=lines[0].version.number) if lines else None
    return {
        "bot": bot,
        "version_lines": lines,
        "newest": version_line(newest) if newest is not None else None,
        "checking": any(line.checking for line in lines),
    }


@login_required
@require_http_methods(["GET", "POST"])
def bot_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = own_bot(request, bot_id)
    form = BotDetailsForm(request.POST or None, initial={"name": bot.name, "description": bot.description})
    if request.method == "POST" and form.is_valid():
        updated = call_for_form(form, lambda: bot_update(bot=bot, **form.cleaned_data))
        if updated is not None:
            messages.success(request, "Saved.")
            return redirect("site:bot", bot.pk)
        bot.refresh_from_db()  # the service may have set the refused name on the instance
    return render(request, "site/bots/bot.html", {**bot_page_context(request, bot), "form": form})


@login_required
@require_GET
def bot_versions_part(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The versions part of the bot's page, which the page asks for again while a version is being checked."""
    bot = own_bot(request, bot_id)
    return render(request, "site/bots/versions_part.html", versions_context(bot))


@login_required
@require_GET
def bot_version_page(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    bot = own_bot(request, bot_id)
    version = bot_version_with_log(bot=bot, number=number)
    if version is None:
        raise Http404("no such version")
    return render(request, "site/bots/version.html", {"bot": bot, "line": version_line(version)})


@login_required
@require_http_methods(["GET", "POST"])
def bot_retire_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = own_bot(request, bot_id)
    if request.method == "POST":
        call_for_message(request, lambda: bot_retire(bot=bot), done=f"{bot.name} is retired.")
        return redirect("site:bot", bot.pk)
    return render(request, "site/bots/retire.html", {"bot": bot})


@login_required
@require_POST
def bot_version_reinstate_page(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    """The Reinstate button of a suspended version: the service the API calls, its refusal a message."""
    bot = own_bot(request, bot_id)
    version = bot_version_with_log(bot=bot, number=number)
    if version is None:
        raise Http404("no such version")
    call_for_message(
        request,
        lambda: bot_version_reinstate(version=version),
        done=f"Version {number} is reinstated: it plays in ladders and may enter competitions again.",
    )
    return redirect("site:bot", bot.pk)


def version_rate_wait(request: HttpRequest) -> int | None:
    """Counts one new version under the API's per-user rate for them: None if allowed, else the seconds to wait."""
    throttle = BotVersionThrottle()
    wrapped = Request(request)
    wrapped.user = request.user  # the session's user; the wrapper has no authenticators of its own
    if throttle.allow_request(wrapped, None):
        return None
    return max(1, math.ceil(throttle.wait() or 0.0))


def wait_words(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{math.ceil(seconds / 60)} minutes"


def drained_too_large(request: HttpRequest) -> bool:
    """True if the request is too large to hold an acceptable upload; its body is then dropped unread."""
    declared = int(request.META.get("CONTENT_LENGTH") or 0)
    if declared <= UPLOAD_REQUEST_LIMIT:
        return False
    if declared <= DRAIN_LIMIT:
        while request.read(64 * 1024):
            pass
    return True


@login_required
@require_http_methods(["GET", "POST"])
def bot_version_new(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = own_bot(request, bot_id)
    forms: dict[str, VersionForm] = {
        "upload": UploadVersionForm(prefix="upload"),
        "http": HttpVersionForm(prefix="http"),
        "builtin": BuiltinVersionForm(prefix="builtin", game=bot.game),
    }
    sent = ""
    if request.method == "POST":
        if drained_too_large(request):
            sent = "upload"
            forms["upload"] = UploadVersionForm.too_large(prefix="upload")
        else:
            sent = request.POST.get("kind", "")
            if sent in forms:
                forms[sent] = bound_version_form(request, bot, sent)
                version = create_version(request, bot, forms[sent])
                if version is not None:
                    messages.success(request, version_made_words(version))
                    return redirect("site:bot", bot.pk)
    kept_file = request.FILES.get("upload-source") if sent == "upload" and request.method == "POST" else None
    context = {"bot": bot, "forms": forms, "sent": sent, "kept_file": kept_file, "limit": UPLOAD_LIMIT_WORDS}
    return render(request, "site/bots/version_new.html", context)


def bound_version_form(request: HttpRequest, bot: Bot, kind: str) -> VersionForm:
    if kind == "upload":
        return UploadVersionForm(request.POST, request.FILES, prefix="upload")
    if kind == "http":
        return HttpVersionForm(request.POST, prefix="http")
    return BuiltinVersionForm(request.POST, prefix="builtin", game=bot.game)


def create_version(request: HttpRequest, bot: Bot, form: VersionForm) -> BotVersion | None:
    """The service's new version for a valid form, or None with the refusal (the rate's among them) on the form."""
    if not form.is_valid():
        return None
    wait = version_rate_wait(request)
    if wait is not None:
        form.add_error(
            None, f"You have added as many versions as the club allows for now. Try again in {wait_words(wait)}."
        )
        return None
    data = form.cleaned_data
    make: Callable[[], BotVersion]
    if isinstance(form, UploadVersionForm):
        source = data["source"]
        make = lambda: bot_version_create_upload(  # noqa: E731
            bot=bot, filename=source.name, content=source.read(), entry=data["entry"]
        )
    elif isinstance(form, HttpVersionForm):
        make = lambda: bot_version_create_http(bot=bot, url=data["url"])  # noqa: E731
    else:
        make = lambda: bot_version_create_builtin(bot=bot, strategy=data["strategy"])  # noqa: E731
    return call_for_form(form, make)


def version_made_words(version: BotVersion) -> str:
    if version.status == BotVersion.Status.READY:
        return f"Version {version.number} is ready to enter competitions."
    return f"Version {version.number} is saved. A test game against the random bot decides whether it is ready."


urlpatterns: list[URLPattern] = [
    path("bots/", my_bots, name="bots"),
    path("bots/new/", bot_new, name="bot-new"),
    path("bots/<int:bot_id>/", bot_page, name="bot"),
    path("bots/<int:bot_id>/versions/new/", bot_version_new, name="bot-version-new"),
    path("bots/<int:bot_id>/versions/", bot_versions_part, name="bot-versions"),
    path("bots/<int:bot_id>/versions/<int:number>/", bot_version_page, name="bot-version"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/reinstate/", bot_version_reinstate_page, name="bot-version-reinstate"
    ),
    path("bots/<int:bot_id>/retire/", bot_retire_page, name="bot-retire"),
]
