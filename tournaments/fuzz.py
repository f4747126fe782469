"""The API fuzz gate: Schemathesis against the project's own OpenAPI schema, on a real server process.

One implementation for `make fuzz` (``manage.py fuzz_api``, at least 1,000 examples per operation)
and the test suite (tests/e2e/test_api_fuzz.py, 50 by default). The steps:

1. ``seed_club()`` fills the database the server will use with a realistic club: the demo club
   (members, built-in bots with versions, a played competition of each game, a live 1923 table),
   a War competition played with real cards whose match has a disputed transcript, and a second
   club whose organiser has invited the demo login (a personal invitation to accept or decline).
2. ``ApiServer`` runs gunicorn's sync workers on that database, as a web node runs them
   (docs/deploy.md). What the server would hand to the workers goes to a broker nobody reads:
   Celery's filesystem transport in the run's own folder, deleted afterwards. So a bot version the
   fuzzer uploads is stored and stays unvalidated, nothing runs in the sandbox, no worker plays a
   match, and nothing is left queued on a shared Redis. Request rates are off (every scope of
   THROTTLE_RATES), so the fuzzer is never throttled.
3. ``fuzz()`` runs ``schemathesis run`` over every operation with every check, twice: anonymous,
   and with the token of the club's organiser (the demo login, who plays at the live table and
   wrote the transcript), so the authenticated paths are reached. It prints each run's failures
   as Schemathesis reports them (with a curl line to reproduce each) and a summary.

The settings are the test suite's (config.settings.test): DEBUG off, as in production, so errors
are the API's own JSON and not Django's debug pages.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import QuerySet
from rest_framework.authtoken.models import Token

from engine.bots import seat_agents
from engine.games.profile import Race, SetTable
from engine.runner import play_game
from league.models import Bot, BotVersion, Club, Membership, PersonalInvitation, Player
from league.personal_invitations import club_invite
from league.services import club_create
from tournaments.demo import CLUB_SLUG, DEMO_USERNAME, MEMBERS, TRANSCRIPT_GAME, build_demo, transcript_deal
from tournaments.formats.challenge_ladder import challenge_ladders
from tournaments.models import Challenge, Competition, Entrant, Game, Match, Transcript
from tournaments.selectors import games_broken_down
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.services.transcripts import transcript_dispute, transcript_submit

#: Examples per operation when nothing says otherwise (the test suite's; `make fuzz` asks for 1,000).
DEFAULT_EXAMPLES = 50
TRANSCRIPT_COMPETITION = "Fuzz War with real cards"
#: The second club, whose organiser invites the demo login.
INVITING_CLUB_SLUG = "fuzz-inviting-club"

#: gunicorn's hook: log every request that failed with its traceback to the server's log (DEBUG is off,
#: and Django then logs server errors nowhere a person would look).
GUNICORN_CONFIG = """\
import logging
import sys


