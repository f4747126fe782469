"""Hidden information, proved (issue 10, section 5): no viewer of a live game reads a card it may not see.

Each live game (tests/tournaments/live_support.py LIVE_GAMES) is played to its end
by its people, each choosing random legal moves. At sampled points of
play every viewer (each seated person, an anonymous spectator, a logged-in
stranger and an unseated organiser of the club, who is staff; a superuser reads
the admin site only) reads every route
of the URL conf with this match's, competition's, club's, players' and games' ids
filled in (the live table, its event stream, the web table, lists and details,
records, bot logs, the schema, 404s), the admin site, and the errors a client can
provoke (an illegal move, a stale version, a stranger's move). Nothing it reads
may show a card the engine's state says it cannot see (tests/tournaments/
hidden_support.py), nor the match's seeds or salt; nor may any log record. Once
the match is done the seed and salt appear in its games' records only, and the
public record checks against the commitment published at the start.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db.models import Model
from rest_framework.test import APIClient

from engine.fairness import commitment_holds
from engine.match import game_seed
from engine.record import Record
from engine.referee import LiveGame
from engine.verify import verify
from league.models import Membership, Player
from league.notifications.mail import EVERY_KIND, unsubscribe_token
from league.notifications.models import Notification
from league.webhooks.models import ClubWebhook, WebhookDelivery
from tests.factories import MembershipFactory, PlayerFactory, UserFactory
from tests.tournaments.hidden_support import (
    Secrets,
    cards_shown,
    fill_route,
    leaks,
    secret_numbers_shown,
    secrets_for,
    url_routes,
)
from tests.tournaments.live_support import LIVE_GAMES, live_match
from tournaments import club_events
from tournaments.models import Competition, Game, LiveTable, Match, MatchParticipant
from tournaments.services.live import live_match_record_if_over, live_move

pytestmark = pytest.mark.django_db

#: Games per match: two, so that a finished game's deal sits beside the one being played; Banter's games are long.
GAMES_PER_MATCH = {"banter": 1}
#: An id no row has: its routes answer 404.
MISSING = 987_654_321
#: Numbers this small are found by chance (a page's limits, ids): no secret seed is one.
SMALL = 10**6
#: API routes that only take a POST are posted to by ``provoke_errors`` instead.
POST_ONLY = re.compile(
    r"^/api/.*/(moves|retry|start|play|cancel|retire|accept|confirm|dispute|void)/$|^/api/auth/(logout|token)/$"
)
#: Pages that are the same for every match and viewer (the schema alone takes half a second): read by one.
STATIC = re.compile(r"^/api/(schema|docs)/|^/(api/auth|accounts)/(login|logout)/")


@dataclass(frozen=True)
class Plan:
    """What is read at one point of play. Reading everything everywhere would take minutes: points are sampled."""

    #: Every route of the URL conf, for every viewer.
    everything: bool = False
    #: The live table, its stream and the match, for the seated and one spectator in turn.
    table: bool = False
    #: The refusals a client can provoke.
    errors: bool = False
    #: The admin site: redirects for the non-staff, every page for the organiser.
    admin: bool = False


def plan_for(moves: int, decided: bool) -> Plan:
    """After the first move (1923 and Punk: one seat has chosen, the others not yet) everything is read;
    the table after each of the first moves and every 25th; a game nobody decides (War) once, when dealt."""
    if moves == 1 or not decided:
        return Plan(everything=True, table=True, errors=True, admin=True)
    return Plan(table=moves < 5 or moves % 25 == 0, errors=moves in (0, 3))


@dataclass
class Viewer:
    name: str
    client: APIClient
    player: Player | None
    #: The participant index at this match (a person seated at it), or None for a spectator.
    participant: int | None = None
    staff: bool = False
    #: Reads the admin site only (the API treats a superuser as any stranger).
    admin_only: bool = False


@dataclass
class Walk:
    """One live match, its viewers, and what each has read; every leak found is kept to be reported at the end."""

    match: Match
    viewers: list[Viewer]
    caplog: pytest.LogCaptureFixture
    found: list[str] = field(default_factory=list)
    reads: int = 0
    logs_seen: int = 0
    tables: list[tuple[list[int | None], LiveGame]] = field(default_factory=list)
    secrets: dict[str, Secrets] = field(default_factory=dict)
    numbers: list[int] = field(default_factory=list)

    @property
    def competition(self) -> Competition:
        return self.match.competition

    # What is secret now

    def refresh(self) -> None:
        """Read the engine's state of every game of the match so far; each viewer's secrets follow from it."""
        self.match.refresh_from_db()
        self.tables = [
            (table.seating, LiveGame.loads(table.game))
            for table in LiveTable.objects.filter(match=self.match).order_by("number")
        ]
        assert self.tables, "a live match is dealt when it starts"
        self.secrets.clear()
        match = self.match
        games = self.competition.games_per_match
        seeds = [match.seed, *(game_seed(match.seed, n) for n in range(games))]
        # People's matches draw 63-bit seeds: found by chance nowhere. A factory's small competition seed
        # (it derives only bot matches' seeds) would be found in every "maximum: 1000".
        assert min(seeds) > SMALL, seeds
        self.numbers = seeds + ([self.competition.seed] if self.competition.seed > SMALL else [])

    def secrets_of(self, viewer: Viewer) -> Secrets:
        if viewer.name not in self.secrets:
            total = Secrets(frozenset())
            for seating, live in self.tables:
                seat = None if viewer.participant is None else seating.index(viewer.participant)
                total |= secrets_for(live, seat)
            self.secrets[viewer.name] = total
        return self.secrets[viewer.name]

    @property
    def unfinished(self) -> bool:
        return self.match.status != Match.Status.DONE

    # Reading

    def read(self, viewer: Viewer, method: str, path: str, body: dict[str, Any] | None = None, **extra: Any) -> Any:
        if method == "GET":
            response = viewer.client.get(path, **extra)
        else:
            response = viewer.client.post(path, body or {}, format="json", **extra)
        self.reads += 1
        assert response.status_code < 500, f"{viewer.name} {method} {path}: {response.status_code}"
        self.check(f"{viewer.name} {method} {path} ({response.status_code})", viewer, text_of(response))
        self.check_logs(f"during {viewer.name} {method} {path}")
        return response

    def check(self, where: str, viewer: Viewer, text: str) -> None:
        shown = leaks(text, self.secrets_of(viewer))
        if self.unfinished:
            shown += secret_numbers_shown(text, self.numbers, self.match.salt)
        if shown:
            self.found.append(f"{where}: shows {shown}: {excerpt(text, shown)}")

    def check_logs(self, where: str) -> None:
        """Log records are nobody's view: they may show nothing a spectator could not see."""
        records = self.caplog.records[self.logs_seen :]
        self.logs_seen = len(self.caplog.records)
        spectator = self.secrets_of(next(v for v in self.viewers if v.name == "anonymous"))
        for record in records:
            text = f"{record.name} {record.getMessage()} {record.exc_text or ''}"
            shown = leaks(text, spectator)
            if self.unfinished:
                shown += secret_numbers_shown(text, self.numbers, self.match.salt)
            if shown:
                self.found.append(f"log record {where}: shows {shown}: {text[:300]}")

    # What a viewer can read

    def ids(self, viewer: Viewer) -> dict[str, list[int]]:
        competition, match = self.competition, self.match
        players = [v.player.pk for v in self.viewers if v.player is not None]
        return {
            "players": players,
            "bots": [MISSING],
            "versions": [1],
            "clubs": [competition.club_id],
            # Club rolls, invitations and join requests hold no cards: one id each is enough to walk them.
            "members": [MISSING],
            "invitations": [MISSING],
            "join-requests": [MISSING],
            "personal-invitations": [MISSING],
            "tournaments": [competition.pk, MISSING],
            # The public competition page (/competitions/{id}/).
            "competitions": [competition.pk, MISSING],
            "entrants": list(competition.entrants.values_list("pk", flat=True)),
            # A round robin's live match: there are no challenges to read, and their numbers hold no cards.
            "challenges": [1],
            "matches": [match.pk, MISSING],
            "games": [*Game.objects.filter(match__competition=competition).values_list("pk", flat=True), MISSING],
            "transcripts": [0, 1],
            # The site's buttons for people (tournaments/web/): an id, then what is decided. They take POSTs only,
            # and a GET of each is walked all the same.
            "offers": [MISSING],
            "requests": [MISSING],
            "answer": [1],
            "decision": [1],
            # What the people were told (issue 24): each viewer walks everyone's, and the links that stop mail.
            "notifications": [
                *Notification.objects.filter(player_id__in=players).values_list("pk", flat=True),
                MISSING,
            ],
            "unsubscribe": [unsubscribe_token(player, EVERY_KIND) for player in players],
            # What the club's webhooks were sent, in their delivery logs (organisers only).
            "webhooks": [
                *ClubWebhook.objects.filter(club_id=competition.club_id).values_list("pk", flat=True),
                MISSING,
            ],
        }

    def every_path(self, viewer: Viewer) -> list[str]:
        ids = self.ids(viewer)
        paths: list[str] = []
        for route, _ in url_routes():
            if route.startswith("admin/"):
                continue
            paths += [path for path in fill_route(route, ids) if not POST_ONLY.search(path)]
        competition, match = self.competition.pk, self.match.pk
        paths += [
            f"/api/games/?competition={competition}",
            f"/api/games/?match={match}",
            f"/api/matches/?competition={competition}",
            "/api/matches/?status=live",
            f"/api/tournaments/?status={self.competition.status}",
            f"/api/tournaments/{competition}/standings/?format=json",
            "/api/schema/?format=json",
        ]
        return paths

    def the_table(self, viewer: Viewer) -> list[str]:
        match = self.match.pk
        paths = [f"/api/matches/{match}/table/", f"/api/matches/{match}/events/", f"/api/matches/{match}/"]
        return paths + (["/api/players/me/matches/"] if viewer.participant is not None else [])

    def walk(self, moves: int, plan: Plan) -> None:
        """Every viewer reads what the plan says, as the table stands after ``moves`` moves."""
        spectators = [v for v in self.viewers if v.participant is None and not v.admin_only]
        for number, viewer in enumerate(self.viewers):
            if viewer.admin_only:
                if plan.admin:
                    self.walk_the_admin(viewer)
                continue
            if plan.everything and self.unfinished:
                # Not vacuous: every viewer, seated or not, has something it must not learn.
                secrets = self.secrets_of(viewer)
                assert secrets.cards or secrets.runs, f"{viewer.name} may see everything?"
            if plan.everything:
                for path in self.every_path(viewer):
                    if viewer.name == "anonymous" or not STATIC.match(path):
                        self.read(viewer, "GET", path)
                # The browsable API renders the same table as a page.
                self.read(viewer, "GET", f"/api/matches/{self.match.pk}/table/", HTTP_ACCEPT="text/html")
            elif plan.table and (viewer.participant is not None or viewer is spectators[moves % len(spectators)]):
                for path in self.the_table(viewer):
                    self.read(viewer, "GET", path)
            if plan.errors:
                self.provoke_errors(viewer)
            if plan.admin and (viewer.staff or number == 0 or viewer.player is None):
                self.walk_the_admin(viewer)

    def provoke_errors(self, viewer: Viewer) -> None:
        match = self.match
        moves = f"/api/matches/{match.pk}/moves/"
        probe = f"probe-{self.reads}"
        illegal = self.read(
            viewer, "POST", moves, {"action": "NOT-A-MOVE", "version": match.version, "client_move_id": probe}
        )
        stale = self.read(viewer, "POST", moves, {"action": "LOCK", "version": 0, "client_move_id": probe + "s"})
        if viewer.participant is None:
            assert illegal.status_code in (401, 403) and stale.status_code in (401, 403)
        elif match.status == Match.Status.LIVE:
            # 400 with the engine's reason for a seat that must act, 409 for one that need not.
            assert illegal.status_code in (400, 409) and stale.status_code == 409, (illegal.content, stale.content)
        self.read(viewer, "POST", f"/api/matches/{match.pk}/transcripts/", {"game_number": 0})
        self.read(viewer, "POST", f"/api/matches/{match.pk}/retry/")
        self.read(viewer, "POST", f"/api/tournaments/{match.competition_id}/start/")
        self.read(
            viewer, "POST", f"/api/matches/{MISSING}/moves/", {"action": "X", "version": 1, "client_move_id": probe}
        )
        self.read(viewer, "GET", f"/api/games/{MISSING}/record/")

    def walk_the_admin(self, viewer: Viewer) -> None:
        # The non-staff are sent to the login page before any row is looked up: one row of each model will do.
        for path in admin_paths(rows=2 if viewer.staff else 1):
            response = self.read(viewer, "GET", path)
            if viewer.staff or path.startswith(("/admin/login/", "/admin/logout/")):
                continue
            assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), (
                f"{viewer.name} reads {path}: {response.status_code}"
            )

    # Playing

    def play(self, seed: int) -> int:
        """Each person makes a random legal move in turn until the match ends; the moves made.

        The moves go through the service (tournaments/services/live.py), as the API's would: reading
        is what this test is about, and ``provoke_errors`` posts to the API at every walk.
        """
        rng = random.Random(seed)
        moves = 0
        people = {v.participant: v for v in self.viewers if v.participant is not None}
        while True:
            self.refresh()
            # What the last move logged, against the state it left.
            self.check_logs(f"move {moves}")
            if self.match.status != Match.Status.LIVE:
                return moves
            table = LiveTable.objects.filter(match=self.match).order_by("-number").first()
            assert table is not None
            if table.finished_at is not None:
                # Every game is over (a War match is over when dealt): read it all, then the workers record it.
                self.walk(moves, plan_for(moves, decided=False))
                assert live_match_record_if_over(match_id=self.match.pk)
                continue
            self.walk(moves, plan_for(moves, decided=True))
            live = LiveGame.loads(table.game)
            seat = live.awaiting()[0]
            mover = people[table.seating[seat]]
            assert mover.player is not None
            version = self.match.version
            action = rng.choice(live.legal_actions(seat))
            live_move(
                match_id=self.match.pk, player=mover.player, action=action, version=version, client_move_id=f"m{moves}"
            )
            moves += 1


