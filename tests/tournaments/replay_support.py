"""Finished games for the replay viewer's tests: a live match of people, played by built-in bots in their seats and
recorded as the live service records it (seed and salt in the record, commitments published), and a bots' match.
"""

from __future__ import annotations

from typing import Any

from engine.bots import seat_agents
from engine.fairness import commitment, new_salt
from engine.match import GamePlayed, game_seed
from engine.runner import play_game
from league.models import Player
from tests.factories import BotFactory, BotVersionFactory, CompetitionFactory, EntrantFactory, full_options
from tests.tournaments.helpers import match_result, started
from tests.tournaments.live_support import live_match
from tournaments.models import Game, Match
from tournaments.services.results import match_record_result

#: One short game of each game, and the seats it is played at.
SHORT_GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("war", 2, {"max_rounds": 30}),
    ("1923", 2, {"mode": "set"}),
    ("banter", 2, {"max_rounds": 2}),
    ("punk", 3, {}),
]


def _played(match: Match, *, salt: str | None) -> Game:
    competition = match.competition
    seed = game_seed(match.seed, 0)
    if competition.game == "war":
        agents: list[Any] = [None] * competition.players_per_match
    else:
        agents = seat_agents(competition.game, ["random"] * competition.players_per_match, competition.options, seed)
    record = play_game(competition.game, agents=agents, seed=seed, options=competition.options)
    if salt is not None:
        record.salt = salt
        Match.objects.filter(pk=match.pk).update(salt=salt, commitments=[commitment(seed, salt)])
        match.refresh_from_db()
    seating = tuple(range(competition.players_per_match))
    match_record_result(
        match=match, result=match_result([GamePlayed(number=0, seating=seating, record=record)], len(seating))
    )
    return Game.objects.select_related("match__competition").get(match=match)


def finished_people_game(game: str, people: int, options: dict[str, Any]) -> tuple[Game, list[Player]]:
    """A done live match's one game: its seed is revealed, so every hand may be shown after the end."""
    match, players = live_match(game, people=people, options=options)
    return _played(match, salt=new_salt()), players


def finished_bots_game(game: str = "1923", options: dict[str, Any] | None = None) -> tuple[Game, list[Player]]:
    """A done bots' match's one game (no seed revealed), and its two bots' owners in seat order."""
    competition = CompetitionFactory(game=game, players_per_match=2, options=full_options(game, 2, options))
    owners = []
    for _ in range(2):
        version = BotVersionFactory(bot=BotFactory(game=game), strategy="random")
        EntrantFactory(competition=competition, bot_version=version)
        owners.append(version.bot.owner)
    match = started(competition).matches.select_related("competition").get()
    return _played(match, salt=None), owners
