"""The demo club that ``make run`` loads: people, built-in bots and one played competition per game.

Idempotent: each step first looks for what it would create, so a second run changes nothing and
a run that stopped part-way is completed by the next. Everything goes through the services, as
an organiser's clicks would; only the demo login's own flags (superuser, password) are set here,
because making a superuser is no part of the league's services.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import cycle, islice, product
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from engine.bots import bot_names
from engine.cards import standard_deck
from league.models import Bot, BotVersion, Club, Membership, Player
from league.services import (
    bot_create,
    bot_version_create_builtin,
    club_add_member,
    club_create,
    player_create,
    player_for_user,
)
from tournaments.models import Competition, Entrant, Match
from tournaments.services.challenge_decisions import ladder_order
from tournaments.services.challenges import challenge_issue
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.services.play import competition_play_pending
from tournaments.services.rating_ladder import rating_ladder_tick

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"
CLUB_NAME = "Demo card club"
CLUB_SLUG = "demo"
#: Members sign in to the API with the same password as the demo login.
MEMBERS = ("alice", "bob", "carol", "dave", "erin")


@dataclass(frozen=True)
class DemoCompetition:
    name: str
    game: str
    options: dict[str, Any] = field(default_factory=dict)
    players_per_match: int = 2
    games_per_match: int = 1
    #: Fixed, so every fresh demo plays the same games.
    seed: int = 0


COMPETITIONS = (
    DemoCompetition("Demo War league", "war", games_per_match=3, seed=101),
    DemoCompetition("Demo 1923 league", "1923", {"mode": "match", "target_points": 50}, seed=1923),
    DemoCompetition("Demo Banter league", "banter", seed=40),
    DemoCompetition("Demo Punk league", "punk", players_per_match=4, seed=21),
)


#: A game played with real cards and submitted as a transcript (the API fuzzer's seed data, tournaments/fuzz.py):
#: War, whose whole transcript is its deck.
TRANSCRIPT_GAME = "war"


def transcript_deal(seed: int) -> dict[str, Any]:
    """A shuffled deck for TRANSCRIPT_GAME, as a table deals it."""
    deck = standard_deck()
    random.Random(seed).shuffle(deck)
    return {"deck": deck}


#: People's live tables in the demo wait at a correspondence pace: days for a decision, not the default 5
#: minutes, so a newcomer finds them still open whenever they first sign in (the common settings allow up to
#: 7 days a decision and 30 days a game, tournaments/formats/common.py).
MOVE_SECONDS = 3 * 86400
GAME_SECONDS = 30 * 86400
CORRESPONDENCE: dict[str, Any] = {"move_seconds": MOVE_SECONDS, "game_seconds": GAME_SECONDS}

#: A challenge ladder of bots and people: its first challenges are played when the demo loads, and one
#: waits for the demo login's answer (issue 23).
CHALLENGE_LADDER = DemoCompetition("Demo club ladder", "banter", seed=7)
#: Who stands on it, top first: these members' bots, then these people.
LADDER_BOTS = ("bob", "carol", "dave", "erin")
LADDER_PEOPLE = (DEMO_USERNAME, "alice")
#: Who challenges whom once the bots' challenges are played: Alice, just below, challenges the demo login.
WAITING_CHALLENGER = "alice"
#: Challenges played when the demo loads: (challenger's place, defender's place), as they stand then.
LADDER_CHALLENGES = ((4, 2), (3, 1), (4, 3), (2, 1))
#: A rating ladder of every member's bots, running on beat; its first rounds are played when the demo loads.
RATING_LADDER = DemoCompetition("Demo rating ladder", "banter", seed=8)
RATING_LADDER_FIRST_ROUNDS = 2

#: A Swiss of seven bots (issue 14): paired round by round from the standings, one bye a round. A stage:
#: its best four go on to a double elimination when it finishes.
SWISS = DemoCompetition("Demo 1923 Swiss", "1923", {"mode": "set"}, seed=14)
SWISS_BOTS = 7
SWISS_CUT = 4

#: Knockouts (issue 14): a Banter cup of six, seeded by the Banter league's ratings (byes for the top two seeds,
#: best of three, a third-place match), and a Punk cup of eight at tables of four, the best two of each going on.
BANTER_CUP = DemoCompetition("Demo Banter cup", "banter", games_per_match=3, seed=31)
BANTER_CUP_BOTS = 6
PUNK_CUP = DemoCompetition("Demo Punk cup", "punk", players_per_match=4, seed=32)
PUNK_CUP_BOTS = 8

#: Duplicate deals (issue 14): a round robin of the members' Banter bots, each deal played from both seats.
DUPLICATE = DemoCompetition("Demo duplicate Banter", "banter", games_per_match=2, seed=22)
#: Play to separation (issue 14): two of the demo login's bots until the sequential test decides.
SEPARATION = DemoCompetition("Demo play to separation", "banter", games_per_match=4, seed=23)
SEPARATION_BOTS = ("upgrader", "random")

#: Live tables for the demo login to play at (/play/): two people and a bot, every match refereed live.
LIVE_COMPETITION = DemoCompetition("Demo live 1923", "1923", {"mode": "set"})
#: Who sits at the live tables: the demo login, this member, and a bot of this strategy.
LIVE_PEOPLE = ("alice",)
LIVE_BOT = "counter"


def strategies(game: str) -> list[str]:
    """The game's built-in strategies, its own before ``random``, so every one of them enters."""
    names = bot_names(game)
    return [n for n in names if n != "random"] + [n for n in names if n == "random"]