def post_worker_init(worker):
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.ERROR)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.getLogger("django.request").addHandler(handler)
"""


@dataclass(frozen=True)
class Cast:
    """Who the authenticated run acts as."""

    username: str
    token: str


def examples_from_env(default: int = DEFAULT_EXAMPLES) -> int:
    """FUZZ_EXAMPLES, or the default: how many examples Schemathesis draws per operation."""
    raw = os.environ.get("FUZZ_EXAMPLES", "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"FUZZ_EXAMPLES={raw!r}: give a whole number of examples, 1 or more")
    return int(raw)


def seed_club() -> Cast:
    """The demo club and a transcript to argue about, built through the services; idempotent."""
    # The demo plays its competitions in this process; the transcript is verified by a task, run inline here.
    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    try:
        build_demo()
        _transcript_competition()
        _personal_invitation()
    finally:
        current_app.conf.task_always_eager = eager
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    token, _ = Token.objects.get_or_create(user=user)
    return Cast(username=DEMO_USERNAME, token=token.key)


def _transcript_competition() -> None:
    """A game played with real cards by the demo login and a member: a submitted transcript, then disputed."""
    club = Club.objects.get(slug=CLUB_SLUG)
    organiser = Player.objects.get(user__username=DEMO_USERNAME)
    member = Player.objects.get(user__username=MEMBERS[0])
    competition = Competition.objects.filter(club=club, name=TRANSCRIPT_COMPETITION).first()
    if competition is None:
        competition = competition_create(
            club=club,
            created_by=organiser,
            name=TRANSCRIPT_COMPETITION,
            game=TRANSCRIPT_GAME,
            settings={"people_play": Competition.PeoplePlay.TRANSCRIPT.value},
        )
        for person in (organiser, member):
            entrant_join(competition=competition, player=person)
        competition = competition_start(competition=competition)
    match = competition.matches.get()
    if match.status != Match.Status.LIVE or Transcript.objects.filter(match=match).exists():
        return
    options = dict(competition.options)
    agents = seat_agents(TRANSCRIPT_GAME, ["random", "random"], options, 5)
    record = play_game(TRANSCRIPT_GAME, agents=agents, seed=5, options=options, deal=transcript_deal(5))
    transcript = transcript_submit(match=match, player=organiser, game_number=0, record=record.to_dict())
    transcript.refresh_from_db()
    if transcript.status == Transcript.Status.VERIFIED:
        transcript_dispute(transcript=transcript, player=member, note="the third trick went the other way")


def _personal_invitation() -> None:
    """A pending invitation for the demo login, from a second club run by one of the demo members."""
    organiser = Player.objects.get(user__username=MEMBERS[1])
    club = Club.objects.filter(slug=INVITING_CLUB_SLUG).first()
    if club is None:
        club = club_create(name="Fuzz inviting club", slug=INVITING_CLUB_SLUG, organiser=organiser)
    demo = Player.objects.get(user__username=DEMO_USERNAME)
    if not Membership.objects.filter(club=club, player=demo).exists():
        club_invite(club=club, player=demo, role=Membership.Role.MEMBER, invited_by=organiser)


def known_ids() -> dict[str, list[int]]:
    """Ids of the rows the seeded database holds, by kind, for the fuzzer to draw path and body ids from.

    Drawn ids hardly ever name a row, and every detail route would then only ever answer 404; so about
    half the time (``ID_PROBABILITY``) an id is one of these, and the views' real work is fuzzed too.
    """

    def ids(rows: QuerySet[Any], field: str = "pk") -> list[int]:
        return sorted({int(value) for value in rows.values_list(field, flat=True)[:MAX_KNOWN]})

    matches = Match.objects.all()
    return {
        "players": ids(Player.objects.all()),
        "bots": ids(Bot.objects.all()),
        "bot_versions": ids(BotVersion.objects.all()),
        "version_numbers": ids(BotVersion.objects.all(), "number"),
        "clubs": ids(Club.objects.all()),
        "competitions": ids(Competition.objects.all()),
        "entrants": ids(Entrant.objects.all()),
        "matches": ids(matches),
        "live_matches": ids(matches.filter(status=Match.Status.LIVE)),
        "race_matches": ids(matches.filter(competition__game__in=games_broken_down(Race))),
        "set_matches": ids(matches.filter(competition__game__in=games_broken_down(SetTable))),
        "transcript_matches": ids(matches.filter(competition__people_play=Competition.PeoplePlay.TRANSCRIPT)),
        "transcript_numbers": ids(Transcript.objects.all(), "number"),
        "games": ids(Game.objects.all()),
        "challenge_ladders": ids(challenge_ladders()),
        "challenge_numbers": ids(Challenge.objects.all(), "number"),
        "personal_invitations": ids(PersonalInvitation.objects.all()),
    }


#: Where each kind of known id goes: (method, path pattern, {parameter: kind}) for Schemathesis's
#: dictionaries; a parameter is ``path.name``, ``query.name`` or ``body.name`` (``[*]``: each item).
ID_BINDINGS: list[tuple[str, str, dict[str, str]]] = [
    ("", r"^/api/players/\{id\}/$", {"path.id": "players"}),
    ("GET", r"^/api/players/$", {"query.club": "clubs"}),
    ("", r"^/api/bots/\{id\}/", {"path.id": "bots"}),
    ("GET", r"^/api/bots/$", {"query.owner": "players"}),
    ("", r"^/api/bots/\{bot_pk\}/", {"path.bot_pk": "bots", "path.number": "version_numbers"}),
    ("", r"^/api/clubs/\{id\}/", {"path.id": "clubs"}),
    ("GET", r"^/api/clubs/$", {"query.member": "players"}),
    ("", r"^/api/clubs/\{club_pk\}/", {"path.club_pk": "clubs", "body.player": "players"}),
    ("", r"^/api/players/me/invitations/\{id\}/", {"path.id": "personal_invitations"}),
    ("", r"^/api/tournaments/\{id\}/", {"path.id": "competitions", "body.referees[*]": "players"}),
    # The challenge routes want a challenge ladder and a challenge number, not any competition and entrant.
    (
        "",
        r"^/api/tournaments/\{competition_pk\}/challenges/",
        {
            "path.competition_pk": "challenge_ladders",
            "path.number": "challenge_numbers",
            "body.challenger": "entrants",
            "body.defender": "entrants",
        },
    ),
    ("", r"^/api/tournaments/\{competition_pk\}/", {"path.competition_pk": "competitions", "path.id": "entrants"}),
    (
        "POST",
        r"^/api/tournaments/\{competition_pk\}/entrants/$",
        {"body.player": "players", "body.bot_version": "bot_versions"},
    ),
    ("POST", r"^/api/tournaments/$", {"body.club": "clubs"}),
    ("POST", r"^/api/tournaments/import/$", {"body.club": "clubs"}),
    ("GET", r"^/api/tournaments/$", {"query.club": "clubs", "query.player": "players"}),
    ("", r"^/api/matches/\{id\}/(table|moves)/$", {"path.id": "live_matches"}),
    ("", r"^/api/matches/\{id\}/(|retry/|logs/)$", {"path.id": "matches"}),
    ("", r"^/api/matches/\{match_pk\}/race/$", {"path.match_pk": "race_matches"}),
    ("", r"^/api/matches/\{match_pk\}/sets/$", {"path.match_pk": "set_matches"}),
    (
        "",
        r"^/api/matches/\{match_pk\}/transcripts/",
        {"path.match_pk": "transcript_matches", "path.number": "transcript_numbers"},
    ),
    (
        "GET",
        r"^/api/matches/$",
        {"query.competition": "competitions", "query.player": "players", "query.entrant": "entrants"},
    ),
    ("", r"^/api/games/\{id\}/", {"path.id": "games"}),
    (
        "GET",
        r"^/api/games/$",
        {"query.match": "matches", "query.competition": "competitions", "query.winner": "entrants"},
    ),
]
ID_PROBABILITY = 0.5
MAX_KNOWN = 200


def schemathesis_config(ids: dict[str, list[int]]) -> str:
    """SCHEMATHESIS_CONFIG, with the known ids as dictionaries and where they go."""
    lines = [SCHEMATHESIS_CONFIG.format(hooks=Path(__file__).with_name("fuzz_checks.py"))]
    for kind, values in sorted(ids.items()):
        if values:
            lines += [f"[dictionaries.{kind}]", f"values = {values}", ""]
    for method, path, parameters in ID_BINDINGS:
        bound = {name: kind for name, kind in parameters.items() if ids.get(kind)}
        if not bound:
            continue
        lines += ["[[operations]]", f"include-path-regex = {json.dumps(path)}"]
        if method:
            lines.append(f"include-method = {json.dumps(method)}")
        for name, kind in bound.items():
            lines.append(f'parameters."{name}" = {{ dictionary = "{kind}", probability = {ID_PROBABILITY} }}')
        lines.append("")
    return "\n".join(lines)


def database_url() -> str:
    """The URL of the database this process uses, for the server to use the same one."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    if connection.vendor != "postgresql":
        raise ValueError(f"the fuzz server runs on PostgreSQL or SQLite, not {connection.vendor}")
    password = f":{quote(str(db['PASSWORD']))}" if db.get("PASSWORD") else ""
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    return f"postgres://{quote(str(db['USER']))}{password}@{host}/{db['NAME']}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ApiServer:
    """gunicorn serving config.wsgi on ``database_url``, with a broker folder of its own under ``work_dir``."""

    def __init__(self, *, database_url: str, work_dir: Path, processes: int = 2) -> None:
        self.database_url = database_url
        self.work_dir = work_dir
        self.processes = processes
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = work_dir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        rates = ",".join(f"{scope}=off" for scope in settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}))
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DJANGO_DEBUG": "false",
            "DATABASE_URL": self.database_url,
            # Tasks are sent, never run: no worker reads this folder (see the module's docstring).
            "CARDCLUB_VAR_DIR": str(self.work_dir / "var"),
            "CELERY_BROKER_URL": "filesystem://",
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "LIVE_EVENTS_URL": "",
            "THROTTLE_RATES": rates,
            # A cache of each server process's own: a shared one may hold standings pages of an earlier
            # database whose competitions had the same ids.
            "CACHE_URL": "locmem://",
        }
        return env

    def start(self, *, timeout: float = 60) -> None:
        config = self.work_dir / "gunicorn.conf.py"
        config.write_text(GUNICORN_CONFIG)
        command = [
            sys.executable, "-m", "gunicorn", "config.wsgi",
            "--config", str(config),
            "--workers", str(self.processes),
            "--bind", f"127.0.0.1:{self.port}",
            "--timeout", "120",
            # No limit on the request line: a URL longer than gunicorn's 4 KB gets gunicorn's own HTML 414
            # (as nginx's would in front of it), before the API is reached; the gate is about the API.
            "--limit-request-line", "0",
            "--log-level", "warning",
        ]  # fmt: skip
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not self._answers():
            if self.process.poll() is not None:
                raise RuntimeError(f"the API server exited with {self.process.returncode}:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the API server did not answer within {timeout} s:\n{self.log_tail()}")
            time.sleep(0.2)

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/schema/?format=json", timeout=5) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def log_tail(self, lines: int = 80) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


