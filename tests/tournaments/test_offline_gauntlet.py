"""The offline gauntlet (engine/gauntlet.py, ``python -m engine gauntlet``) gives the server's verdict: the same seeded
games played as a play-to-separation competition on the server and through the gauntlet have the same deals, the
same results and the same sequential test's decision. (Not the test-only "gauntlet" format of test_gauntlet.py.)"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from engine.gauntlet import GauntletPlan, Pairing, contender, play_pairing
from engine.sprt import DEFAULTS, SprtSettings
from league.models import BotVersion, Membership
from tests.engine.sandbox_support import needs_sandbox
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory
from tests.league.test_api_support import client_for
from tournaments.models import Competition, Game

pytestmark = pytest.mark.django_db


def organiser() -> tuple[Membership, Any]:
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    return membership, client_for(membership.player.user)


def builtin(owner: Membership, game: str, strategy: str) -> BotVersion:
    return BotVersionFactory(bot=BotFactory(owner=owner.player, game=game), strategy=strategy)


def uploaded(owner: Membership, game: str, source: bytes) -> BotVersion:
    return BotVersionFactory(
        bot=BotFactory(owner=owner.player, game=game),
        kind=BotVersion.Kind.UPLOAD,
        strategy="",
        source=source,
        filename="mybot.py",
        entry="mybot.py",
        sha256=hashlib.sha256(source).hexdigest(),
    )


def server_separation(
    owner: Membership,
    client: Any,
    versions: tuple[BotVersion, BotVersion],
    seed: int,
    options: dict[str, Any],
    settings: dict[str, Any],
    capture: Any,
) -> tuple[dict[str, Any], list[tuple[int, int, int, int, str]]]:
    """A play to separation between ``versions`` (the first entered first), played to its end in this process:
    what the API says of the test, and each game as (round, number, seed, the first's seat, its outcome)."""
    body = {
        "club": owner.club.pk,
        "name": "Which is stronger",
        "game": versions[0].bot.game,
        "format": "separation",
        "seed": seed,
        "games_per_match": 2,
        "duplicate_deals": True,
        "options": options,
        **settings,
    }
    created = client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    competition = created.json()["id"]
    for version in versions:
        entered = client.post(f"/api/tournaments/{competition}/entrants/", {"bot_version": version.pk}, format="json")
        assert entered.status_code == 201, entered.json()
    with capture(execute=True):
        started = client.post(f"/api/tournaments/{competition}/start/", {}, format="json")
        assert started.status_code == 200, started.json()
    assert Competition.objects.get(pk=competition).status == Competition.Status.FINISHED
    shown = client.get(f"/api/tournaments/{competition}/separation/").json()
    first = shown["first"]["id"]
    played = Game.objects.filter(match__competition_id=competition).order_by("match__round__number", "number")
    games = []
    for row in played.values("match__round__number", "number", "seed", "seating", "winner_id"):
        outcome = "draw" if row["winner_id"] is None else "win" if row["winner_id"] == first else "loss"
        games.append((row["match__round__number"], row["number"], row["seed"], row["seating"].index(first), outcome))
    return shown, games


def sprt_settings_of(settings: dict[str, Any]) -> SprtSettings:
    """The server's settings as the gauntlet takes them (--elo0, --elo1, --alpha, --beta, --games)."""
    return SprtSettings(
        elo0=float(settings.get("sprt_elo0", DEFAULTS.elo0)),
        elo1=float(settings.get("sprt_elo1", DEFAULTS.elo1)),
        alpha=float(settings.get("sprt_alpha", DEFAULTS.alpha)),
        beta=float(settings.get("sprt_beta", DEFAULTS.beta)),
        max_games=int(settings.get("sprt_max_games", DEFAULTS.max_games)),
    )


def assert_same(shown: dict[str, Any], on_server: list[tuple[int, int, int, int, str]], pairing: Pairing) -> None:
    """The same verdict from the same wins, draws and losses, and game by game the same deal (seed), the
    candidate in the same seat and the same result."""
    verdict, state = pairing.verdict, pairing.state
    assert verdict.decision == shown["decision"]
    assert verdict.llr == pytest.approx(shown["llr"])
    assert (state.wins, state.draws, state.losses, state.games) == (
        shown["wins"],
        shown["draws"],
        shown["losses"],
        shown["games"],
    )
    assert [(g.round_number, g.number, g.seed, g.seat, g.outcome) for g in pairing.games] == on_server
    # The candidate played from both seats.
    assert {g.seat for g in pairing.games} == {0, 1}


@pytest.mark.parametrize(
    ("game", "candidate", "opponent", "options", "settings", "decision"),
    [
        # The candidate is clearly stronger: H1, after a few rounds.
        ("1923", "counter", "random", {}, {}, "H1"),
        # Clearly weaker, with bounds and error rates of its own: H0.
        (
            "banter",
            "random",
            "upgrader",
            {},
            {"sprt_elo0": -20, "sprt_elo1": 80, "sprt_alpha": 0.1, "sprt_beta": 0.2},
            "H0",
        ),
        # Evenly matched, at a table with the engine's own seat: the cap, undecided, with draws among the games.
        ("punk", "random", "random", {"dummy": True}, {"sprt_max_games": 14}, "cap"),
    ],
)
def test_the_gauntlet_plays_the_servers_games_and_gives_its_verdict(
    game: str,
    candidate: str,
    opponent: str,
    options: dict[str, Any],
    settings: dict[str, Any],
    decision: str,
    django_capture_on_commit_callbacks: Any,
) -> None:
    seed = 20261128
    owner, client = organiser()
    versions = (builtin(owner, game, candidate), builtin(owner, game, opponent))
    shown, on_server = server_separation(
        owner, client, versions, seed, options, settings, django_capture_on_commit_callbacks
    )
    plan = GauntletPlan(
        game=game,
        candidate=contender(candidate, game),
        opponents=(contender(opponent, game),),
        settings=sprt_settings_of(settings),
        seed=seed,
        games_per_match=2,
        options=options,
    )
    pairing = play_pairing(plan, plan.opponents[0])
    assert_same(shown, on_server, pairing)
    assert shown["decision"] == decision
    if decision == "cap":
        # Draws among the games, so all three outcomes are compared.
        assert pairing.state.draws > 0 and pairing.state.games >= plan.settings.max_games


#: A deterministic uploaded-style bot: the last legal action, and a line on stderr for its author.
LAST_ACTION = b"""
import sys


def act(turn):
    print("deciding", turn.decision, file=sys.stderr)
    return turn.legal_actions[-1]
"""


@needs_sandbox
def test_an_uploaded_bot_file_gets_the_servers_verdict_from_the_same_sandboxed_games(
    tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    seed, settings = 77, {"sprt_max_games": 8}
    owner, client = organiser()
    versions = (uploaded(owner, "banter", LAST_ACTION), builtin(owner, "banter", "random"))
    shown, on_server = server_separation(
        owner, client, versions, seed, {}, settings, django_capture_on_commit_callbacks
    )
    path = tmp_path / "mybot.py"
    path.write_bytes(LAST_ACTION)
    plan = GauntletPlan(
        game="banter",
        candidate=contender(str(path), "banter"),
        opponents=(contender("random", "banter"),),
        settings=sprt_settings_of(settings),
        seed=seed,
    )
    assert plan.candidate.code is not None and not plan.candidate.builtin
    pairing = play_pairing(plan, plan.opponents[0])
    assert_same(shown, on_server, pairing)
    assert pairing.candidate_forfeits() == {} and len(pairing.games) >= 8
