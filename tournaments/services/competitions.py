"""Creating, entering, starting and cancelling competitions.

Each change locks the competition row FOR NO KEY UPDATE, as recording does
(services/results.py, ``_lock_clause``): they all wait for one another, but not
for the foreign-key checks of other transactions' match rows.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from enum import Enum, auto
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine.errors import EngineError
from engine.games import game_names, get_game, seats_for
from league.errors import Conflict
from league.models import BotVersion, Club, Membership, Player
from tournaments.knockout import Settings, settings_errors
from tournaments.models import Competition, Entrant, Match, Standing
from tournaments.pairing import (
    CHALLENGE_LADDER,
    COMPETITION_FORMATS,
    DOUBLE_ELIMINATION,
    FORMATS,
    KNOCKOUTS,
    RATING_LADDER,
    SEPARATION,
    SWISS,
    Knockout,
    PairingError,
    Table,
    is_ladder,
)
from tournaments.services.challenge_decisions import challenges_cancel, ladder_order, ladder_places_set, table_changed
from tournaments.services.knockout_rounds import knockout_seeds
from tournaments.services.ladder_seeding import ladder_seeding
from tournaments.services.round_rows import rounds_create
from tournaments.services.scheduling import matches_release, round_release
from tournaments.services.separation import separation_settings
from tournaments.services.swiss_rounds import byes_award
from tournaments.swiss import swiss_rounds


def validate_ruleset(*, game: str, options: Mapping[str, object] | None, players_per_match: int) -> dict[str, object]:
    """The engine's complete ruleset for these options, or a ValidationError naming the bad field."""
    if game not in game_names():
        raise ValidationError({"game": f"unknown game {game!r}: choose one of {', '.join(game_names())}"})
    engine_game = get_game(game)
    if not isinstance(options, Mapping):
        raise ValidationError({"options": "expected an object of option names and values"})
    try:
        seats = seats_for(engine_game, players_per_match, options)
    except EngineError as exc:
        raise ValidationError({"options": str(exc)}) from None
    if not engine_game.MIN_PLAYERS <= seats <= engine_game.MAX_PLAYERS:
        raise ValidationError(
            {
                "players_per_match": f"{game} seats {engine_game.MIN_PLAYERS} to {engine_game.MAX_PLAYERS} "
                f"at a table, not {seats}"
            }
        )
    try:
        return dict(engine_game.parse_options(options, seats))
    except EngineError as exc:
        raise ValidationError({"options": str(exc)}) from None


