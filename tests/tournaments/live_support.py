"""Live matches for tests: a started competition of club members (and bots), and a random player for each seat."""

from __future__ import annotations

import random
from typing import Any

from engine.fairness import commitment_holds
from engine.record import Record
from engine.verify import verify
from league.models import Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    full_options,
)
from tournaments.models import Competition, Game, Match
from tournaments.services.competitions import competition_start

#: Every game at a live table, with the people and options it is played with.
LIVE_GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("war", 2, {}),
    ("1923", 2, {"mode": "set"}),
    ("1923", 3, {"mode": "set"}),
    ("banter", 2, {}),
    ("punk", 3, {}),
    ("punk", 2, {"dummy": True}),
]


def live_match(
    game: str = "1923",
    *,
    people: int = 2,
    bots: int = 0,
    options: dict[str, Any] | None = None,
    games: int = 1,
    **settings: Any,
) -> tuple[Match, list[Player]]:
    """The one match of a started competition between ``people`` club members then ``bots`` built-in bots."""
    size = people + bots
    competition = CompetitionFactory(
        game=game,
        players_per_match=size,
        options=full_options(game, size, options),
        games_per_match=games,
        **settings,
    )
    players = []
    for _ in range(people):
        player = PlayerFactory()
        MembershipFactory(club=competition.club, player=player)
        EntrantFactory(competition=competition, bot_version=None, player=player, name=player.display_name)
        players.append(player)
    for _ in range(bots):
        version = BotVersionFactory(bot=BotFactory(game=game), strategy="random")
        EntrantFactory(competition=competition, bot_version=version)
    competition_start(competition=competition)
    match = Match.objects.select_related("competition").get(competition=competition)
    return match, players


def pick(table: dict[str, Any], rng: random.Random) -> str:
    return rng.choice(table["legal_actions"])


def assert_recorded_fairly(match: Match) -> None:
    """Done, every game's record verifies, and reveals the seed and salt its commitment was made of."""
    match.refresh_from_db()
    assert match.status == Match.Status.DONE, match.error
    games = list(Game.objects.filter(match=match).order_by("number"))
    assert len(games) == match.competition.games_per_match
    for game in games:
        record = Record.from_dict(game.record)
        assert verify(record).ok, verify(record)
        assert record.salt == match.salt
        assert commitment_holds(record.seed, record.salt, match.commitments[game.number])


def competition_of(match: Match) -> Competition:
    return Competition.objects.get(pk=match.competition_id)