@dataclass
class DemoReport:
    created: list[str] = field(default_factory=list)
    bots_created: int = 0
    matches_played: int = 0


def build_demo(*, say: Callable[[str], None] = lambda line: None) -> DemoReport:
    """Build (or complete) the demo club and play its competitions; ``say`` hears what was done."""
    report = DemoReport()
    with transaction.atomic():
        organiser = _login(DEMO_USERNAME, "Demo organiser", report, superuser=True)
        club = Club.objects.filter(slug=CLUB_SLUG).first()
        if club is None:
            club = club_create(name=CLUB_NAME, slug=CLUB_SLUG, organiser=organiser)
            report.created.append(f"club {club.name}")
        members = [_login(username, username.capitalize(), report) for username in MEMBERS]
        for member in members:
            # Only a newcomer is added: a role an organiser has since changed stays as it is. Fixtures enrol
            # directly (club_add_member); on the site a person joins by accepting an invitation (docs/clubs.md).
            if not Membership.objects.filter(club=club, player=member).exists():
                club_add_member(club=club, player=member)
        competitions = [_competition(spec, club, organiser, members, report) for spec in COMPETITIONS]
        _live_competition(club, organiser, members, report)
        swiss = _swiss(club, organiser, members, report)
        banter_cup = _cup(BANTER_CUP, BANTER_CUP_BOTS, club, organiser, members, report, third_place=True)
        punk_cup = _cup(PUNK_CUP, PUNK_CUP_BOTS, club, organiser, members, report, advance_count=2)
        duplicate = _competition(DUPLICATE, club, organiser, members, report, duplicate_deals=True)
        separation = _separation(club, organiser, report)
        challenge_ladder = _challenge_ladder(club, organiser, members, report)
        rating_ladder = _rating_ladder(club, organiser, members, report)
    for line in report.created:
        say(f"created {line}")
    if report.bots_created:
        say(f"created {report.bots_created} built-in bots")
    for competition in competitions:
        # Each match records in its own transaction, as a worker's would.
        played = competition_play_pending(competition=competition)
        report.matches_played += played
        if played:
            say(f"played {played} matches of {competition.name}")
    for competition in (swiss, duplicate, separation):
        report.matches_played += _play_round_by_round(competition, say)
    swiss.refresh_from_db()
    # The Swiss's last match made its knockout stage; the cups seed from the leagues played above.
    knockouts = [swiss.next_stage, _started(banter_cup), _started(punk_cup)]
    for knockout in knockouts:
        if knockout is not None:
            report.matches_played += _play_round_by_round(knockout, say)
    report.matches_played += _first_challenges(challenge_ladder, organiser, say)
    report.matches_played += _first_rating_rounds(rating_ladder, say)
    return report


def _login(username: str, display_name: str, report: DemoReport, *, superuser: bool = False) -> Player:
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        player = player_create(username=username, display_name=display_name, password=DEMO_PASSWORD)
        report.created.append(f"login {username}")
        user = player.user
    else:
        player = player_for_user(user=user)
    if superuser and not (user.is_staff and user.is_superuser and user.check_password(DEMO_PASSWORD)):
        # The printed demo login must work, whatever an earlier run or a developer did to it.
        user.is_staff = user.is_superuser = True
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["is_staff", "is_superuser", "password"])
    return player


def _bot_version(owner: Player, game: str, strategy: str, report: DemoReport) -> BotVersion:
    name = f"{owner.display_name} {game} {strategy}"
    bot = Bot.objects.filter(owner=owner, name=name).first()
    if bot is None:
        bot = bot_create(owner=owner, name=name, game=game, description=f"The engine's {strategy} strategy.")
        report.bots_created += 1
    version = bot.versions.filter(kind=BotVersion.Kind.BUILTIN, strategy=strategy).order_by("number").first()
    return version or bot_version_create_builtin(bot=bot, strategy=strategy)