def text_of(response: Any) -> str:
    """The body a client reads (a stream ends after its first event: LIVE_STREAM_SECONDS is 0) and the headers."""
    if getattr(response, "streaming", False):
        body = b"".join(response.streaming_content).decode()
    else:
        body = response.content.decode()
    headers = "\n".join(f"{key}: {value}" for key, value in response.headers.items())
    return f"{headers}\n\n{body}"


def excerpt(text: str, shown: list[str]) -> str:
    """Where the first thing shown is, for the failure message."""
    first = shown[0].split()[0]
    at = text.find(first)
    return text[max(0, at - 150) : at + 150] if at >= 0 else text[-300:]


def admin_paths(rows: int) -> list[str]:
    """Every admin page of every model with its first ``rows`` rows (the test's own), and the site's own pages."""
    paths = []
    for route, pattern in url_routes():
        if not route.startswith("admin/") or "(?P<url>" in route:
            continue
        if route.startswith("admin/^"):
            paths += [f"/admin/{label}/" for label in ("auth", "authtoken", "league", "tournaments")]
            continue
        if "<" not in route:
            paths.append(f"/{route}")
            continue
        model = getattr(getattr(pattern.callback, "model_admin", None), "model", None)
        if model is None:
            model = model_of(route)
        for pk in rows_of(model, rows):
            paths.append("/" + re.sub(r"<(?:\w+:)?(?:object_id|id)>", str(pk), route))
    return [path for path in paths if "<" not in path]


