"""GET /api/tournaments/{id}/opponents/: a competition's top bot versions for the offline gauntlet's --vs-ladder;
and the gauntlet reading them from a running server."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from engine import sdk
from engine.cli import main
from league.models import BotVersion, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    CompetitionFactory,
    EntrantFactory,
    PlayerFactory,
    full_options,
)
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import started
from tournaments.models import Competition, Entrant, Standing

pytestmark = pytest.mark.django_db


def entrant(competition: Competition, name: str, owner: Player | None = None, **version: Any) -> Entrant:
    bot = BotFactory(game=competition.game, **({"owner": owner} if owner else {}))
    return EntrantFactory(competition=competition, name=name, bot_version=BotVersionFactory(bot=bot, **version))


def uploaded() -> dict[str, Any]:
    source = b"def act(turn):\n    return turn.legal_actions[0]\n"
    return {
        "kind": BotVersion.Kind.UPLOAD,
        "strategy": "",
        "source": source,
        "filename": "secret.py",
        "entry": "secret.py",
        "sha256": hashlib.sha256(source).hexdigest(),
    }


def ladder(owner: Player, address: str = "https://b.example/bot?t=1") -> tuple[Competition, dict[str, Entrant]]:
    """A started 1923 table whose order is set by hand: A (counter) first, then the owner's HTTP bot, someone
    else's HTTP bot, an upload, random, and a bot that left (however many points it had)."""
    competition = CompetitionFactory(game="1923", options=full_options("1923", 2))
    entrants = {
        "A": entrant(competition, "A", strategy="counter"),
        "B": entrant(competition, "B", owner, kind=BotVersion.Kind.HTTP, strategy="", url=address),
        "C": entrant(competition, "C", kind=BotVersion.Kind.HTTP, strategy="", url="https://c.example/bot?token=s3"),
        "D": entrant(competition, "D", **uploaded()),
        "E": entrant(competition, "E", strategy="random"),
        "F": entrant(competition, "F", strategy="counter"),
    }
    started(competition)
    for units, name in zip([60, 50, 40, 30, 20, 90], "ABCDEF", strict=True):
        Standing.objects.filter(entrant=entrants[name]).update(match_units=units)
    Entrant.objects.filter(pk=entrants["F"].pk).update(left_at=timezone.now())
    return competition, entrants


def brief(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(o["rank"], o["name"], o["kind"], o["strategy"], o["url"]) for o in answer["opponents"]]


def test_the_top_bots_in_the_tables_order_each_as_far_as_the_caller_may_see_it() -> None:
    owner = PlayerFactory()
    competition, entrants = ladder(owner)
    seen = client_for().get(f"/api/tournaments/{competition.pk}/opponents/", {"top": 4})
    assert seen.status_code == 200
    body = seen.json()
    assert body["game"] == "1923" and body["options"] == competition.options
    assert brief(body) == [
        # The table's own ranks: F, who left, is still first in the table, and is no opponent.
        (2, "A", "builtin", "counter", None),
        (3, "B", "http", None, None),
        (4, "C", "http", None, None),
        (5, "D", "upload", None, None),
    ]
    first = body["opponents"][0]
    assert (first["entrant"], first["bot_version"]) == (entrants["A"].pk, entrants["A"].bot_version_id)
    # No code of an upload, ever: not its name either.
    assert "secret" not in seen.content.decode() and "source" not in seen.content.decode()
    # Its owner sees their own HTTP bot's address; nobody sees another's.
    mine = client_for(owner.user).get(f"/api/tournaments/{competition.pk}/opponents/").json()
    assert [o["url"] for o in mine["opponents"]] == [None, "https://b.example/bot?t=1", None, None, None]
    # Five by default, and the bot that left is not among them.
    assert [o["name"] for o in mine["opponents"]] == ["A", "B", "C", "D", "E"]


def test_a_suspended_version_is_no_opponent_until_its_owner_reinstates_it() -> None:
    competition, entrants = ladder(PlayerFactory())
    BotVersion.objects.filter(pk=entrants["A"].bot_version_id).update(suspended_at=timezone.now())
    listed = client_for().get(f"/api/tournaments/{competition.pk}/opponents/", {"top": 2}).json()
    assert [o["name"] for o in listed["opponents"]] == ["B", "C"]
    BotVersion.objects.filter(pk=entrants["A"].bot_version_id).update(suspended_at=None)
    listed = client_for().get(f"/api/tournaments/{competition.pk}/opponents/", {"top": 2}).json()
    assert [o["name"] for o in listed["opponents"]] == ["A", "B"]


@pytest.mark.parametrize("entrants", [3, 9])
def test_the_answer_costs_the_same_queries_however_many_entrants(entrants: int, django_assert_num_queries: Any) -> None:
    competition = CompetitionFactory(game="1923", options=full_options("1923", 2))
    for number in range(entrants):
        entrant(competition, f"bot {number}", strategy="counter")
    started(competition)
    # The competition, the table's rows with their entrants, which versions are suspended, and the versions
    # listed with their owners.
    with django_assert_num_queries(4):
        answer = client_for().get(f"/api/tournaments/{competition.pk}/opponents/", {"top": 50})
    assert len(answer.json()["opponents"]) == entrants


@pytest.mark.parametrize(("query", "field"), [({"top": 0}, "top"), ({"top": 51}, "top"), ({"top": "many"}, "top")])
def test_a_bad_top_is_a_400_naming_it(query: dict[str, Any], field: str) -> None:
    competition = CompetitionFactory(game="1923")
    answer = client_for().get(f"/api/tournaments/{competition.pk}/opponents/", query)
    assert answer.status_code == 400 and field in answer.json()


def test_an_unknown_competition_is_a_404() -> None:
    assert client_for().get("/api/tournaments/999999/opponents/").status_code == 404


#: The decisions the owner's HTTP bot was asked for.
ASKED: list[int] = []


def first_action(turn: Any) -> str:
    ASKED.append(turn.decision)
    return str(turn.legal_actions[0])


@pytest.fixture
def my_http_bot() -> Iterator[str]:
    """The owner's HTTP bot, served on 127.0.0.1 by the SDK: the first legal action."""
    ASKED.clear()
    server = sdk.make_http_server(first_action, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_the_gauntlet_plays_a_running_servers_top_bots(
    live_server: Any, my_http_bot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    owner = PlayerFactory()
    competition, _ = ladder(owner, my_http_bot)
    token = Token.objects.create(user=owner.user).key
    address = f"{live_server.url}/competitions/{competition.pk}/"
    argv = ["gauntlet", "counter", "--vs-ladder", address, "--token", token, "--games", "40", "--seed", "1", "--quiet"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.splitlines()[0].startswith(f"counter against counter, {my_http_bot}, random at 1923")
    assert err.splitlines() == [
        "left out: C (rank 4): an HTTP bot whose address only its owner sees",
        "left out: D (rank 5): an uploaded bot, whose code stays on the server",
    ]
    rows = {line.split()[0]: line.split() for line in out.splitlines()[3:]}
    assert list(rows) == ["counter", my_http_bot, "random", "overall"]
    # The owner's bot was asked for its decisions at its address, and counter beat it in every game.
    games = rows[my_http_bot][1]
    assert rows[my_http_bot][1:5] == [games, games, "0", "0"] and len(ASKED) > int(games)