def _competition(
    spec: DemoCompetition,
    club: Club,
    organiser: Player,
    members: list[Player],
    report: DemoReport,
    **settings: Any,
) -> Competition:
    competition = _created(
        spec,
        club,
        organiser,
        report,
        options=spec.options,
        players_per_match=spec.players_per_match,
        games_per_match=spec.games_per_match,
        **settings,
    )
    if competition.status == Competition.Status.OPEN:
        entered = set(competition.entrants.values_list("bot_version_id", flat=True))
        for member, strategy in zip(members, cycle(strategies(spec.game)), strict=False):
            version = _bot_version(member, spec.game, strategy, report)
            if version.pk not in entered:
                entrant_join(competition=competition, bot_version=version)
        competition = competition_start(competition=competition)
    return competition


def _live_competition(club: Club, organiser: Player, members: list[Player], report: DemoReport) -> Competition:
    """People's matches start live when the competition starts; the workers play the bot's seats."""
    spec = LIVE_COMPETITION
    competition = _created(spec, club, organiser, report, options=spec.options, **CORRESPONDENCE)
    if competition.status == Competition.Status.OPEN:
        people = [organiser, *(m for m in members if m.user.username in LIVE_PEOPLE)]
        # Either id may be None (an entrant is a person or a bot); django-stubs types values_list's ids as int.
        entered: set[tuple[int | None, int | None]] = set(
            competition.entrants.values_list("player_id", "bot_version_id")
        )
        for person in people:
            if (person.pk, None) not in entered:
                entrant_join(competition=competition, player=person)
        version = _bot_version(members[-1], spec.game, LIVE_BOT, report)
        if (None, version.pk) not in entered:
            entrant_join(competition=competition, bot_version=version)
        competition = competition_start(competition=competition)
    return competition


def demo_counts() -> dict[str, int]:
    """What the demo holds, for the command's summary and the idempotence test."""
    return {
        "players": Player.objects.count(),
        "bots": Bot.objects.count(),
        "bot versions": BotVersion.objects.count(),
        "competitions": Competition.objects.count(),
        "matches done": Match.objects.filter(status=Match.Status.DONE).count(),
    }


def _created(
    spec: DemoCompetition,
    club: Club,
    organiser: Player,
    report: DemoReport,
    *,
    format: str = "round_robin",
    options: Mapping[str, object] | None = None,
    **settings: Any,
) -> Competition:
    """The club's competition of this name, created (and reported) if it is not there yet."""
    competition = Competition.objects.filter(club=club, name=spec.name).first()
    if competition is None:
        competition = competition_create(
            club=club,
            created_by=organiser,
            name=spec.name,
            game=spec.game,
            seed=spec.seed,
            format=format,
            options=options,
            settings=settings,
        )
        report.created.append(f"competition {spec.name}")
    return competition


def _ladder(
    spec: DemoCompetition, club: Club, organiser: Player, format: str, report: DemoReport, **settings: Any
) -> Competition:
    return _created(spec, club, organiser, report, options=spec.options, format=format, **settings)


def _challenge_ladder(club: Club, organiser: Player, members: list[Player], report: DemoReport) -> Competition:
    """Members' bots above two people, in that order."""
    # Its people play their accepted challenges at live tables, at the demo's correspondence pace.
    competition = _ladder(CHALLENGE_LADDER, club, organiser, "challenge_ladder", report, **CORRESPONDENCE)
    if competition.status == Competition.Status.OPEN:
        by_name = {m.user.username: m for m in [organiser, *members]}
        entered = {(e.bot_version_id, e.player_id): e for e in competition.entrants.all()}
        order = []
        for username in LADDER_BOTS:
            version = _bot_version(by_name[username], CHALLENGE_LADDER.game, "upgrader", report)
            order.append(entered.get((version.pk, None)) or entrant_join(competition=competition, bot_version=version))
        for username in LADDER_PEOPLE:
            person = by_name[username]
            order.append(entered.get((None, person.pk)) or entrant_join(competition=competition, player=person))
        competition = competition_start(competition=competition, order=[e.pk for e in order])
    return competition


