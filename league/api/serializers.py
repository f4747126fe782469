"""Shapes of people and programs on the wire: output serializers, and input serializers that only check types.

Input serializers never save: the views hand their validated data to league.services.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from engine.games import GAME_NAMES
from league.models import GAME_CHOICES, Bot, BotVersion, Club, Membership, Player

UNKNOWN_GAME = f'unknown game "{{input}}": choose one of {", ".join(GAME_NAMES)}'


def game_field(**kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=GAME_CHOICES, error_messages={"invalid_choice": UNKNOWN_GAME}, **kwargs)


class PlayerSerializer(serializers.ModelSerializer[Player]):
    class Meta:
        model = Player
        fields = ["id", "display_name", "created_at"]
        read_only_fields = fields


class PlayerSelfSerializer(serializers.ModelSerializer[Player]):
    """The caller's own profile: the only place a username is shown."""

    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Player
        fields = ["id", "username", "display_name", "created_at"]
        read_only_fields = fields


class PlayerUpdateSerializer(serializers.Serializer[Player]):
    display_name = serializers.CharField(max_length=80)


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner = PlayerSerializer(read_only=True)
    version_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "owner", "name", "game", "description", "retired_at", "created_at", "version_count"]
        read_only_fields = fields


class BotCreateSerializer(serializers.Serializer[Bot]):
    name = serializers.CharField(max_length=80)
    game = game_field()
    description = serializers.CharField(required=False, allow_blank=True, default="")


class BotUpdateSerializer(serializers.Serializer[Bot]):
    name = serializers.CharField(max_length=80, required=False)
    description = serializers.CharField(required=False, allow_blank=True)


class BotVersionSerializer(serializers.ModelSerializer[BotVersion]):
    class Meta:
        model = BotVersion
        fields = ["id", "bot", "number", "kind", "strategy", "parameters", "status", "status_detail", "created_at"]
        read_only_fields = fields


class BotVersionCreateSerializer(serializers.Serializer[BotVersion]):
    kind = serializers.ChoiceField(choices=BotVersion.Kind.choices, default=BotVersion.Kind.BUILTIN)
    strategy = serializers.CharField(max_length=40, required=False)
    parameters = serializers.DictField(required=False, default=dict)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["kind"] != BotVersion.Kind.BUILTIN:
            # Uploaded and HTTP bots need the sandbox and the HTTP runner, which are not in the service yet.
            raise serializers.ValidationError({"kind": f"{attrs['kind']} versions cannot be created yet; use builtin"})
        if not attrs.get("strategy"):
            raise serializers.ValidationError({"strategy": "a built-in version names the engine strategy it plays"})
        return attrs


class ClubSerializer(serializers.ModelSerializer[Club]):
    member_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Club
        fields = ["id", "name", "slug", "created_at", "member_count"]
        read_only_fields = fields


class ClubCreateSerializer(serializers.Serializer[Club]):
    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(max_length=60)


class MembershipSerializer(serializers.ModelSerializer[Membership]):
    player = PlayerSerializer(read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "player", "role", "joined_at"]
        read_only_fields = fields


class MembershipCreateSerializer(serializers.Serializer[Membership]):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    role = serializers.ChoiceField(choices=Membership.Role.choices, default=Membership.Role.MEMBER)
