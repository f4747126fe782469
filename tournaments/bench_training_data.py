"""The data ``manage.py bench_training_data`` streams: one bot's games, in bulk, grown in stages.

The games (Punk at tables of three: ``engine.bench.TRAINING_DATA_GAME``) are real: a pool of games played
by the engine between built-in bots, their records stored as the recording service stores them
(tournaments/services/game_rows.py, COPY on PostgreSQL). Playing a hundred thousand distinct games would take
the benchmark longer than what it measures, so the pool's records are used in turn, each game keeping the
seat rotation of its match; the download replays every one of them all the same. The matches are done,
each with its participants, in one competition of 100 games a match.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from engine.bench import TRAINING_DATA_GAME
from engine.bots import seat_agents
from engine.match import GamePlayed, seating_for
from engine.record import Record
from engine.runner import play_game
from league.models import Bot, BotVersion, Player
from league.services import club_create, player_create
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Round
from tournaments.services.competitions import competition_create
from tournaments.services.game_rows import GameEncoder, MatchGames, insert_games

GAME, PLAYERS = TRAINING_DATA_GAME
#: Games a match: a match's games are written in one COPY.
GAMES_PER_MATCH = 100
#: Distinct games played by the engine, used in turn.
POOL = 500
#: Matches written in one transaction.
MATCHES_AT_ONCE = 50


@dataclass
class TrainingScene:
    owner: Player
    bot: Bot
    competition: Competition
    entrants: list[Entrant]
    round: Round
    pool: list[Record]
    games: int = 0
    matches: int = 0


def build_scene(*, token: str) -> TrainingScene:
    """The bot's owner, the bot and two others' bots entered in one running competition, and the pool of games."""
    with transaction.atomic():
        owner = player_create(username=f"trainer-{token}", password="bench")
        rival = player_create(username=f"rival-{token}", password="bench")
        club = club_create(name=f"Training club {token}", slug=f"training-{token}", organiser=owner)
        competition = competition_create(
            club=club,
            created_by=owner,
            name=f"Training data {token}",
            game=GAME,
            settings={"players_per_match": PLAYERS, "games_per_match": GAMES_PER_MATCH},
        )
        Competition.objects.filter(pk=competition.pk).update(
            status=Competition.Status.RUNNING, started_at=timezone.now()
        )
        bots = [Bot.objects.create(owner=owner, name=f"learner {token}", game=GAME)]
        bots += [Bot.objects.create(owner=rival, name=f"rival {n} {token}", game=GAME) for n in range(1, PLAYERS)]
        entrants = [
            Entrant.objects.create(
                competition=competition,
                bot_version=BotVersion.objects.create(
                    bot=bot, number=1, kind=BotVersion.Kind.BUILTIN, strategy="random", status="ready"
                ),
                name=bot.name,
            )
            for bot in bots
        ]
        round_ = Round.objects.create(competition=competition, number=1)
    pool = [
        play_game(GAME, agents=seat_agents(GAME, ["random"] * PLAYERS, {}, seed), seed=seed) for seed in range(POOL)
    ]
    return TrainingScene(owner, bots[0], competition, entrants, round_, pool)


def add_games(scene: TrainingScene, games: int) -> None:
    """``games`` more done games of the scene's bot, ``GAMES_PER_MATCH`` a match."""
    left = games
    while left > 0:
        with transaction.atomic():
            batch: list[MatchGames] = []
            for _ in range(MATCHES_AT_ONCE):
                if left <= 0:
                    break
                count = min(GAMES_PER_MATCH, left)
                batch.append(_match(scene, count))
                left -= count
            insert_games(batch)


def _match(scene: TrainingScene, games: int) -> MatchGames:
    scene.matches += 1
    now = timezone.now()
    match = Match.objects.create(
        competition=scene.competition,
        round=scene.round,
        number=scene.matches,
        status=Match.Status.DONE,
        seed=scene.matches,
        started_at=now,
        finished_at=now,
    )
    MatchParticipant.objects.bulk_create(
        MatchParticipant(match=match, entrant=entrant, seat=seat, rank=seat + 1)
        for seat, entrant in enumerate(scene.entrants)
    )
    played = []
    for number in range(games):
        record = scene.pool[(scene.games + number) % len(scene.pool)]
        played.append(GamePlayed(number=number, seating=seating_for(number, PLAYERS, PLAYERS), record=record))
    scene.games += games
    return MatchGames(match.pk, GameEncoder([entrant.pk for entrant in scene.entrants]), played)