def _first_challenges(competition: Competition, organiser: Player, say: Callable[[str], None]) -> int:
    """The bots' first challenges, played here; then Alice challenges the demo login, whose answer it awaits
    (accept or decline, on the ladder's page or through the API) until its deadline days away."""
    if competition.challenges.exists():
        return 0
    played = 0
    for below, above in LADDER_CHALLENGES:
        order = ladder_order(competition.pk)
        challenger, defender = (Entrant.objects.get(pk=order[place - 1]) for place in (below, above))
        challenge_issue(competition=competition, challenger=challenger, defender=defender, issued_by=organiser)
        played += competition_play_pending(competition=competition)
    person = Player.objects.get(user__username=WAITING_CHALLENGER)
    challenger = Entrant.objects.get(competition=competition, player=person)
    demo = Entrant.objects.get(competition=competition, player__user__username=DEMO_USERNAME)
    challenge_issue(competition=competition, challenger=challenger, defender=demo, issued_by=person)
    say(f"played {played} challenges of {competition.name}; {challenger.name}'s waits for the demo login to answer")
    return played


def _rating_ladder(club: Club, organiser: Player, members: list[Player], report: DemoReport) -> Competition:
    """Every built-in strategy of the game, once per member: a ladder beat keeps playing."""
    competition = _ladder(RATING_LADDER, club, organiser, "rating_ladder", report)
    if competition.status == Competition.Status.OPEN:
        entered = set(competition.entrants.values_list("bot_version_id", flat=True))
        for member in members:
            for strategy in strategies(RATING_LADDER.game):
                version = _bot_version(member, RATING_LADDER.game, strategy, report)
                if version.pk not in entered:
                    entrant_join(competition=competition, bot_version=version)
        competition = competition_start(competition=competition)
    return competition


def _first_rating_rounds(competition: Competition, say: Callable[[str], None]) -> int:
    """A couple of rounds played here, so the ladder has standings at once; beat plays the rest."""
    played = 0
    while competition.rounds.count() < RATING_LADDER_FIRST_ROUNDS:
        if not rating_ladder_tick(competition_id=competition.pk):
            break
        played += competition_play_pending(competition=competition)
    if played:
        say(f"played {played} matches of {competition.name}; beat plays a round every few seconds from now on")
    return played


def _swiss(club: Club, organiser: Player, members: list[Player], report: DemoReport) -> Competition:
    """Seven bots, each member's of each built-in strategy in turn: an odd field, so each round has a bye."""
    spec = SWISS
    competition = _created(
        spec,
        club,
        organiser,
        report,
        options=spec.options,
        format="swiss",
        cut_to=SWISS_CUT,
        cut_format="double_elimination",
    )
    if competition.status == Competition.Status.OPEN:
        _enter_bots(competition, members, SWISS_BOTS, report)
        competition = competition_start(competition=competition)
    return competition


def _enter_bots(competition: Competition, members: list[Player], count: int, report: DemoReport) -> None:
    """``count`` bots, each member's of each built-in strategy in turn."""
    entered = set(competition.entrants.values_list("bot_version_id", flat=True))
    for owner, strategy in islice(product(members, strategies(competition.game)), count):
        version = _bot_version(owner, competition.game, strategy, report)
        if version.pk not in entered:
            entrant_join(competition=competition, bot_version=version)


def _cup(
    spec: DemoCompetition,
    bots: int,
    club: Club,
    organiser: Player,
    members: list[Player],
    report: DemoReport,
    **settings: Any,
) -> Competition:
    """A single elimination of bots seeded by rating, entered now and started once the leagues are played."""
    competition = _created(
        spec,
        club,
        organiser,
        report,
        format="single_elimination",
        players_per_match=spec.players_per_match,
        games_per_match=spec.games_per_match,
        seeding=Competition.Seeding.RATING,
        **settings,
    )
    if competition.status == Competition.Status.OPEN:
        _enter_bots(competition, members, bots, report)
    return competition


def _started(competition: Competition) -> Competition:
    if competition.status == Competition.Status.OPEN:
        return competition_start(competition=competition)
    return competition


def _separation(club: Club, organiser: Player, report: DemoReport) -> Competition:
    """Two of the demo login's bots, with bounds wide enough to decide in a few dozen games."""
    spec = SEPARATION
    competition = _created(
        spec,
        club,
        organiser,
        report,
        format="separation",
        games_per_match=spec.games_per_match,
        sprt_elo1=200.0,
        sprt_max_games=400,
    )
    if competition.status == Competition.Status.OPEN:
        entered = set(competition.entrants.values_list("bot_version_id", flat=True))
        for strategy in SEPARATION_BOTS:
            version = _bot_version(organiser, spec.game, strategy, report)
            if version.pk not in entered:
                entrant_join(competition=competition, bot_version=version)
        competition = competition_start(competition=competition)
    return competition


def _play_round_by_round(competition: Competition, say: Callable[[str], None]) -> int:
    """Each round, then the next one its results make, until the last (recording makes each)."""
    played = 0
    while (round_played := competition_play_pending(competition=competition)) > 0:
        played += round_played
    if played:
        say(f"played {played} matches of {competition.name} over {competition.rounds.count()} rounds")
    return played
