"""The data ``manage.py bench_admin`` times the admin site on: a running rating ladder of many bots with many
recorded matches, beside a page's worth of small competitions, written with bulk inserts.

Written straight into the tables (not played): the admin pages only read them, and playing 10,000 matches
would take the benchmark longer than it measures. The rows hold what recording would have written: each
match done and rated, two participants with their places, points and ratings after it, one game with three
race rounds (Banter's breakdown), and every entrant's standing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from engine.bench import ADMIN_GAME
from league.models import Bot, BotVersion, Membership, Player
from league.services import club_add_member, club_create, player_create
from tournaments.fields import EncodedJSON, encode_compact
from tournaments.models import Competition, Entrant, Game, Match, MatchParticipant, MatchSet, Round, Standing
from tournaments.services.competitions import competition_create

GAME = ADMIN_GAME
#: Bulk inserts in batches of this many rows.
BATCH = 2000
#: Matches in each of the ladder's rounds (beat's batch).
ROUND_SIZE = 100
#: Small competitions beside the ladder: more than the changelist's page of 100.
SMALL_COMPETITIONS = 120
SMALL_ENTRANTS = 4


@dataclass(frozen=True)
class BenchScene:
    ladder: Competition
    superuser: Player
    organiser: Player


def build_scene(*, entrants: int, matches: int, token: str, small: int = SMALL_COMPETITIONS) -> BenchScene:
    """Two clubs (the organiser runs one), the ladder in the organiser's club, and ``small`` small competitions
    shared between the clubs. The tests build smaller scenes with it, to pin the pages' queries."""
    with transaction.atomic():
        superuser = player_create(username=f"root-{token}", password="bench")
        superuser.user.is_staff = superuser.user.is_superuser = True
        superuser.user.save(update_fields=["is_staff", "is_superuser"])
        organiser = player_create(username=f"organiser-{token}", password="bench")
        organiser.user.is_staff = True
        organiser.user.save(update_fields=["is_staff"])
        home = club_create(name=f"Bench club {token}", slug=f"bench-{token}", organiser=superuser)
        club_add_member(club=home, player=organiser, role=Membership.Role.ORGANISER)
        away = club_create(name=f"Other club {token}", slug=f"other-{token}", organiser=superuser)
        versions = _bots(superuser, entrants, token)
        ladder = competition_create(
            club=home, created_by=organiser, name=f"Bench rating ladder {token}", game=GAME, format="rating_ladder"
        )
        ladder_entrants = _entrants(ladder, versions)
        _played(ladder, ladder_entrants, matches)
        for number in range(small):
            club = home if number % 2 else away
            league = competition_create(
                club=club, created_by=superuser, name=f"Small league {number} {token}", game=GAME
            )
            league_entrants = _entrants(league, versions[:SMALL_ENTRANTS])
            _played(league, league_entrants, SMALL_ENTRANTS * (SMALL_ENTRANTS - 1) // 2)
    return BenchScene(ladder=ladder, superuser=superuser, organiser=organiser)


def _bots(owner: Player, count: int, token: str) -> list[BotVersion]:
    bots = Bot.objects.bulk_create(
        [Bot(owner=owner, name=f"bench {token} {n}", game=GAME) for n in range(count)], batch_size=BATCH
    )
    return BotVersion.objects.bulk_create(
        [
            BotVersion(bot=bot, number=1, kind=BotVersion.Kind.BUILTIN, strategy="random", status="ready")
            for bot in bots
        ],
        batch_size=BATCH,
    )


def _entrants(competition: Competition, versions: list[BotVersion]) -> list[Entrant]:
    made = Entrant.objects.bulk_create(
        [Entrant(competition=competition, bot_version=v, name=f"{v.bot.name} v1") for v in versions],
        batch_size=BATCH,
    )
    now = timezone.now()
    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.RUNNING, started_at=now)
    return made


def _played(competition: Competition, entrants: list[Entrant], matches: int) -> None:
    """``matches`` done and rated matches between random pairs, in rounds of ROUND_SIZE, with their rows."""
    rng = random.Random(competition.pk)
    rounds = Round.objects.bulk_create(
        [Round(competition=competition, number=n + 1) for n in range(-(-matches // ROUND_SIZE))], batch_size=BATCH
    )
    start = timezone.now() - timedelta(seconds=matches)
    made = Match.objects.bulk_create(
        [
            Match(
                competition=competition,
                round=rounds[n // ROUND_SIZE],
                number=n % ROUND_SIZE + 1,
                status=Match.Status.DONE,
                seed=rng.getrandbits(62),
                rated=True,
                started_at=start + timedelta(seconds=n),
                finished_at=start + timedelta(seconds=n + 1),
            )
            for n in range(matches)
        ],
        batch_size=BATCH,
    )
    participants: list[MatchParticipant] = []
    games: list[Game] = []
    seatings: list[list[int]] = []
    for match in made:
        pair = rng.sample(entrants, 2)
        for seat, entrant in enumerate(pair):
            participants.append(
                MatchParticipant(
                    match=match,
                    entrant=entrant,
                    seat=seat,
                    score=1 - seat,
                    rank=seat + 1,
                    match_units=2 - 2 * seat,
                    mu_after=25.0 + rng.uniform(-5, 5),
                    sigma_after=8.0 - rng.uniform(0, 3),
                )
            )
        seatings.append([e.pk for e in pair])
        games.append(
            Game(
                match=match,
                number=0,
                seating=EncodedJSON(encode_compact(seatings[-1])),
                seed=match.seed,
                options=EncodedJSON("{}"),
                record=EncodedJSON("{}"),
                result=EncodedJSON(encode_compact({"ranks": [1, 2], "scores": [40, 30]})),
            )
        )
    MatchParticipant.objects.bulk_create(participants, batch_size=BATCH)
    Game.objects.bulk_create(games, batch_size=BATCH)
    MatchSet.objects.bulk_create(
        [
            MatchSet(
                match_id=game.match_id,
                game=game,
                number=number,
                play_on=False,
                scores={str(e): {"points": 10, "total": 10 * number + (e % 3)} for e in seating},
            )
            for game, seating in zip(games, seatings, strict=True)
            for number in (1, 2, 3)
        ],
        batch_size=BATCH,
    )
    Standing.objects.bulk_create([_standing(competition, entrant, rng) for entrant in entrants], batch_size=BATCH)
    Competition.objects.filter(pk=competition.pk).update(results_version=matches)


def _standing(competition: Competition, entrant: Entrant, rng: random.Random) -> Standing:
    mu, sigma = 25.0 + rng.uniform(-5, 5), 8.0 - rng.uniform(0, 3)
    won = rng.randint(0, 20)
    return Standing(
        competition=competition,
        entrant=entrant,
        played=won + 20,
        won=won,
        lost=20,
        match_units=2 * won,
        mu=mu,
        sigma=sigma,
        ordinal=mu - 3 * sigma,
    )
