"""Play to separation (issue 14): two entrants play round after round until the sequential test decides or the
cap is reached; the decision, its log-likelihood ratio and the games are in the API and the admin site."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from django.template.defaultfilters import floatformat

from engine.sprt import SprtSettings, SprtState, sprt
from league.models import Membership
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory
from tests.league.test_api_support import client_for
from tests.tournaments.test_ladder_admin import part_text
from tournaments.models import Competition, Game, Match

pytestmark = pytest.mark.django_db


def separation(entrants: int = 2, **settings: Any) -> tuple[int, Any]:
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    client = client_for(membership.player.user)
    body = {"club": membership.club.pk, "name": "Which is stronger", "game": "war", "format": "separation", **settings}
    created = client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    competition = created.json()["id"]
    for _ in range(entrants):
        version = BotVersionFactory(bot=BotFactory(owner=membership.player, game="war"))
        client.post(f"/api/tournaments/{competition}/entrants/", {"bot_version": version.pk}, format="json")
    return competition, client


def counted(competition: int, first: int, second: int) -> SprtState:
    games = list(Game.objects.filter(match__competition_id=competition).values_list("winner_id", flat=True))
    wins, losses = games.count(first), games.count(second)
    return SprtState(wins=wins, draws=len(games) - wins - losses, losses=losses)


@pytest.mark.parametrize(
    "settings", [{"sprt_elo1": 400, "games_per_match": 4}, {"sprt_max_games": 6, "games_per_match": 2}]
)
def test_rounds_follow_until_the_test_decides_or_the_cap_and_the_verdict_is_the_games(
    settings: dict[str, Any], django_capture_on_commit_callbacks: Any, admin_client: Any
) -> None:
    competition, client = separation(**settings)
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/api/tournaments/{competition}/start/", {}, format="json").status_code == 200
    assert Competition.objects.get(pk=competition).status == Competition.Status.FINISHED
    shown = client.get(f"/api/tournaments/{competition}/separation/").json()
    first, second = shown["first"]["id"], shown["second"]["id"]
    state = counted(competition, first, second)
    options = {
        "elo0": 0.0,
        "elo1": float(settings.get("sprt_elo1", 50)),
        "max_games": settings.get("sprt_max_games", 2000),
    }
    verdict = sprt(state, SprtSettings(**options))
    assert shown["decision"] == verdict.decision != "continue"
    assert (shown["wins"], shown["draws"], shown["losses"], shown["games"]) == (
        state.wins,
        state.draws,
        state.losses,
        state.games,
    )
    assert shown["llr"] == pytest.approx(verdict.llr)
    # No round was played past the decision: without the last round's games, the test had to go on.
    matches = list(Match.objects.filter(competition_id=competition).order_by("round__number"))
    last_games = Game.objects.filter(match=matches[-1]).values_list("winner_id", flat=True)
    before = SprtState(
        wins=state.wins - list(last_games).count(first),
        losses=state.losses - list(last_games).count(second),
        draws=state.draws - sum(1 for w in last_games if w not in (first, second)),
    )
    assert sprt(before, SprtSettings(**options)).decision == "continue"
    # Seats swap every round.
    seats = [tuple(m.participants.order_by("seat").values_list("entrant_id", flat=True)) for m in matches]
    assert all(a == tuple(reversed(b)) for a, b in pairwise(seats))
    page = admin_client.get(f"/admin/tournaments/competition/{competition}/change/")
    assert page.status_code == 200
    admin_part = part_text(page.content.decode(), "separation")
    # The public page says the same to anyone, in the same words.
    public = part_text(client_for().get(f"/competitions/{competition}/").content.decode(), "separation")
    assert public == admin_part and public.startswith("Play to separation ")
    name, other = shown["first"]["name"], shown["second"]["name"]
    assert (
        f"Games {state.games}: {name} won {state.wins}, drew {state.draws} and lost {state.losses} against {other}"
        in public
    )
    elo1 = f"an edge of {options['elo1']:g} Elo"
    assert f"Has {name} {elo1} over {other} (H1), or no edge (H0)?" in public
    words = {
        "H0": f"Decided: {name} does not have {elo1} over {other} (no edge fits the games better: H0 accepted).",
        "H1": f"Decided: {name} is the stronger ({elo1} fits the games better than no edge: H1 accepted).",
        "cap": f"Stopped undecided after {options['max_games']} games:",
    }
    assert words[verdict.decision] in public
    # The page rounds as Django's floatformat does.
    assert f"Evidence so far {floatformat(verdict.llr, 3)} (the log-likelihood ratio)." in public
    upper, lower = floatformat(verdict.upper, 3), floatformat(verdict.lower, 3)
    assert f"at {upper} or above the test accepts H1, at {lower} or below it accepts H0" in public
    assert "At most 5% of such tests accept H1 when H0 is true (α 0.05)" in public


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"sprt_elo0": 10, "sprt_elo1": 5}, "sprt_elo1", "must be greater than elo0 (10.0), not 5.0"),
        ({"sprt_alpha": 0.6}, "sprt_alpha", "0.5"),
        ({"players_per_match": 3, "game": "1923"}, "players_per_match", "play to separation is between two"),
    ],
)
def test_bad_test_settings_are_a_400_naming_the_field(body: dict[str, Any], field: str, message: str) -> None:
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    client = client_for(membership.player.user)
    base = {"club": membership.club.pk, "name": "Bad", "game": "war", "format": "separation"}
    answer = client.post("/api/tournaments/", {**base, **body}, format="json")
    assert answer.status_code == 400
    assert message in answer.json()[field][0]


def test_it_needs_exactly_two_entrants_and_other_formats_have_no_verdict() -> None:
    competition, client = separation(entrants=3)
    refused = client.post(f"/api/tournaments/{competition}/start/", {}, format="json")
    assert refused.status_code == 400
    assert "exactly two entrants" in refused.json()["entrants"][0]
    league = client.post(
        "/api/tournaments/", {"club": Competition.objects.get(pk=competition).club_id, "name": "L", "game": "war"}
    ).json()
    assert client.get(f"/api/tournaments/{league['id']}/separation/").status_code == 404