def competition_create(
    *,
    club: Club,
    created_by: Player,
    name: str,
    game: str,
    options: Mapping[str, object] | None = None,
    kind: str = Competition.Kind.LEAGUE,
    format: str = Competition.Format.ROUND_ROBIN,
    players_per_match: int = 2,
    games_per_match: int = 1,
    max_entrants: int | None = None,
    seed: int | None = None,
    people_play: str = Competition.PeoplePlay.LIVE,
    move_seconds: int = 300,
    game_seconds: int = 3600,
    live_tables_public: bool = True,
    challenge_reach: int = 3,
    challenge_days: int = 7,
    ladder_rounds: int | None = None,
    round_count: int | None = None,
    bye_points: str = Competition.ByePoints.WIN,
    duplicate_deals: bool = False,
    sprt_elo0: float = 0.0,
    sprt_elo1: float = 50.0,
    sprt_alpha: float = 0.05,
    sprt_beta: float = 0.05,
    sprt_max_games: int = 2000,
    advance_count: int = 1,
    third_place: bool = False,
    seeding: str = Competition.Seeding.ENTRY,
    seeded_from: Competition | None = None,
    cut_to: int | None = None,
    cut_format: str = "",
) -> Competition:
    errors: dict[str, str] = {}
    if people_play not in Competition.PeoplePlay.values:
        errors["people_play"] = f"choose one of {', '.join(Competition.PeoplePlay.values)}"
    if move_seconds < 1:
        errors["move_seconds"] = "must be at least 1"
    if game_seconds < move_seconds:
        errors["game_seconds"] = "must be at least move_seconds: a game's time holds at least one decision"
    if kind not in Competition.Kind.values:
        errors["kind"] = f"choose one of {', '.join(Competition.Kind.values)}"
    if format not in COMPETITION_FORMATS:
        errors["format"] = f"choose one of {', '.join(COMPETITION_FORMATS)}"
    errors.update(_ladder_setting_errors(format, players_per_match, challenge_reach, challenge_days, ladder_rounds))
    errors.update(_swiss_setting_errors(format, round_count, bye_points))
    errors.update(_duplicate_errors(duplicate_deals, games_per_match, players_per_match, people_play))
    errors.update(
        _knockout_setting_errors(
            KnockoutChoice(format, players_per_match, advance_count, third_place, cut_to, cut_format, max_entrants),
            club=club,
            game=game,
            seeding=seeding,
            seeded_from=seeded_from,
        )
    )
    if format == SEPARATION and players_per_match != 2:
        errors["players_per_match"] = "play to separation is between two entrants at a table of two"
    if not 1 <= games_per_match <= 1000:
        errors["games_per_match"] = "must be between 1 and 1000"
    if max_entrants is not None and max_entrants < players_per_match:
        errors["max_entrants"] = f"must leave room for at least one match of {players_per_match}"
    if errors:
        raise ValidationError(errors)
    separation_settings(elo0=sprt_elo0, elo1=sprt_elo1, alpha=sprt_alpha, beta=sprt_beta, max_games=sprt_max_games)
    ruleset = validate_ruleset(game=game, options=options or {}, players_per_match=players_per_match)
    with transaction.atomic():
        competition = Competition.objects.create(
            club=club,
            created_by=created_by,
            name=name,
            game=game,
            options=ruleset,
            kind=kind,
            format=format,
            players_per_match=players_per_match,
            games_per_match=games_per_match,
            max_entrants=max_entrants,
            seed=secrets.randbits(62) if seed is None else seed,
            people_play=people_play,
            move_seconds=move_seconds,
            game_seconds=game_seconds,
            live_tables_public=live_tables_public,
            challenge_reach=challenge_reach,
            challenge_days=challenge_days,
            ladder_rounds=ladder_rounds,
            round_count=round_count,
            bye_points=bye_points,
            duplicate_deals=duplicate_deals,
            sprt_elo0=sprt_elo0,
            sprt_elo1=sprt_elo1,
            sprt_alpha=sprt_alpha,
            sprt_beta=sprt_beta,
            sprt_max_games=sprt_max_games,
            advance_count=advance_count,
            third_place=third_place,
            seeding=seeding,
            seeded_from=seeded_from,
            cut_to=cut_to,
            cut_format=cut_format,
        )
        competition.organisers.add(created_by)
    return competition


def _ladder_setting_errors(
    format: str, players_per_match: int, challenge_reach: int, challenge_days: int, ladder_rounds: int | None
) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not 1 <= challenge_reach <= 100:
        errors["challenge_reach"] = "must be between 1 and 100"
    if not 1 <= challenge_days <= 365:
        errors["challenge_days"] = "must be between 1 and 365"
    if ladder_rounds is not None and format != RATING_LADDER:
        errors["ladder_rounds"] = "only a rating ladder has a number of rounds; leave it out"
    if ladder_rounds is not None and not 1 <= ladder_rounds <= 1_000_000:
        errors["ladder_rounds"] = "must be between 1 and 1000000"
    return errors


def _duplicate_errors(
    duplicate: bool, games_per_match: int, players_per_match: int, people_play: str
) -> dict[str, str]:
    if not duplicate:
        return {}
    if people_play == Competition.PeoplePlay.TRANSCRIPT:
        return {"duplicate_deals": 'duplicate deals are dealt by the server: not with people_play "transcript"'}
    if games_per_match % players_per_match:
        return {
            "duplicate_deals": f"each deal is played from all {players_per_match} rotations of the seats: "
            f"games_per_match must be a multiple of {players_per_match}, not {games_per_match}"
        }
    return {}


