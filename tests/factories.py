"""factory-boy factories for the service's models (DESIGN.md, "Tests")."""

from __future__ import annotations

import contextlib
from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from engine.games import get_game, seats_for
from league.models import Bot, BotVersion, Club, Membership, Player
from league.names import names_claim
from tournaments.models import Competition, Entrant


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player
        skip_postgeneration_save = True

    user = factory.SubFactory(UserFactory)
    display_name = factory.LazyAttribute(lambda p: p.user.username.capitalize())

    @factory.post_generation
    def name_claims(self, create: bool, extracted: Any, **kwargs: Any) -> None:
        # The player's names are claimed, as every service that makes a player claims them (league/names.py).
        # A test may still make two players who show one name (the services would refuse the second):
        # the later one then holds no claim on it.
        if create:
            with contextlib.suppress(ValidationError):
                names_claim(player=self)


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")
    slug = factory.Sequence(lambda n: f"club-{n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    club = factory.SubFactory(ClubFactory)
    player = factory.SubFactory(PlayerFactory)
    role = Membership.Role.MEMBER


class BotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bot

    owner = factory.SubFactory(PlayerFactory)
    name = factory.Sequence(lambda n: f"bot{n}")
    game = "war"


class BotVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = BotVersion

    bot = factory.SubFactory(BotFactory)
    number = factory.Sequence(lambda n: n + 1)
    kind = BotVersion.Kind.BUILTIN
    strategy = "random"
    status = BotVersion.Status.READY


def full_options(game: str, people: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    engine_game = get_game(game)
    return dict(engine_game.parse_options(options or {}, seats_for(engine_game, people, options or {})))


class CompetitionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Competition

    club = factory.SubFactory(ClubFactory)
    created_by = factory.SubFactory(PlayerFactory)
    name = factory.Sequence(lambda n: f"Competition {n}")
    game = "war"
    players_per_match = 2
    options = factory.LazyAttribute(lambda c: full_options(c.game, c.players_per_match))
    seed = factory.Sequence(lambda n: 1000 + n)


class EntrantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entrant

    competition = factory.SubFactory(CompetitionFactory)
    bot_version = factory.SubFactory(
        BotVersionFactory, bot=factory.SubFactory(BotFactory, game=factory.SelfAttribute("...competition.game"))
    )
    name = factory.LazyAttribute(lambda e: f"{e.bot_version.bot.name} v{e.bot_version.number}")
