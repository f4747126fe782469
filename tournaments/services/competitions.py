"""Creating, entering, starting and cancelling competitions.

Each change locks the competition row FOR NO KEY UPDATE, as recording does
(services/results.py, ``_lock_clause``): they all wait for one another, but not
for the foreign-key checks of other transactions' match rows.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import cast

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine.errors import EngineError
from engine.games import game_names, get_game, seats_for
from league.models import BotVersion, Club, Membership, Player
from tournaments import notices
from tournaments.formats.registry import DEFAULT_FORMAT, chosen_format, format_of
from tournaments.models import Competition, Entrant, Match, Standing
from tournaments.services.challenge_decisions import challenges_cancel, table_changed
from tournaments.services.competition_settings import settings_checked
from tournaments.services.live_turns import turns_withdrawn
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
    format: str = DEFAULT_FORMAT,
    options: Mapping[str, object] | None = None,
    seed: int | None = None,
    settings: Mapping[str, object] | None = None,
) -> Competition:
    """A new competition of ``format`` with ``settings``: those every competition has (its clocks, its size)
    and the format's own, each read against its declared spec (tournaments/formats/); a setting the format
    does not have, or a value out of bounds, is a ValidationError naming it."""
    chosen = chosen_format(format)
    if game not in game_names():
        raise ValidationError({"game": f"unknown game {game!r}: choose one of {', '.join(game_names())}"})
    common, own = settings_checked(format=chosen, given=settings or {}, club_id=club.pk, game=game, current=None)
    ruleset = validate_ruleset(
        game=game, options=options or {}, players_per_match=cast(int, common["players_per_match"])
    )
    with transaction.atomic():
        competition = Competition.objects.create(
            club=club,
            created_by=created_by,
            name=name,
            game=game,
            options=ruleset,
            format=chosen.key,
            settings=own,
            seed=secrets.randbits(62) if seed is None else seed,
            **common,
        )
        competition.organisers.add(created_by)
    return competition


def entrant_join(
    *, competition: Competition, bot_version: BotVersion | None = None, player: Player | None = None
) -> Entrant:
    """Enter a bot version or a person; refused once the competition has started or is full.

    A person must be a member of the competition's club; a bot cannot enter a competition played with
    real cards (people_play "transcript"). A format open while it runs (a ladder) takes entrants then too,
    as the format places them (tournaments/formats/).
    """
    if (bot_version is None) == (player is None):
        raise ValidationError({"entrant": "give exactly one of a bot version or a player"})
    with transaction.atomic():
        # Lock the competition so two joins cannot both take the last place.
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        format = format_of(locked)
        running = format.open_while_running and locked.status == Competition.Status.RUNNING
        if locked.status != Competition.Status.OPEN and not running:
            raise ValidationError({"competition": f"entries are closed: the competition is {locked.status}"})
        refusal = person_entry_refusal(locked) if player is not None else format.entrant_refusal(locked, person=False)
        if refusal:
            raise ValidationError({"player" if player is not None else "bot_version": refusal})
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
                entrant = Entrant.objects.create(competition=locked, bot_version=bot_version, player=player, name=name)
        except IntegrityError:
            raise ValidationError({"entrant": f"{name} has already joined this competition"}) from None
        if running:
            Standing.objects.create(competition=locked, entrant=entrant)
            format.joined_running(locked, entrant)
        return entrant


def person_entry_refusal(competition: Competition) -> str:
    """Why no person may enter ``competition`` whoever they are (its format, duplicate deals), or "": so a
    page offers no Enter button the service would refuse."""
    refusal = format_of(competition).entrant_refusal(competition, person=True)
    if refusal:
        return refusal
    if competition.duplicate_deals:
        # A deal comes back from another seat in the same match: a person would remember it.
        return (
            "this competition plays duplicate deals, which are for bots: a person would remember each deal from "
            "its earlier rotation"
        )
    return ""


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
    if version.suspended_at is not None:
        raise ValidationError({"bot_version": suspended_words(version)})


def suspended_words(version: BotVersion) -> str:
    return (
        f"{version.bot.name} v{version.number} is suspended for forfeiting most of its recent games: its owner "
        "may reinstate it on the bot's page"
    )


def competition_start(*, competition: Competition, order: Sequence[int] | None = None) -> Competition:
    """Close entries, make what the format makes at the start (tournaments/formats/) and open a standings row
    per entrant; then send the matches to the workers.

    A format paired round by round (a Swiss, a knockout) sends its first round; a fixed schedule (a round
    robin) goes out whole, so workers never idle at a round's end waiting for its slowest match (ratings
    still apply in round order, results.py). A ladder has no schedule: its matches come from challenges or
    from Celery beat's ticks. ``order`` (entrant ids) is a challenge ladder's first places or a knockout's
    seeds by hand.
    """
    with transaction.atomic():
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        if locked.status != Competition.Status.OPEN:
            raise ValidationError({"competition": f"only an open competition can start; this one is {locked.status}"})
        format = format_of(locked)
        if order is not None and not format.start_order:
            raise ValidationError({"order": f"the {format.label} format does not start from an order of its entrants"})
        suspended = list(
            BotVersion.objects.filter(entrant__competition=locked, suspended_at__isnull=False)
            .select_related("bot")
            .order_by("id")
        )
        if suspended:
            # Refused rather than started without it: its owner may reinstate it, or the organiser take its entry
            # out, and the draw (seeds, a round robin's schedule) is then made for whoever really plays.
            raise ValidationError({"competition": f"{suspended_words(suspended[0])}, or its entry be removed"})
        entrants = list(locked.entrants.order_by("id").values_list("id", flat=True))
        Standing.objects.bulk_create(Standing(competition=locked, entrant_id=e) for e in entrants)
        format.start(locked, entrants, order)
        # A table read before the start (empty) must not be served from the cache after it.
        table_changed(locked.pk)
        locked.refresh_from_db(fields=["results_version"])
        locked.status = Competition.Status.RUNNING
        locked.started_at = timezone.now()
        locked.save(update_fields=["status", "started_at", "settings"])
        notices.competition_started(locked)
        if format.pairs_round_by_round:
            first_round = locked.rounds.order_by("number").first()
            if first_round is not None:
                round_release(round_=first_round)
        else:
            matches_release(match_ids=list(locked.matches.order_by("round__number", "id").values_list("id", flat=True)))
    return locked


def competition_cancel(*, competition: Competition) -> Competition:
    """Stop a competition: its pending matches are cancelled; recorded results stay."""
    with transaction.atomic():
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        if locked.status in (Competition.Status.FINISHED, Competition.Status.CANCELLED):
            raise ValidationError({"competition": f"the competition is already {locked.status}"})
        # Live matches stop too: nobody may go on moving at a table whose competition is over.
        turns_withdrawn(competition_id=locked.pk)
        locked.matches.filter(status__in=[Match.Status.PENDING, Match.Status.ERROR, Match.Status.LIVE]).update(
            status=Match.Status.CANCELLED
        )
        challenges_cancel(competition_id=locked.pk, why="the competition was cancelled")
        locked.status = Competition.Status.CANCELLED
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "finished_at"])
    return locked


def competition_update(
    *,
    competition: Competition,
    name: str | None = None,
    options: Mapping[str, object] | None = None,
    referees: Sequence[Player] | None = None,
    settings: Mapping[str, object] | None = None,
) -> Competition:
    """Rename a competition and name its referees at any time; change its settings as each setting's spec says
    (tournaments/formats/): most only while entries are open (a schedule or a live table was made with
    them), some at any time (who may watch, a ladder's reach). The ruleset changes only while entries are
    open. A setting the format does not have, or one that may not change now, is a ValidationError naming it
    and saying why: nothing is ever dropped in silence.

    A ladder's settings change at any time: a challenge already issued keeps its deadline, and a rating
    ladder given fewer rounds than it has played finishes with its current round.
    """
    with transaction.atomic():
        locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
        changed: list[str] = []
        if options is not None and locked.status != Competition.Status.OPEN:
            raise ValidationError(
                {"options": f"can change only while entries are open; the competition is {locked.status}"}
            )
        if settings:
            common, own = settings_checked(
                format=format_of(locked), given=settings, club_id=locked.club_id, game=locked.game, current=locked
            )
            for field, value in common.items():
                if getattr(locked, field) != value:
                    setattr(locked, field, value)
                    changed.append(field)
            if own != locked.settings:
                locked.settings = own
                changed.append("settings")
        if name is not None:
            locked.name = name
            changed.append("name")
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


def entrant_withdraw(*, entrant: Entrant) -> None:
    """An entrant leaves (or is removed) before the start; afterwards the schedule names it.

    A format open while it runs (a ladder) lets entrants leave then, as the format says: they play no more
    and keep their results.
    """
    with transaction.atomic():
        # The same lock as joining and starting, so a start cannot schedule an entrant that is leaving.
        locked = Competition.objects.select_for_update(no_key=True).get(pk=entrant.competition_id)
        format = format_of(locked)
        if format.open_while_running and locked.status == Competition.Status.RUNNING:
            format.leaving_running(locked, entrant)
            return
        if locked.status != Competition.Status.OPEN:
            raise ValidationError(
                {"competition": f"entrants can leave only before the start; the competition is {locked.status}"}
            )
        Entrant.objects.filter(pk=entrant.pk).delete()