class KnockoutChoice(NamedTuple):
    """A competition's knockout settings: its own, if it is a knockout, or those of the knockout it cuts to."""

    format: str
    players_per_match: int
    advance_count: int
    third_place: bool
    cut_to: int | None
    cut_format: str
    max_entrants: int | None = None


#: The formats that can be a first stage, cutting to a knockout.
STAGE_FORMATS = ("round_robin", "double_round_robin", SWISS)


def _knockout_setting_errors(
    choice: KnockoutChoice, *, club: Club, game: str, seeding: str, seeded_from: Competition | None
) -> dict[str, str]:
    errors: dict[str, str] = {}
    if choice.cut_to is not None or choice.cut_format:
        errors.update(_cut_errors(choice))
    knockout = choice.format if choice.format in KNOCKOUTS else choice.cut_format
    if knockout in KNOCKOUTS:
        settings = Settings(
            choice.players_per_match, choice.advance_count, knockout == DOUBLE_ELIMINATION, choice.third_place
        )
        errors.update(settings_errors(settings))
    else:
        if choice.advance_count != 1:
            errors["advance_count"] = "only a knockout (or a stage that cuts to one) sends entrants on; leave it out"
        if choice.third_place:
            errors["third_place"] = "only a knockout (or a stage that cuts to one) has a third-place match"
    if seeding not in Competition.Seeding.values:
        errors["seeding"] = f"choose one of {', '.join(Competition.Seeding.values)}"
    elif seeding != Competition.Seeding.ENTRY and choice.format not in KNOCKOUTS:
        errors["seeding"] = "only a knockout is seeded; leave it out"
    elif (seeding == Competition.Seeding.STANDINGS) != (seeded_from is not None):
        errors["seeded_from"] = 'give the competition to seed from exactly when seeding is "standings"'
    elif seeded_from is not None and (seeded_from.club_id != club.pk or seeded_from.game != game):
        errors["seeded_from"] = f"seed from a competition of the same club and game ({game})"
    return errors


def _cut_errors(choice: KnockoutChoice) -> dict[str, str]:
    if choice.format not in STAGE_FORMATS:
        return {"cut_to": f"only a {', '.join(STAGE_FORMATS)} stage cuts to a knockout"}
    if choice.cut_format not in KNOCKOUTS:
        return {"cut_format": f"choose the knockout to cut to: {', '.join(KNOCKOUTS)}"}
    if choice.cut_to is None or not choice.players_per_match <= choice.cut_to <= 1024:
        return {"cut_to": f"how many go on to the knockout: between {choice.players_per_match} and 1024"}
    if choice.max_entrants is not None and choice.cut_to > choice.max_entrants:
        return {"cut_to": f"more go on ({choice.cut_to}) than may enter (max_entrants {choice.max_entrants})"}
    return {}


def _swiss_setting_errors(format: str, round_count: int | None, bye_points: str) -> dict[str, str]:
    errors: dict[str, str] = {}
    if round_count is not None and format != SWISS:
        errors["round_count"] = "only a Swiss has a number of rounds to set; leave it out"
    elif round_count is not None and not 1 <= round_count <= 1000:
        errors["round_count"] = "must be between 1 and 1000"
    if bye_points not in Competition.ByePoints.values:
        errors["bye_points"] = f"choose one of {', '.join(Competition.ByePoints.values)}"
    return errors


