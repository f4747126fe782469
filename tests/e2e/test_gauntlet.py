"""Issue 22's acceptance test: a sixth format, registered from the tests only, plays a competition end to end.

The format is tests/tournaments/gauntlet.py: every entrant plays one reference bot, ranked by score rate. The
worker process learns it from ``COMPETITION_FORMATS``, this process from the ``gauntlet`` fixture
(tests/conftest.py); everything else goes through the REST API, the admin site and the public page as a club
would use them, on a real Celery worker. Nothing in league/, tournaments/ or config/ knows the format: its
settings are validated from its spec, and its table and its part of the pages come from the format.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from django.test import Client
from rest_framework.test import APIClient

from tests.e2e.conftest import settled, wait_for
from tests.factories import PlayerFactory, UserFactory
from tests.league.test_api_support import client_for, results
from tests.tournaments.test_admin import table_rows
from tournaments.formats.registry import format_keys
from tournaments.models import Competition, Game, Match, MatchParticipant, units_per_point
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]

GAME = "war"
CONTENDERS = 3
ROUNDS = 3
GAMES_PER_MATCH = 2


def ok(response: Any, code: int = 200) -> Any:
    assert response.status_code == code, response.content
    return response.json()


def ready_version(api: APIClient, name: str, game: str = GAME) -> tuple[int, str]:
    """A new bot's first version, once the worker has found it ready: its id and its entrant name."""
    bot = ok(api.post("/api/bots/", {"name": name, "game": game}, format="json"), 201)["id"]
    version = ok(api.post(f"/api/bots/{bot}/versions/", {"strategy": "random"}, format="json"), 201)
    wait_for(
        lambda: api.get(f"/api/bots/{bot}/versions/{version['number']}/").json()["status"] == "ready",
        timeout=60,
        what=f"{name}'s version to be ready",
    )
    return version["id"], f"{name} v{version['number']}"


def refused(api: APIClient, url: str, body: dict[str, Any], *, patch: bool = False) -> dict[str, Any]:
    response = (api.patch if patch else api.post)(url, body, format="json")
    assert response.status_code == 400, response.content
    answer: dict[str, Any] = response.json()
    return answer


