"""Creating, entering, starting and cancelling competitions.

Each change locks the competition row FOR NO KEY UPDATE, as recording does
(services/results.py, ``_lock_clause``): they all wait for one another, but not
for the foreign-key checks of other transactions' match rows.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from enum import Enum, auto

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine.errors import EngineError
from engine.games import game_names, get_game, seats_for
from engine.rng import derive_seed
from league.models import BotVersion, Club, Membership, Player
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Round, Standing
from tournaments.pairing import FORMATS, PairingError
from tournaments.services.scheduling import matches_release, round_release


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
    if format not in FORMATS:
        errors["format"] = f"choose one of {', '.join(FORMATS)}"
    if not 1 <= games_per_match <= 1000:
        errors["games_per_match"] = "must be between 1 and 1000"
    if max_entrants is not None and max_entrants < players_per_match:
        errors["max_entrants"] = f"must leave room for at least one match of {players_per_match}"
    if errors:
        raise ValidationError(errors)
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
        )
        competition.organisers.add(created_by)
    return competition


def entrant_join(
    *, competition: Competition, bot_version: BotVersion | None = None, player: Player | None = None
) -> Entrant:
    """Enter a bot version or a person; refused once the competition has started or is full.

    A person must be a member of the competition's club; a bot cannot enter a competition played with
    real cards (people_play "transcript").
    """
    if (bot_version is None) == (player is None):
        raise ValidationError({"entrant": "give exactly one of a bot version or a player"})
    with transaction.atomic():
        # Lock the competition so two joins cannot both take the last place.
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        if locked.status != Competition.Status.OPEN:
            raise ValidationError({"competition": f"entries are closed: the competition is {locked.status}"})
        if locked.max_entrants is not None and locked.entrants.count() >= locked.max_entrants:
            raise ValidationError({"competition": f"the entrant list is full ({locked.max_entrants})"})
        if bot_version is not None:
            _check_bot_version(locked, bot_version)
            name = f"{bot_version.bot.name} v{bot_version.number}"
        elif player is not None:
            _check_person(locked, player)
            name = player.display_name
        try:
            with transaction.atomic():
                return Entrant.objects.create(competition=locked, bot_version=bot_version, player=player, name=name)
        except IntegrityError:
            raise ValidationError({"entrant": f"{name} has already joined this competition"}) from None


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


def competition_start(*, competition: Competition) -> Competition:
    """Close entries, build every round of the schedule and open a standings row per entrant."""
    with transaction.atomic():
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        if locked.status != Competition.Status.OPEN:
            raise ValidationError({"competition": f"only an open competition can start; this one is {locked.status}"})
        entrants = list(locked.entrants.order_by("id").values_list("id", flat=True))
        try:
            schedule = FORMATS[locked.format].schedule(entrants, locked.players_per_match)
        except PairingError as exc:
            raise ValidationError({"entrants": str(exc)}) from None
        _create_schedule(locked, schedule)
        Standing.objects.bulk_create(Standing(competition=locked, entrant_id=e) for e in entrants)
        locked.status = Competition.Status.RUNNING
        locked.started_at = timezone.now()
        locked.save(update_fields=["status", "started_at"])
        # The workers take it from here: a fixed schedule all at once (ratings still apply in
        # round order, results.py), a round-by-round format one round at a time.
        if FORMATS[locked.format].pairs_round_by_round:
            first_round = locked.rounds.order_by("number").first()
            if first_round is not None:
                round_release(round_=first_round)
        else:
            matches_release(match_ids=list(locked.matches.order_by("round__number", "id").values_list("id", flat=True)))
    return locked


def _create_schedule(competition: Competition, schedule: list[list[tuple[int, ...]]]) -> None:
    rounds = Round.objects.bulk_create(
        Round(competition=competition, number=number) for number in range(1, len(schedule) + 1)
    )
    people = set(competition.entrants.filter(player__isnull=False).values_list("id", flat=True))
    matches = Match.objects.bulk_create(
        Match(
            competition=competition,
            round=round_,
            number=number,
            seed=match_seed(competition, round_.number, number, seats_a_person=not people.isdisjoint(table)),
        )
        for round_, tables in zip(rounds, schedule, strict=True)
        for number, table in enumerate(tables, start=1)
    )
    tables = [table for tables in schedule for table in tables]
    MatchParticipant.objects.bulk_create(
        MatchParticipant(match=match, entrant_id=entrant, seat=seat)
        for match, table in zip(matches, tables, strict=True)
        for seat, entrant in enumerate(table)
    )


def match_seed(competition: Competition, round_number: int, number: int, *, seats_a_person: bool) -> int:
    """A bot-only match's seed derives from the competition's, so a chosen seed replays the competition.

    A match that seats a person gets a fresh secret seed instead (DESIGN.md, "Seeds stay secret until
    the end"): an organiser may choose the competition's seed, and must learn nothing of a person's deal.
    """
    if seats_a_person:
        return secrets.randbits(62)
    return derive_seed(competition.seed, f"round/{round_number}/match/{number}")


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
) -> Competition:
    """Rename a competition, show or hide its live tables, and name its referees at any time; its rules,
    size and clocks only while entries are open (a live table's deadlines are set by the clocks it began with).
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
        ):
            if value is not None:
                setattr(locked, field, value)
                changed.append(field)
        _check_play_settings(locked)
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
    members = set(Membership.objects.filter(club_id=competition.club_id).values_list("player_id", flat=True))
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
    """An entrant leaves (or is removed) before the start; afterwards the schedule names it."""
    with transaction.atomic():
        # The same lock as joining and starting, so a start cannot schedule an entrant that is leaving.
        locked = Competition.objects.select_for_update(no_key=True).get(pk=entrant.competition_id)
        if locked.status != Competition.Status.OPEN:
            raise ValidationError(
                {"competition": f"entrants can leave only before the start; the competition is {locked.status}"}
            )
        Entrant.objects.filter(pk=entrant.pk).delete()