def entrant_join(
    *, competition: Competition, bot_version: BotVersion | None = None, player: Player | None = None
) -> Entrant:
    """Enter a bot version or a person; refused once the competition has started or is full.

    A person must be a member of the competition's club; a bot cannot enter a competition played with
    real cards (people_play "transcript"). A running ladder takes entrants too: a challenge ladder at the
    bottom, a rating ladder (bots only) into its next round's pairing, where a bot's newer version
    replaces the one it had entered.
    """
    if (bot_version is None) == (player is None):
        raise ValidationError({"entrant": "give exactly one of a bot version or a player"})
    with transaction.atomic():
        # Lock the competition so two joins cannot both take the last place.
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        running_ladder = is_ladder(locked.format) and locked.status == Competition.Status.RUNNING
        if locked.status != Competition.Status.OPEN and not running_ladder:
            raise ValidationError({"competition": f"entries are closed: the competition is {locked.status}"})
        if locked.format == RATING_LADDER and player is not None:
            raise ValidationError({"player": "a rating ladder is for bots: people play in a challenge ladder"})
        if locked.max_entrants is not None and locked.entrants.count() >= locked.max_entrants:
            raise ValidationError({"competition": f"the entrant list is full ({locked.max_entrants})"})
        if bot_version is not None:
            _check_bot_version(locked, bot_version)
            name = f"{bot_version.bot.name} v{bot_version.number}"
        elif player is not None:
            _check_person(locked, player)
            if locked.duplicate_deals:
                # A deal comes back from another seat in the same match: a person would remember it.
                raise ValidationError(
                    {
                        "player": "this competition plays duplicate deals, which are for bots: a person would "
                        "remember each deal from its earlier rotation"
                    }
                )
            name = player.display_name
        try:
            with transaction.atomic():
                entrant = Entrant.objects.create(competition=locked, bot_version=bot_version, player=player, name=name)
        except IntegrityError:
            raise ValidationError({"entrant": f"{name} has already joined this competition"}) from None
        if running_ladder:
            _join_running_ladder(locked, entrant)
        return entrant


def _join_running_ladder(competition: Competition, entrant: Entrant) -> None:
    """A place at the bottom (challenge ladder) and a standings row; on a rating ladder, the bot's
    older versions leave it (their results stay)."""
    Standing.objects.create(competition=competition, entrant=entrant)
    if competition.format == CHALLENGE_LADDER:
        ladder_places_set(competition.pk, [*ladder_order(competition.pk), entrant.pk])
        return
    table_changed(competition.pk)
    if entrant.bot_version is not None:
        Entrant.objects.filter(
            competition=competition, bot_version__bot_id=entrant.bot_version.bot_id, left_at__isnull=True
        ).exclude(pk=entrant.pk).update(left_at=timezone.now())


def is_club_member(*, club_id: int, player: Player) -> bool:
    return Membership.objects.filter(club_id=club_id, player=player).exists()


def _check_person(competition: Competition, player: Player) -> None:
    # People play in their own club's competitions only (issue 10, "Who may enter"), whoever enters them.
    if not is_club_member(club_id=competition.club_id, player=player):
        raise ValidationError({"player": f"{player.display_name} is not a member of {competition.club.name}"})


def _check_bot_version(competition: Competition, version: BotVersion) -> None:
    if competition.people_play == Competition.PeoplePlay.TRANSCRIPT:
        # Its matches are played at a real table and reported by transcript: there is no seat for a bot.
        raise ValidationError({"bot_version": "this competition is played with real cards: only people enter"})
    if version.bot.game != competition.game:
        raise ValidationError({"bot_version": f"this bot plays {version.bot.game}, not {competition.game}"})
    if version.status != BotVersion.Status.READY:
        raise ValidationError({"bot_version": f"only ready versions can enter; this one is {version.status}"})
    if version.bot.retired_at is not None:
        raise ValidationError({"bot_version": "this bot is retired"})