def model_of(route: str) -> type[Model] | None:
    """The model of an admin view named by its own route (a custom page of a model admin)."""
    from django.apps import apps

    parts = route.split("/")
    try:
        return apps.get_model(parts[1], parts[2])
    except (LookupError, IndexError):
        return None


def rows_of(model: type[Model] | None, rows: int) -> Iterator[int]:
    if model is None:
        return iter(())
    return iter(model._default_manager.order_by("pk").values_list("pk", flat=True)[:rows])


def viewers_of(match: Match, players: list[Player]) -> list[Viewer]:
    viewers = []
    for index, player in enumerate(players):
        viewers.append(Viewer(f"seated{index}", logged_in(player), player, participant=index))
    viewers.append(Viewer("anonymous", APIClient(), None))
    stranger = PlayerFactory()
    viewers.append(Viewer("stranger", logged_in(stranger), stranger))
    organiser = PlayerFactory(user=UserFactory(is_staff=True))
    MembershipFactory(club=match.competition.club, player=organiser, role=Membership.Role.ORGANISER)
    viewers.append(Viewer("organiser", logged_in(organiser), organiser, staff=True))
    # The site's superuser, who may open every admin page (a delete page lists every row it would take along).
    superuser = PlayerFactory(user=UserFactory(is_staff=True, is_superuser=True))
    viewers.append(Viewer("superuser", logged_in(superuser), superuser, staff=True, admin_only=True))
    return viewers


