"""Duplicate deals (issue 14): each deal played once from every rotation of the seats, in the engine, by the
workers' path and at live tables, and shown in the records; refused where it cannot hold."""

from __future__ import annotations

from typing import Any

import pytest

from engine.bots import make_bot
from engine.match import deal_number, play_match
from engine.verify import verify
from league.models import Membership
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory
from tests.league.test_api_support import client_for, results
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def bots_match(game: str, participants: int, games: int, *, duplicate: bool) -> Any:
    def agents(number: int, seating: Any, seed: int) -> list[Any]:
        return [
            make_bot("random", game=game, seat=seat, players=len(seating), options={}, seed=seed)
            for seat in range(len(seating))
        ]

    return play_match(
        game,
        participants=participants,
        agents_for_game=agents,
        seats=participants,
        games=games,
        seed=77,
        options=None,
        duplicate=duplicate,
    )


@pytest.mark.parametrize(("game", "participants"), [("war", 2), ("punk", 4)])
def test_with_duplicate_deals_each_deal_is_played_from_every_rotation(game: str, participants: int) -> None:
    result = bots_match(game, participants, 2 * participants, duplicate=True)
    seeds = [played.record.seed for played in result.games]
    for deal in range(2):
        block = result.games[deal * participants : (deal + 1) * participants]
        # One deal, once from each seat: every participant sat in every seat of it.
        assert len({played.record.seed for played in block}) == 1
        assert {played.seating[0] for played in block} == set(range(participants))
        assert all(verify(played.record).ok for played in block)
    assert seeds[0] != seeds[participants]
    plain = bots_match(game, participants, 2 * participants, duplicate=False)
    assert len({played.record.seed for played in plain.games}) == 2 * participants


def test_deal_numbers() -> None:
    assert [deal_number(n, 3, duplicate=True) for n in range(7)] == [0, 0, 0, 1, 1, 1, 2]
    assert [deal_number(n, 3, duplicate=False) for n in range(4)] == [0, 1, 2, 3]


def create(body: dict[str, Any]) -> Any:
    membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory())
    client = client_for(membership.player.user)
    return client, membership, client.post("/api/tournaments/", {"club": membership.club.pk, **body}, format="json")


def test_a_competition_of_duplicate_deals_shows_which_games_share_a_deal(
    django_capture_on_commit_callbacks: Any,
) -> None:
    client, membership, created = create(
        {"name": "Duplicate", "game": "war", "games_per_match": 4, "duplicate_deals": True}
    )
    assert created.status_code == 201, created.json()
    competition = created.json()["id"]
    assert created.json()["duplicate_deals"] is True
    for _ in range(2):
        version = BotVersionFactory(bot=BotFactory(owner=membership.player, game="war"))
        client.post(f"/api/tournaments/{competition}/entrants/", {"bot_version": version.pk}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/api/tournaments/{competition}/start/", {}, format="json").status_code == 200
    games = results(client.get("/api/games/", {"competition": competition}))
    assert sorted((g["number"], g["deal_number"]) for g in games) == [(0, 0), (1, 0), (2, 1), (3, 1)]
    stored = {g.number: g for g in Game.objects.filter(match__competition_id=competition)}
    assert stored[0].seed == stored[1].seed != stored[2].seed == stored[3].seed


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"games_per_match": 3},
            "each deal is played from all 2 rotations of the seats: games_per_match must be a multiple of 2, not 3",
        ),
        (
            {"games_per_match": 2, "people_play": "transcript"},
            'duplicate deals are dealt by the server: not with people_play "transcript"',
        ),
    ],
)
def test_duplicate_deals_that_cannot_hold_are_refused_by_name(body: dict[str, Any], message: str) -> None:
    _, _, created = create({"name": "Bad", "game": "war", "duplicate_deals": True, **body})
    assert created.status_code == 400
    assert created.json() == {"duplicate_deals": [message]}


def test_people_cannot_play_duplicate_deals_they_would_remember() -> None:
    client, membership, created = create({"name": "Duplicate", "game": "war", "games_per_match": 2})
    competition = created.json()["id"]
    person = client.post(f"/api/tournaments/{competition}/entrants/", {"player": membership.player.pk}, format="json")
    assert person.status_code == 201
    # With a person entered, the organiser cannot turn duplicate deals on...
    refused = client.patch(f"/api/tournaments/{competition}/", {"duplicate_deals": True}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"duplicate_deals": ["people have entered: duplicate deals are for bots"]}
    # ... and with them on, a person cannot enter.
    client.delete(f"/api/tournaments/{competition}/entrants/{person.json()['id']}/")
    assert client.patch(f"/api/tournaments/{competition}/", {"duplicate_deals": True}, format="json").status_code == 200
    again = client.post(f"/api/tournaments/{competition}/entrants/", {"player": membership.player.pk}, format="json")
    assert again.status_code == 400
    assert "a person would remember each deal from its earlier rotation" in again.json()["player"][0]