def competition_start(*, competition: Competition, order: Sequence[int] | None = None) -> Competition:
    """Close entries, build every round of the schedule and open a standings row per entrant.

    A Swiss has its first round paired from the entry order (byes scored at once), and plays
    ``round_count`` rounds, by default ceil(log2 entrants), each paired when the one before it is over
    (services/swiss_rounds.py).

    A ladder has no schedule: a challenge ladder takes its first places from ``order`` (entrant ids,
    top first) or else from its entrants' ratings (services/ladder_seeding.py); a rating ladder's
    first round comes with Celery beat's next tick.
    """
    with transaction.atomic():
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        if locked.status != Competition.Status.OPEN:
            raise ValidationError({"competition": f"only an open competition can start; this one is {locked.status}"})
        entrants = list(locked.entrants.order_by("id").values_list("id", flat=True))
        if order is not None and locked.format not in (CHALLENGE_LADDER, *KNOCKOUTS):
            raise ValidationError(
                {"order": "only a challenge ladder or a knockout starts from an order of its entrants"}
            )
        if is_ladder(locked.format):
            return _start_ladder(locked, entrants, order)
        if locked.cut_to is not None and locked.cut_to > len(entrants):
            raise ValidationError(
                {"cut_to": f"{locked.cut_to} are to go on to the knockout, and only {len(entrants)} have entered"}
            )
        schedule = _first_rounds(locked, entrants, order)
        rounds_create(locked, 1, schedule)
        Standing.objects.bulk_create(Standing(competition=locked, entrant_id=e) for e in entrants)
        # A table read before the start (empty) must not be served from the cache after it.
        table_changed(locked.pk)
        locked.refresh_from_db(fields=["results_version"])
        if locked.format == SWISS:
            seated = {entrant for table in schedule[0] for entrant in table}
            byes_award(locked, [e for e in entrants if e not in seated])
            locked.round_count = locked.round_count or swiss_rounds(len(entrants))
        locked.status = Competition.Status.RUNNING
        locked.started_at = timezone.now()
        locked.save(update_fields=["status", "started_at", "round_count"])
        # The workers take it from here: a fixed schedule all at once (ratings still apply in
        # round order, results.py), a round-by-round format one round at a time.
        if FORMATS[locked.format].pairs_round_by_round:
            first_round = locked.rounds.order_by("number").first()
            if first_round is not None:
                round_release(round_=first_round)
        else:
            matches_release(match_ids=list(locked.matches.order_by("round__number", "id").values_list("id", flat=True)))
    return locked


def _first_rounds(competition: Competition, entrants: list[int], order: Sequence[int] | None) -> list[list[Table]]:
    """The rounds known at the start: a knockout's first, from its seeds; the format's schedule otherwise."""
    try:
        pairing = FORMATS[competition.format]
        if isinstance(pairing, Knockout):
            if len(entrants) < competition.players_per_match:
                raise PairingError(f"a knockout of tables of {competition.players_per_match} needs as many entrants")
            seeds = knockout_seeds(competition, entrants, order)
            return pairing.schedule(seeds, competition.players_per_match, advance=competition.advance_count)
        return pairing.schedule(entrants, competition.players_per_match)
    except PairingError as exc:
        raise ValidationError({"entrants": str(exc)}) from None


def _start_ladder(competition: Competition, entrants: list[int], order: Sequence[int] | None) -> Competition:
    # No minimum: a ladder opens and fills as entrants join it while it runs.
    if competition.format == CHALLENGE_LADDER:
        ladder_places_set(competition.pk, _first_places(competition, entrants, order))
    Standing.objects.bulk_create(Standing(competition=competition, entrant_id=e) for e in entrants)
    table_changed(competition.pk)
    competition.refresh_from_db(fields=["results_version"])
    competition.status = Competition.Status.RUNNING
    competition.started_at = timezone.now()
    competition.save(update_fields=["status", "started_at"])
    return competition


def _first_places(competition: Competition, entrants: list[int], order: Sequence[int] | None) -> list[int]:
    if order is None:
        return ladder_seeding(competition, entrants)
    if sorted(order) != sorted(entrants) or len(set(order)) != len(order):
        raise ValidationError({"order": "list every entrant's id exactly once, top place first"})
    return list(order)


def competition_cancel(*, competition: Competition) -> Competition:
    """Stop a competition: its pending matches are cancelled; recorded results stay."""
    with transaction.atomic():
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        if locked.status in (Competition.Status.FINISHED, Competition.Status.CANCELLED):
            raise ValidationError({"competition": f"the competition is already {locked.status}"})
        # Live matches stop too: nobody may go on moving at a table whose competition is over.
        locked.matches.filter(status__in=[Match.Status.PENDING, Match.Status.ERROR, Match.Status.LIVE]).update(
            status=Match.Status.CANCELLED
        )
        challenges_cancel(competition_id=locked.pk, why="the competition was cancelled")
        locked.status = Competition.Status.CANCELLED
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "finished_at"])
    return locked


