"""Shared set-up for the API tests (no tests here): clients, and a small cast of people around one competition.

The cast is the permission matrix's rows: an organiser (of the club and of the
competition), a club member, a bot owner outside the club, and a stranger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from rest_framework.test import APIClient

from league.models import BotVersion, Club, Membership, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    full_options,
)
from tournaments.models import Competition, Entrant

ROLES = ("anonymous", "stranger", "owner", "member", "organiser")


def client_for(user: AbstractBaseUser | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user=user)
    return client


def results(response: Any) -> list[dict[str, Any]]:
    """The rows of a paginated list response."""
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}, body
    return body["results"]


@dataclass
class Cast:
    club: Club
    organiser: Player
    member: Player
    owner: Player
    stranger: Player
    #: The owner's ready version, of the competition's game.
    version: BotVersion
    #: Open, in the club, organised by ``organiser``.
    competition: Competition

    def player(self, role: str) -> Player | None:
        return None if role == "anonymous" else getattr(self, role)

    def client(self, role: str) -> APIClient:
        player = self.player(role)
        return client_for(None if player is None else player.user)


def organised_competition(club: Club, organiser: Player, game: str = "war", **fields: Any) -> Competition:
    players = fields.pop("players_per_match", 2)
    competition = CompetitionFactory(
        club=club,
        created_by=organiser,
        game=game,
        players_per_match=players,
        options=full_options(game, players),
        **fields,
    )
    competition.organisers.add(organiser)
    return competition


def make_cast(game: str = "war") -> Cast:
    club = ClubFactory()
    organiser, member, owner, stranger = (PlayerFactory() for _ in range(4))
    MembershipFactory(club=club, player=organiser, role=Membership.Role.ORGANISER)
    MembershipFactory(club=club, player=member)
    version = BotVersionFactory(bot=BotFactory(owner=owner, game=game))
    return Cast(
        club=club,
        organiser=organiser,
        member=member,
        owner=owner,
        stranger=stranger,
        version=version,
        competition=organised_competition(club, organiser, game),
    )


def add_entrants(competition: Competition, count: int) -> list[Entrant]:
    return [EntrantFactory(competition=competition) for _ in range(count)]