def test_a_format_registered_only_from_the_tests_plays_a_competition_end_to_end(workers: Start, gauntlet: str) -> None:
    # The worker starts first: its process learns the format from the environment alone.
    workers("w1", concurrency=2, extra_env={"COMPETITION_FORMATS": "tests.tournaments.gauntlet"})
    organiser = PlayerFactory(user=UserFactory(username="gemma"), display_name="Gemma")
    api = client_for(organiser.user)
    club = ok(api.post("/api/clubs/", {"name": "Gauntlet Club", "slug": "gauntlet"}, format="json"), 201)["id"]
    reference, reference_name = ready_version(api, "Yardstick")
    contenders = dict(ready_version(api, f"Runner {n}") for n in range(CONTENDERS))
    other_game, _ = ready_version(api, "Banterer", game="banter")

    # --- Created through the API, its settings read from its spec -----------------------------------------
    assert gauntlet in format_keys()
    body = {"club": club, "name": "The gauntlet", "game": GAME, "format": gauntlet, "games_per_match": GAMES_PER_MATCH}
    for bad in (0, 11, "three"):
        answer = refused(api, "/api/tournaments/", {**body, "reference": reference, "rounds": bad})
        assert list(answer) == ["rounds"], answer
    answer = refused(api, "/api/tournaments/", {**body, "reference": reference, "round_count": 3})
    assert list(answer) == ["round_count"] and "reference, rounds" in answer["round_count"][0], answer
    assert list(refused(api, "/api/tournaments/", body)) == ["reference"]
    answer = refused(api, "/api/tournaments/", {**body, "reference": other_game})
    assert answer == {"reference": ["the reference must play war; this bot plays banter"]}
    created = ok(api.post("/api/tournaments/", {**body, "reference": reference, "rounds": 2}, format="json"), 201)
    assert (created["format"], created["reference"], created["rounds"]) == (gauntlet, reference, 2)
    base = f"/api/tournaments/{created['id']}"

    # --- Changed while open: a setting it has, never one it lacks --------------------------------------------
    assert ok(api.patch(f"{base}/", {"rounds": ROUNDS}, format="json"))["rounds"] == ROUNDS
    answer = refused(api, f"{base}/", {"bye_points": "win"}, patch=True)
    assert list(answer) == ["bye_points"], answer
    assert list(refused(api, f"{base}/", {"rounds": 12}, patch=True)) == ["rounds"]

    # --- Entered, started, played by the worker ---------------------------------------------------------------
    for version in contenders:
        ok(api.post(f"{base}/entrants/", {"bot_version": version}, format="json"), 201)
    ok(api.post(f"{base}/start/", {}, format="json"))
    answer = refused(api, f"{base}/", {"rounds": 4}, patch=True)
    assert "only while entries are open" in answer["rounds"][0], answer
    competition = Competition.objects.get(pk=created["id"])
    wait_for(settled(competition), timeout=180, what="the worker to play every match")
    matches = list(Match.objects.filter(competition=competition).order_by("round__number", "number"))
    assert [(m.status, m.error) for m in matches] == [(Match.Status.DONE, "")] * CONTENDERS * ROUNDS
    assert competition.status == Competition.Status.FINISHED
    assert Game.objects.filter(match__competition=competition).count() == len(matches) * GAMES_PER_MATCH

    # Each contender met the reference once a round, seats swapped each round.
    seats = defaultdict(list)
    for match in matches:
        names = [p.entrant.name for p in match.participants.order_by("seat").select_related("entrant")]
        assert reference_name in names and len(names) == 2
        seats[next(n for n in names if n != reference_name)].append(names.index(reference_name))
    assert seats == {name: [1, 0, 1] for name in contenders.values()}

    # --- Standings through the API: by score rate against the reference, the reference last -------------------
    rows = results(APIClient().get(f"{base}/standings/"))
    rates = _score_rates(competition)
    names = [row["entrant"]["name"] for row in rows]
    assert names[-1] == reference_name and sorted(names[:-1]) == sorted(contenders.values())
    contender_rows = rows[:-1]
    assert [row["score_rate"] for row in contender_rows] == [
        round(float(rates[row["entrant"]["id"]]), 6) for row in contender_rows
    ]
    assert [rates[row["entrant"]["id"]] for row in contender_rows] == sorted(
        (rates[row["entrant"]["id"]] for row in contender_rows), reverse=True
    )
    assert all(row["played"] == ROUNDS for row in contender_rows) and rows[-1]["played"] == CONTENDERS * ROUNDS
    assert all(row["tiebreaks"][0]["field"] == "score_rate" for row in rows)
    assert [row["rank"] for row in rows][-1] == len(rows)

    # --- The admin competition page and the public page: its part and the same table ---------------------------
    root = PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True)).user
    browser = Client()
    browser.force_login(root)
    admin_page = browser.get(f"/admin/tournaments/competition/{competition.pk}/change/")
    assert admin_page.status_code == 200
    html = admin_page.content.decode()
    part = f'<tr><th scope="row">Reference bot</th><td>{reference_name}</td></tr>'
    assert 'id="gauntlet"' in html and part in html
    assert f"<td>{len(matches)} of {len(matches)}</td>" in html
    standings = table_rows(html, "standings")
    assert standings[0][6] == "Score rate"
    assert [line[1] for line in standings[1:]] == names
    assert "the reference bot comes last" in html
    public = Client().get(f"/competitions/{competition.pk}/")
    assert public.status_code == 200
    page = public.content.decode()
    # The same part on the public page: one markup for both.
    assert part in page and f"<td>{ROUNDS} for each entrant, seats swapped each time</td>" in page
    table = page.split('id="standings"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r'<th scope="row">([^<]+)</th>', table) == names
    # The admin's add page offers it among the formats, and its form asks for its own settings.
    assert "?format=gauntlet" in browser.get("/admin/tournaments/competition/add/").content.decode()
    add_form = browser.get("/admin/tournaments/competition/add/?format=gauntlet").content.decode()
    assert 'name="reference"' in add_form and 'name="rounds"' in add_form


def _score_rates(competition: Competition) -> dict[int, Fraction]:
    """Match points per match played, worked out here from the participants' stored match points."""
    per_point = units_per_point(competition.players_per_match)
    points: dict[int, Fraction] = defaultdict(Fraction)
    played: dict[int, int] = defaultdict(int)
    for entrant, units in MatchParticipant.objects.filter(match__competition=competition).values_list(
        "entrant_id", "match_units"
    ):
        points[entrant] += Fraction(units, per_point)
        played[entrant] += 1
    return {entrant: points[entrant] / played[entrant] for entrant in points}


def test_the_format_is_gone_once_unregistered() -> None:
    """The fixture leaves no trace: other tests iterate the built-in formats only."""
    assert "gauntlet" not in format_keys()