class Unchanged(Enum):
    """Marks an optional argument the caller left alone, where None is itself a value (no entrant limit)."""

    UNCHANGED = auto()


UNCHANGED = Unchanged.UNCHANGED


def competition_update(
    *,
    competition: Competition,
    name: str | None = None,
    options: Mapping[str, object] | None = None,
    games_per_match: int | None = None,
    max_entrants: int | Unchanged | None = UNCHANGED,
    people_play: str | None = None,
    move_seconds: int | None = None,
    game_seconds: int | None = None,
    live_tables_public: bool | None = None,
    referees: Sequence[Player] | None = None,
    challenge_reach: int | None = None,
    challenge_days: int | None = None,
    ladder_rounds: int | Unchanged | None = UNCHANGED,
    duplicate_deals: bool | None = None,
    advance_count: int | None = None,
    third_place: bool | None = None,
    seeding: str | None = None,
    seeded_from: Competition | Unchanged | None = UNCHANGED,
    cut_to: int | Unchanged | None = UNCHANGED,
    cut_format: str | None = None,
) -> Competition:
    """Rename a competition, show or hide its live tables, and name its referees at any time; its rules,
    size and clocks only while entries are open (a live table's deadlines are set by the clocks it began with).

    A ladder's settings change at any time: a challenge already issued keeps its deadline, and a rating
    ladder given fewer rounds than it has played finishes with its current round.
    """
    with transaction.atomic():
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        changed: list[str] = []
        rules_changed = {
            "options": options is not None,
            "games_per_match": games_per_match is not None,
            "max_entrants": max_entrants is not UNCHANGED,
            "people_play": people_play is not None,
            "move_seconds": move_seconds is not None,
            "game_seconds": game_seconds is not None,
            "duplicate_deals": duplicate_deals is not None,
            "advance_count": advance_count is not None,
            "third_place": third_place is not None,
            "seeding": seeding is not None,
            "seeded_from": seeded_from is not UNCHANGED,
            "cut_to": cut_to is not UNCHANGED,
            "cut_format": cut_format is not None,
        }
        if locked.status != Competition.Status.OPEN:
            closed = {
                field: f"can change only while entries are open; the competition is {locked.status}"
                for field, wanted in rules_changed.items()
                if wanted
            }
            if closed:
                raise ValidationError(closed)
        if name is not None:
            locked.name = name
            changed.append("name")
        if games_per_match is not None:
            if not 1 <= games_per_match <= 1000:
                raise ValidationError({"games_per_match": "must be between 1 and 1000"})
            locked.games_per_match = games_per_match
            changed.append("games_per_match")
        if not isinstance(max_entrants, Unchanged):
            if max_entrants is not None:
                _check_room(locked, max_entrants)
            locked.max_entrants = max_entrants
            changed.append("max_entrants")
        for field, value in (
            ("people_play", people_play),
            ("move_seconds", move_seconds),
            ("game_seconds", game_seconds),
            ("live_tables_public", live_tables_public),
            ("duplicate_deals", duplicate_deals),
            ("challenge_reach", challenge_reach),
            ("challenge_days", challenge_days),
            ("advance_count", advance_count),
            ("third_place", third_place),
            ("seeding", seeding),
            ("cut_format", cut_format),
        ):
            if value is not None:
                setattr(locked, field, value)
                changed.append(field)
        for field, maybe in (("ladder_rounds", ladder_rounds), ("seeded_from", seeded_from), ("cut_to", cut_to)):
            if not isinstance(maybe, Unchanged):
                setattr(locked, field, maybe)
                changed.append(field)
        knockout_errors = _knockout_setting_errors(
            KnockoutChoice(
                locked.format,
                locked.players_per_match,
                locked.advance_count,
                locked.third_place,
                locked.cut_to,
                locked.cut_format,
                locked.max_entrants,
            ),
            club=locked.club,
            game=locked.game,
            seeding=locked.seeding,
            seeded_from=locked.seeded_from,
        )
        if locked.seeded_from_id == locked.pk:
            knockout_errors["seeded_from"] = "a competition cannot be seeded by its own standings"
        if knockout_errors:
            raise ValidationError(knockout_errors)
        _check_play_settings(locked)
        ladder_errors = _ladder_setting_errors(
            locked.format, locked.players_per_match, locked.challenge_reach, locked.challenge_days, locked.ladder_rounds
        )
        if ladder_errors:
            raise ValidationError(ladder_errors)
        duplicate_errors = _duplicate_errors(
            locked.duplicate_deals, locked.games_per_match, locked.players_per_match, locked.people_play
        )
        if locked.duplicate_deals and locked.entrants.filter(player__isnull=False).exists():
            duplicate_errors["duplicate_deals"] = "people have entered: duplicate deals are for bots"
        if duplicate_errors:
            raise ValidationError(duplicate_errors)
        if referees is not None:
            _set_referees(locked, referees)
        if options is not None:
            locked.options = validate_ruleset(
                game=locked.game, options=options, players_per_match=locked.players_per_match
            )
            changed.append("options")
        if changed:
            locked.save(update_fields=changed)
    return locked


