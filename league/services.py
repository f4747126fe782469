"""Writes for people and programs. Keyword-only, typed, and the only place that saves these models."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from engine.bots import bot_names
from engine.games import game_names
from engine.netguard import BadBotUrl, parse_bot_url, resolve
from engine.sandbox import BadBotCode, bot_code
from league.errors import Conflict
from league.joining import check_role, club_set_role
from league.models import Bot, BotVersion, Club, Membership, NameClaim, Player
from league.names import free_variant, names_check, names_claim
from league.organiser_staff import staff_follows_organiser_role
from league.validation import validation_release


def player_create(*, username: str, display_name: str = "", password: str | None = None) -> Player:
    """A user and their player (the admin's "add player", the demo, the benchmarks); names as sign-up takes them."""
    User = get_user_model()
    display_name = display_name.strip() or username
    taken = ValidationError({"username": f"the username {username!r} is taken"})
    if User.objects.filter(username__iexact=username).exists():
        raise taken
    names_check(username=username, display_name=display_name)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            player = Player.objects.create(user=user, display_name=display_name)
            names_claim(player=player)
    except IntegrityError:
        # The same username in some case, made since the check: auth_user's unique lower(username) says no.
        raise taken from None
    return player


def player_sign_up(*, user: User, display_name: str = "") -> Player:
    """The player of a user who has just signed up, with their names claimed in the sign-up's transaction:
    a name another sign-up or rename took since the form checked it is a ValidationError naming the field."""
    display_name = display_name.strip() or user.get_username()
    names_check(username=user.get_username(), display_name=display_name)
    with transaction.atomic():
        player = Player.objects.create(user=user, display_name=display_name)
        names_claim(player=player)
    return player


#: Slugs no club may take: the site's /clubs/new/ is the form that creates one, not a club's page.
RESERVED_CLUB_SLUGS = frozenset({"new"})


def club_create(
    *,
    name: str,
    slug: str,
    organiser: Player,
    competition_creators: str = Club.CompetitionCreators.ORGANISERS,
    joining: str = Club.Joining.INVITATION,
) -> Club:
    """A new club with its first organiser; slugs are unique whatever their case (``demo`` is ``DEMO``)."""
    _check_choice("competition_creators", competition_creators, Club.CompetitionCreators.values)
    _check_choice("joining", joining, Club.Joining.values)
    if slug.lower() in RESERVED_CLUB_SLUGS:
        raise ValidationError({"slug": f"{slug!r} is kept for the site's own pages: choose another"})
    taken = ValidationError({"slug": f"the address {slug!r} is taken by another club"})
    if Club.objects.filter(slug__iexact=slug).exists():
        raise taken
    try:
        with transaction.atomic():
            club = Club.objects.create(name=name, slug=slug, competition_creators=competition_creators, joining=joining)
            Membership.objects.create(club=club, player=organiser, role=Membership.Role.ORGANISER)
            staff_follows_organiser_role(player=organiser)
    except IntegrityError:
        # Another club took it (in some case) since the check above: the constraint says no.
        raise taken from None
    return club


def club_update(
    *, club: Club, name: str | None = None, competition_creators: str | None = None, joining: str | None = None
) -> Club:
    """An organiser's change of the club's name, of who may create its competitions, or of how people join."""
    if competition_creators is not None:
        _check_choice("competition_creators", competition_creators, Club.CompetitionCreators.values)
        club.competition_creators = competition_creators
    if joining is not None:
        _check_choice("joining", joining, Club.Joining.values)
        club.joining = joining
    if name is not None:
        club.name = name
    club.save(update_fields=["name", "competition_creators", "joining"])
    return club


def _check_choice(field: str, value: str, choices: list[str]) -> None:
    if value not in choices:
        raise ValidationError({field: f"choose one of {', '.join(choices)}"})


def club_add_member(*, club: Club, player: Player, role: str = Membership.Role.MEMBER) -> Membership:
    """Make ``player`` a member at once, without asking them (a member already: their role is changed).

    For fixtures (the demo club, tests, benchmarks), for a superuser in the admin site, and for the
    account an organiser has just made there. No API path calls it (tests/test_architecture.py): an
    organiser invites a person, who becomes a member by accepting (league.personal_invitations).
    """
    check_role(role)
    with transaction.atomic():
        membership, created = Membership.objects.get_or_create(club=club, player=player, defaults={"role": role})
        if not created and membership.role != role:
            # Through the one rule of the roll: the club keeps an organiser (and staff status follows there).
            return club_set_role(club=club, player=player, role=role)
        if created and role == Membership.Role.ORGANISER:
            staff_follows_organiser_role(player=player)
    return membership


def bot_create(*, owner: Player, name: str, game: str, description: str = "") -> Bot:
    if game not in game_names():
        raise ValidationError({"game": f"unknown game {game!r}: choose one of {', '.join(game_names())}"})
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, name=name, game=game, description=description)
    except IntegrityError:
        raise ValidationError({"name": f"you already have a bot called {name!r}"}) from None


def bot_retire(*, bot: Bot) -> Bot:
    if bot.retired_at is None:
        bot.retired_at = timezone.now()
        bot.save(update_fields=["retired_at"])
    return bot


def bot_version_reinstate(*, version: BotVersion) -> BotVersion:
    """Its owner lets a suspended version play again (docs/bot-protocol.md, "When a bot breaks"): rating ladders
    pair it at their next tick and competitions take it again. The rule then counts only the games recorded from
    now on, so it is suspended again, and its owner told again, only if it goes on forfeiting.

    The caller checks that the person is the bot's owner. A version that is not suspended is a Conflict (409)."""
    with transaction.atomic():
        # The lock a recording's count takes (tournaments/services/bot_suspension.py): the two go in turn.
        locked = (
            BotVersion.objects.select_for_update(of=("self",), no_key=True).select_related("bot").get(pk=version.pk)
        )
        if locked.suspended_at is None:
            raise Conflict(f"version {locked.number} of {locked.bot.name} is not suspended")
        locked.suspended_at = None
        locked.reinstated_at = timezone.now()
        locked.save(update_fields=["suspended_at", "reinstated_at"])
    return locked