def logged_in(player: Player) -> APIClient:
    client = APIClient()
    client.force_login(player.user)
    return client


@pytest.mark.parametrize(("game", "people", "options"), LIVE_GAMES)
def test_no_viewer_reads_a_card_it_may_not_see_nor_a_seed_anywhere_while_a_live_match_is_played(
    game: str, people: int, options: dict[str, Any], caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    # The event stream sends the viewer's table, then ends instead of waiting for the next change.
    settings.LIVE_STREAM_SECONDS = 0
    caplog.set_level(logging.DEBUG)
    match, players = live_match(game, people=people, options=options, games=GAMES_PER_MATCH.get(game, 2))
    hear_the_club(match)
    walk = Walk(match, viewers_of(match, players), caplog)
    commitments = list(match.commitments)

    moves = walk.play(seed=len(walk.viewers))

    assert walk.found == [], "\n".join(walk.found[:20])
    assert walk.match.status == Match.Status.DONE
    assert (moves > 0) is (game != "war")
    assert_only_the_records_reveal_the_seed(walk, commitments)


def hear_the_club(match: Match) -> None:
    """A webhook for the match's club, told of its round as the start tells it: its delivery log is walked too."""
    ClubWebhook.objects.create(club_id=match.competition.club_id, url="http://127.0.0.1:9/", secret="s" * 16)
    seats = MatchParticipant.objects.filter(match=match).select_related("entrant", "match__competition", "match__round")
    club_events.matches_paired([list(seats.order_by("seat"))])
    assert WebhookDelivery.objects.filter(webhook__club_id=match.competition.club_id).count() == 1


def assert_only_the_records_reveal_the_seed(walk: Walk, commitments: list[str]) -> None:
    """Done: each game's public record is served with its seed and salt, checks out, and nothing else shows them."""
    match = walk.match
    games = list(Game.objects.filter(match=match).order_by("number"))
    assert len(games) == walk.competition.games_per_match
    anonymous = next(v for v in walk.viewers if v.name == "anonymous")
    for game in games:
        response = anonymous.client.get(f"/api/games/{game.pk}/record/")
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["visibility"] == "public" and "seed" not in body["record"]
        assert commitment_holds(body["seed"], body["salt"], commitments[game.number])
        assert body["seed"] == game_seed(match.seed, game.number) and body["salt"] == match.salt
        # docs/fair-play.md: the seed and salt back in, the spectator's views out, and the engine replays it.
        replayed = {key: value for key, value in body["record"].items() if key != "views"}
        replayed.update(seed=body["seed"], salt=body["salt"], deal=replayed.get("deal"))
        assert verify(Record.from_dict(replayed)).ok
        # What finds a seed elsewhere finds it here.
        assert secret_numbers_shown(response.content.decode(), [game.seed], match.salt) == [
            str(game.seed),
            f"salt {match.salt}",
        ]
    records = re.compile(r"^/api/games/\d+/record/$")
    for viewer in walk.viewers[:1] + [v for v in walk.viewers if v.name == "anonymous"]:
        for path in walk.every_path(viewer):
            if STATIC.match(path):
                continue
            text = text_of(viewer.client.get(path))
            shown = secret_numbers_shown(text, [match.seed, *(g.seed for g in games)], match.salt)
            assert records.match(path.split("?")[0]) or not shown, f"{viewer.name} GET {path} shows {shown}"


def test_a_signed_token_in_a_link_shows_no_card_and_cards_beside_one_still_show() -> None:
    # An unsubscribe link's signature once held "-KC_": base64, not the king of clubs.
    link = "/notifications/unsubscribe/eyJwIjozMDgwLCJrIjoiKiJ9:1xXH8J:P0rsAtPHlzBZqSG-KC_gz5oOLvoLGxwOeJnoU4WOhgE/"
    assert cards_shown(link) == set()
    assert cards_shown(f'<a href="{link}">["KC", "AS"]</a> AS-QH-JD-TC-9S-8H-7D-6C') == {
        "KC",
        "AS",
        "QH",
        "JD",
        "TC",
        "9S",
        "8H",
        "7D",
        "6C",
    }