def _check_play_settings(competition: Competition) -> None:
    if competition.people_play not in Competition.PeoplePlay.values:
        raise ValidationError({"people_play": f"choose one of {', '.join(Competition.PeoplePlay.values)}"})
    if competition.game_seconds < competition.move_seconds:
        raise ValidationError({"game_seconds": "must be at least move_seconds: a game's time holds one decision"})


def _set_referees(competition: Competition, referees: Sequence[Player]) -> None:
    # The memberships read are locked until the naming commits: a removal (whose named_staff_forget takes the
    # names away) waits for it and then takes this one too, or went first and its member is refused here.
    # Otherwise a removal between this check and referees.set() would leave a non-member named.
    members = set(
        Membership.objects.select_for_update()
        .filter(club_id=competition.club_id, player__in=[p.pk for p in referees])
        .values_list("player_id", flat=True)
    )
    outsiders = [p.display_name for p in referees if p.pk not in members]
    if outsiders:
        raise ValidationError({"referees": f"not members of {competition.club.name}: {', '.join(outsiders)}"})
    competition.referees.set(referees)


def _check_room(competition: Competition, max_entrants: int) -> None:
    if max_entrants < competition.players_per_match:
        raise ValidationError(
            {"max_entrants": f"must leave room for at least one match of {competition.players_per_match}"}
        )
    entered = competition.entrants.count()
    if max_entrants < entered:
        raise ValidationError({"max_entrants": f"{entered} entrants have already joined"})


def entrant_withdraw(*, entrant: Entrant) -> None:
    """An entrant leaves (or is removed) before the start; afterwards the schedule names it.

    A running ladder lets entrants leave: they play no more and keep their results; on a challenge
    ladder those below move up a place, and one in an open challenge must see it decided first.
    """
    with transaction.atomic():
        # The same lock as joining and starting, so a start cannot schedule an entrant that is leaving.
        locked = Competition.objects.select_for_update(no_key=True).get(pk=entrant.competition_id)
        if is_ladder(locked.format) and locked.status == Competition.Status.RUNNING:
            _leave_ladder(locked, entrant)
            return
        if locked.status != Competition.Status.OPEN:
            raise ValidationError(
                {"competition": f"entrants can leave only before the start; the competition is {locked.status}"}
            )
        Entrant.objects.filter(pk=entrant.pk).delete()


def _leave_ladder(competition: Competition, entrant: Entrant) -> None:
    current = Entrant.objects.get(pk=entrant.pk)
    if current.left_at is not None:
        raise Conflict(f"{current.name} has already left this ladder")
    if current.challenge_sides.filter(open=True).exists():
        raise Conflict(f"{current.name} is in an open challenge: it can leave once that is decided")
    order = [e for e in ladder_order(competition.pk) if e != current.pk]
    Entrant.objects.filter(pk=current.pk).update(left_at=timezone.now(), position=None)
    ladder_places_set(competition.pk, order)  # a new results version even where no place is kept