def bot_version_create_builtin(*, bot: Bot, strategy: str, parameters: dict[str, Any] | None = None) -> BotVersion:
    """A version that plays one of the engine's strategies: ready at once, nothing to validate in a sandbox."""
    _check_active(bot)
    if strategy not in bot_names(bot.game):
        choices = ", ".join(bot_names(bot.game)) or "none"
        raise ValidationError({"strategy": f"unknown strategy {strategy!r} for {bot.game}: choose one of {choices}"})
    if parameters:
        raise ValidationError({"parameters": "built-in strategies take no parameters yet"})
    return _next_version(bot=bot, kind=BotVersion.Kind.BUILTIN, strategy=strategy, status=BotVersion.Status.READY)


def bot_version_create_upload(*, bot: Bot, filename: str, content: bytes, entry: str = "") -> BotVersion:
    """An uploaded version: checked and stored now, validated by a match on a worker, then ``ready`` or ``failed``."""
    _check_active(bot)
    try:
        code = bot_code(filename=filename, content=content, entry=entry)
    except BadBotCode as exc:
        raise ValidationError({"source": str(exc)}) from None
    with transaction.atomic():
        version = _next_version(
            bot=bot,
            kind=BotVersion.Kind.UPLOAD,
            source=code.content,
            filename=code.filename,
            entry=code.entry,
            sha256=code.sha256,
        )
        validation_release(version=version)
    return version


def bot_version_create_http(*, bot: Bot, url: str) -> BotVersion:
    """An HTTP version: the URL is checked now and again at every connect, then validated by a match."""
    _check_active(bot)
    try:
        parsed = parse_bot_url(url)
        if not settings.BOT_HTTP_ALLOW_PRIVATE:
            resolve(parsed, allow_private=False, timeout=2.0)
    except BadBotUrl as exc:
        raise ValidationError({"url": str(exc)}) from None
    with transaction.atomic():
        version = _next_version(bot=bot, kind=BotVersion.Kind.HTTP, url=parsed.url)
        validation_release(version=version)
    return version


def _check_active(bot: Bot) -> None:
    if bot.retired_at is not None:
        raise ValidationError({"bot": "this bot is retired"})


def _next_version(*, bot: Bot, **fields: Any) -> BotVersion:
    # Lock the bot row so two versions created at once get consecutive numbers.
    with transaction.atomic():
        Bot.objects.select_for_update().get(pk=bot.pk)
        last = bot.versions.aggregate(n=Max("number"))["n"] or 0
        return BotVersion.objects.create(bot=bot, number=last + 1, **fields)


def player_for_user(*, user: User) -> Player:
    """The user's Player profile, created on first use with the username as its display name.

    The API never asks a user to register a profile separately: the first
    write that needs one (a bot, a club, a competition, an entry) makes it.
    """
    existing = Player.objects.filter(user=user).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            player = Player.objects.create(user=user, display_name=user.get_username())
            try:
                with transaction.atomic():
                    names_claim(player=player, require_username=False)
            except ValidationError:
                # An account made without a player (createsuperuser, Django's user pages) whose username
                # another player has since taken as a display name: it is not refused its profile, but
                # shows its name with a suffix, as migration 0008 does with the names it found taken.
                player.display_name = free_variant(player.display_name, _name_claimed)
                player.save(update_fields=["display_name"])
                names_claim(player=player, require_username=False)
            return player
    except IntegrityError:
        # Two first requests raced; the other one created the profile.
        return Player.objects.get(user=user)


def _name_claimed(key: str) -> bool:
    return NameClaim.objects.filter(key=key).exists()


def player_update(*, player: Player, display_name: str) -> Player:
    """A new display name: not another player's username or display name, in any case or look-alike spelling.

    The old name's claim is given up and the new one's written in one transaction, so that of two
    players racing for one name exactly one gets it (league/names.py).
    """
    display_name = display_name.strip()
    names_check(display_name=display_name, player=player)  # a blank one included
    before = player.display_name
    try:
        with transaction.atomic():
            player.display_name = display_name
            player.save(update_fields=["display_name"])
            names_claim(player=player, require_username=False)
    except ValidationError:
        player.display_name = before
        raise
    return player


def player_username_changed(*, player: Player) -> None:
    """After an administrator renamed the player's user (Django's user pages): the username claim follows,
    in the rename's transaction, or the rename is refused with a ValidationError naming the field."""
    names_claim(player=player)


def bot_update(*, bot: Bot, name: str | None = None, description: str | None = None) -> Bot:
    """Rename or re-describe a bot; entrants keep the name they entered with."""
    changed: list[str] = []
    if name is not None and name != bot.name:
        bot.name = name
        changed.append("name")
    if description is not None and description != bot.description:
        bot.description = description
        changed.append("description")
    if changed:
        try:
            with transaction.atomic():
                bot.save(update_fields=changed)
        except IntegrityError:
            raise ValidationError({"name": f"you already have a bot called {name!r}"}) from None
    return bot


def bot_delete(*, bot: Bot) -> None:
    """Delete a bot that never had a version; one with versions is retired instead, since games name them."""
    if bot.versions.exists():
        raise ValidationError({"bot": "a bot with versions stays on record because games name them: retire it"})
    bot.delete()
