"""Issue 12's acceptance test: a fifth game added on the engine side only plays a competition end to end.

The game is tests/engine/high_card.py, which neither the engine nor the service ships. The worker
process learns it from ``ENGINE_GAMES``, this process from ``register_game``; everything else goes
through the REST API and the admin site as a club would use them, on a real Celery worker. Nothing
in league/, tournaments/ or config/ knows the game: the standings order, the set table and the
labels all come from its league profile.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import pytest
from django.test import Client

from engine.games import game_names, register_game, unregister_game
from engine.record import Record
from engine.result import ranks_from_keys, score_rates
from engine.verify import verify
from league.ratings import DEFAULT_MU, DEFAULT_SIGMA
from tests.e2e.conftest import settled, wait_for
from tests.factories import PlayerFactory, UserFactory
from tests.league.test_api_support import client_for, results
from tests.tournaments.test_admin import table_rows
from tournaments.models import Competition, Game, Match
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]

GAME = "highcard"
MODULE = "tests.engine.high_card"
ENTRANTS = 4
PLAYERS_PER_MATCH = 3
GAMES_PER_MATCH = 3
HAND_SIZE = 5
COLUMNS = [{"key": "rank", "label": "Rank played"}, {"key": "took", "label": "Took it"}]


@pytest.fixture
def highcard() -> Iterator[None]:
    """The game in this process, for this test only: tests that iterate game_names() never see it."""
    register_game(GAME, MODULE)
    yield
    unregister_game(GAME)


def test_a_game_registered_only_in_the_engine_plays_a_competition_end_to_end(workers: Start, highcard: None) -> None:
    # The worker starts first: its process learns the game from the environment alone.
    workers("w1", concurrency=2, extra_env={"ENGINE_GAMES": f"{GAME}={MODULE}"})
    organiser = PlayerFactory(user=UserFactory(username="hilda"), display_name="Hilda")
    api = client_for(organiser.user)

    # --- Set up a club, four bots and a competition through the API -------------------------------
    # The choices offered include the game while it is registered: the API's schema and its forms.
    enums = _game_enums(client_for().get("/api/schema/", HTTP_ACCEPT="application/json").json())
    assert enums and all(enum[4:] == [GAME] for enum in enums), enums
    option = '<option value="highcard">High card</option>'
    assert option in api.get("/api/bots/", {"format": "api"}).content.decode()
    club = api.post("/api/clubs/", {"name": "High Card Club", "slug": "high-card"}, format="json")
    assert club.status_code == 201, club.json()
    versions = []
    for number in range(ENTRANTS):
        bot = api.post("/api/bots/", {"name": f"Highest {number}", "game": GAME}, format="json")
        assert bot.status_code == 201, bot.json()
        assert bot.json()["game"] == GAME
        version = api.post(f"/api/bots/{bot.json()['id']}/versions/", {"strategy": "random"}, format="json")
        assert version.status_code == 201, version.json()
        assert version.json()["status"] == "ready"
        versions.append(version.json()["id"])
    payload = {
        "club": club.json()["id"],
        "name": "High card league",
        "game": GAME,
        "players_per_match": PLAYERS_PER_MATCH,
        "games_per_match": GAMES_PER_MATCH,
        "options": {"hand_size": HAND_SIZE},
    }
    bad = api.post("/api/tournaments/", {**payload, "game": "chess"}, format="json")
    assert bad.status_code == 400
    assert bad.json() == {"game": ['unknown game "chess": choose one of war, 1923, banter, punk, highcard']}
    bad = api.post("/api/tournaments/", {**payload, "options": {"hand_size": 14}}, format="json")
    assert bad.status_code == 400 and "option 'hand_size'" in bad.json()["options"][0]
    created = api.post("/api/tournaments/", payload, format="json")
    assert created.status_code == 201, created.json()
    assert (created.json()["game"], created.json()["options"]) == (GAME, {"hand_size": HAND_SIZE})
    competition_id = created.json()["id"]
    base = f"/api/tournaments/{competition_id}"
    for version_id in versions:
        entered = api.post(f"{base}/entrants/", {"bot_version": version_id}, format="json")
        assert entered.status_code == 201, entered.json()
    started = api.post(f"{base}/start/")
    assert started.status_code == 200, started.json()

    # --- The real worker plays every match --------------------------------------------------------
    competition = Competition.objects.get(pk=competition_id)
    wait_for(settled(competition), timeout=120, what="the worker to play every match")
    matches = list(Match.objects.filter(competition=competition).order_by("id"))
    assert [(m.status, m.error) for m in matches] == [(Match.Status.DONE, "")] * len(matches)
    assert competition.status == Competition.Status.FINISHED
    assert len(matches) >= 2 and all(m.rated for m in matches)

    # Every game recorded once, and each record replays to its stated result.
    games = list(Game.objects.filter(match__competition=competition).order_by("match_id", "number"))
    assert len(games) == len(matches) * GAMES_PER_MATCH
    for match in matches:
        assert [g.number for g in games if g.match_id == match.pk] == list(range(GAMES_PER_MATCH))
    for game in games:
        record = Record.from_dict(game.record)
        assert (record.game, record.players, record.options) == (GAME, PLAYERS_PER_MATCH, {"hand_size": HAND_SIZE})
        assert verify(record).ok
        assert record.forfeit is None and len(game.result["tricks"]) == HAND_SIZE

    # --- Standings: the profile's order and labels, with figures summed from the stored games -----
    tricks, points = _expected_figures(games, matches)
    rows = results(client_for().get(f"{base}/standings/"))
    assert sorted(row["entrant"]["id"] for row in rows) == sorted(tricks)
    for row in rows:
        entrant = row["entrant"]["id"]
        assert [(t["field"], t["label"]) for t in row["tiebreaks"]] == [
            ("match_points", "Match points"),
            ("tricks", "Tricks taken"),
        ]
        assert [t["exact"] for t in row["tiebreaks"]] == [_exact(points[entrant]), str(tricks[entrant])]
        assert row["match_points_exact"] == _exact(points[entrant])
        assert row["played"] == sum(1 for m in matches for p in m.participants.all() if p.entrant_id == entrant)
        # Rated: every entrant's uncertainty fell, and the ratings are not all where they began.
        assert row["sigma"] < DEFAULT_SIGMA
    assert any(row["mu"] != pytest.approx(DEFAULT_MU) for row in rows)
    keys = [(points[row["entrant"]["id"]], tricks[row["entrant"]["id"]]) for row in rows]
    assert keys == sorted(keys, reverse=True)
    assert [row["rank"] for row in rows] == sorted(ranks_from_keys(keys))

    # --- Each match's set table: a row per trick, in the profile's columns -------------------------
    anonymous = client_for()
    for match in matches:
        tables = results(anonymous.get(f"/api/matches/{match.pk}/sets/"))
        assert len(tables) == GAMES_PER_MATCH
        for table in tables:
            assert table["columns"] == COLUMNS
            stored = next(g for g in games if g.pk == table["game"])
            assert _set_figures(table) == _expected_set_figures(stored)
        race = anonymous.get(f"/api/matches/{match.pk}/race/")
        assert race.status_code == 404
        assert GAME in race.json()["detail"]

    # --- The API's game filters know the game ------------------------------------------------------
    assert [c["id"] for c in results(anonymous.get("/api/tournaments/", {"game": GAME}))] == [competition_id]
    assert {m["id"] for m in results(anonymous.get("/api/matches/", {"game": GAME}))} == {m.pk for m in matches}
    assert anonymous.get("/api/games/", {"game": GAME}).json()["count"] == len(games)
    assert len(results(anonymous.get("/api/bots/", {"game": GAME}))) == ENTRANTS
    assert results(anonymous.get("/api/tournaments/", {"game": "war"})) == []

    # --- The admin competition page shows the profile's labels and the set tables -------------------
    root = PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True)).user
    browser = Client()
    browser.force_login(root)
    page = browser.get(f"/admin/tournaments/competition/{competition_id}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    for text in ("High card", "Tricks taken", "Rank played", "Took it"):
        assert text in html, text
    standings = table_rows(html, "standings")
    assert standings[0][6:8] == ["Match points", "Tricks taken"]
    by_name = {line[1]: line for line in standings[1:]}
    names = {row["entrant"]["name"]: row["entrant"]["id"] for row in rows}
    assert {name: int(line[7]) for name, line in by_name.items()} == {n: tricks[e] for n, e in names.items()}
    match_page = browser.get(f"/admin/tournaments/match/{matches[0].pk}/change/")
    assert match_page.status_code == 200 and "Rank played" in match_page.content.decode()
    for add_page in ("/admin/tournaments/competition/add/?format=round_robin", "/admin/league/bot/add/"):
        assert option in browser.get(add_page).content.decode(), add_page


def _game_enums(schema: object) -> list[list[str]]:
    """Every enum of the OpenAPI schema that lists games (the engine's four first)."""
    if isinstance(schema, dict):
        enum = schema.get("enum")
        own = [enum] if isinstance(enum, list) and enum[:4] == ["war", "1923", "banter", "punk"] else []
        return own + [found for value in schema.values() for found in _game_enums(value)]
    if isinstance(schema, list):
        return [found for value in schema for found in _game_enums(value)]
    return []


def _expected_figures(games: list[Game], matches: list[Match]) -> tuple[dict[int, int], dict[int, Fraction]]:
    """Tricks taken and match points per entrant, worked out here from the games' stored results.

    A game gives each seat its pairwise score rate; a match ranks its participants by their total
    rate and gives them match points by the same arithmetic (DESIGN.md, "Match points").
    """
    tricks: dict[int, int] = defaultdict(int)
    points: dict[int, Fraction] = defaultdict(Fraction)
    for match in matches:
        totals: dict[int, Fraction] = {p.entrant_id: Fraction(0) for p in match.participants.all()}
        for game in (g for g in games if g.match_id == match.pk):
            for seat, (entrant, rate) in enumerate(zip(game.seating, score_rates(game.result["ranks"]), strict=True)):
                tricks[entrant] += game.result["scores"][seat]
                totals[entrant] += rate
        entrants = list(totals)
        for entrant, rate in zip(entrants, score_rates(ranks_from_keys([totals[e] for e in entrants])), strict=True):
            points[entrant] += rate
    return dict(tricks), dict(points)


def _exact(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _set_figures(table: dict[str, Any]) -> list[dict[int, dict[str, int]]]:
    return [{score["entrant"]: score["figures"] for score in row["scores"]} for row in table["sets"]]


def _expected_set_figures(game: Game) -> list[dict[int, dict[str, int]]]:
    """Per trick, each entrant's rank played and whether it took the trick, from the stored result."""
    return [
        {
            entrant: {"rank": trick["ranks"][seat], "took": int(trick["taken_by"] == seat)}
            for seat, entrant in enumerate(game.seating)
        }
        for trick in game.result["tricks"]
    ]


def test_the_game_is_gone_once_unregistered() -> None:
    """The fixture above leaves no trace: other tests iterate the engine's four games only."""
    assert GAME not in game_names()