@dataclass(frozen=True)
class RunResult:
    """One ``schemathesis run``: what it tested and what it found."""

    mode: str
    operations: int
    test_cases: int
    failures: int
    errors: int
    seconds: float
    exit_code: int
    output: str

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and self.failures == 0 and self.errors == 0 and self.operations > 0


def schemathesis_command(
    *,
    base_url: str,
    token: str | None,
    examples: int,
    workers: int,
    seed: int,
    report: Path,
    config: Path,
    only: str | None = None,
) -> list[str]:
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color",
        "run", f"{base_url}/api/schema/?format=json",
        "--checks", "all",
        "--max-examples", str(examples),
        "--workers", str(workers),
        "--seed", str(seed),
        "--request-timeout", "60",
        "--generation-database", "none",
        "--report", "json", "--report-json-path", str(report),
    ]  # fmt: skip
    if token is not None:
        command += ["--header", f"Authorization: Token {token}"]
    if only:
        command += ["--include-path-regex", only]
    return command


def run_schemathesis(
    *,
    mode: str,
    base_url: str,
    token: str | None,
    examples: int,
    workers: int,
    seed: int,
    work_dir: Path,
    ids: dict[str, list[int]] | None = None,
    only: str | None = None,
    echo: Callable[[str], None] | None = None,
) -> RunResult:
    """One ``schemathesis run``; ``echo`` hears its output as it comes (else it is only kept)."""
    report = work_dir / f"report-{mode}.json"
    config = work_dir / "schemathesis.toml"
    config.write_text(schemathesis_config(ids or {}))
    command = schemathesis_command(
        base_url=base_url,
        token=token,
        examples=examples,
        workers=workers,
        seed=seed,
        report=report,
        config=config,
        only=only,
    )
    started = time.monotonic()
    lines: list[str] = []
    # Its own folder as the working directory: Schemathesis keeps state there, none of it in the checkout.
    with subprocess.Popen(
        command, cwd=work_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if echo is not None:
                echo(line.rstrip("\n"))
    returncode = process.wait()
    seconds = time.monotonic() - started
    output = "".join(lines)
    if not report.exists():
        return RunResult(mode, 0, 0, 0, 1, seconds, returncode, output)
    data = json.loads(report.read_text())
    return RunResult(
        mode=mode,
        operations=int(data["operations"]["tested"]),
        test_cases=int(data["test_cases"]["generated"]),
        failures=int(data["test_cases"]["unique_failures"]),
        errors=len(data["errors"]) + int(data["operations"]["errored"]),
        seconds=seconds,
        exit_code=returncode,
        output=output,
    )


#: Schemathesis's settings for every run (the command line adds checks, examples, workers and the seed).
SCHEMATHESIS_CONFIG = """\
# Written by tournaments/fuzz.py for each run.
hooks = "{hooks}"

# Schemathesis finds POST /api/auth/register/ and, left to itself, signs up and signs in before a run
# without credentials: the anonymous run would then be a member's.
[auth]
auto-signup = false

# A write may answer a schema-valid request with 400 when the services refuse it for what no schema
# can state: a name or slug already taken, an id that names no row, a competition or match in the
# wrong state for it, an upload or record that does not verify, wrong credentials at /api/auth/token/.
# The check refused_for_a_stated_reason (tournaments/fuzz_checks.py) still fails every such 400 whose
# reason the schema does state. Reads get no such allowance.
[[operations]]
include-method = ["POST", "PUT", "PATCH", "DELETE"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
"""


def fuzz(
    *,
    database_url: str,
    cast: Cast,
    examples: int,
    workers: int = 2,
    server_processes: int = 2,
    seed: int | None = None,
    say: Callable[[str], None] = print,
    echo: Callable[[str], None] | None = None,
    modes: Sequence[str] = ("anonymous", "member"),
    only: str | None = None,
) -> list[RunResult]:
    """Serve the API on ``database_url`` (already seeded) and fuzz it in each mode; the runs' results.

    ``say`` hears the summary, and each failed run's output unless ``echo`` heard it as it ran.
    """
    seed = seed if seed is not None else int(os.environ.get("FUZZ_SEED") or random.randrange(2**32))
    work_dir = Path(tempfile.mkdtemp(prefix="cardclub-fuzz-"))
    server = ApiServer(database_url=database_url, work_dir=work_dir, processes=server_processes)
    results: list[RunResult] = []
    ids = known_ids()
    say(f"API fuzz: every operation, every check, {examples} examples per operation, seed {seed} (FUZZ_SEED)")
    try:
        server.start()
        for mode in modes:
            token = cast.token if mode == "member" else None
            result = run_schemathesis(
                mode=mode, base_url=server.url, token=token, examples=examples, workers=workers, seed=seed,
                work_dir=work_dir, ids=ids, only=only, echo=echo,
            )  # fmt: skip
            results.append(result)
            who = f"as {cast.username} (Authorization: Token)" if token else "without credentials"
            say(
                f"  {mode} ({who}): {result.operations} operations, {result.test_cases:,} test cases, "
                f"{result.failures} failures, {result.errors} errors, {result.seconds:.0f} s"
            )
            if not result.passed:
                if echo is None:
                    say(result.output)
                say(f"--- the server's log (last lines) ---\n{server.log_tail()}")
    finally:
        server.stop()
        shutil.rmtree(work_dir, ignore_errors=True)
    total = sum(r.test_cases for r in results)
    failures = sum(r.failures + r.errors for r in results)
    seconds = sum(r.seconds for r in results)
    operations = max((r.operations for r in results), default=0)
    say(
        f"API fuzz summary: {operations} operations x {len(results)} modes, {examples} examples per operation, "
        f"{total:,} test cases, {failures} failures, {seconds:.0f} s"
    )
    return results
