"""Shapes of people and programs on the wire: output serializers, and input serializers that only check types.

Input serializers never save: the views hand their validated data to league.services.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django.urls import reverse
from django.utils.functional import lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api_input import JSONInput
from config.schema import NOT_BLANK
from engine.games import game_names
from engine.sandbox.code import MAX_UPLOAD_BYTES
from league.joining import MAX_INVITATION_DAYS, MAX_INVITATION_USES, invitation_problem
from league.models import (
    GAME_CHOICES,
    Bot,
    BotVersion,
    Club,
    Invitation,
    JoinRequest,
    Membership,
    PersonalInvitation,
    Player,
)

#: Read when a bad game is refused, so the list names games registered since start-up.
UNKNOWN_GAME = lazy(lambda: f'unknown game "{{input}}": choose one of {", ".join(game_names())}', str)()


def game_field(**kwargs: Any) -> serializers.ChoiceField:
    # DRF lists the choices each time it copies a declared field (once per serializer), so a lazy
    # iterable keeps them current; the stubs ask for a sequence.
    choices = cast(Sequence[tuple[str, str]], GAME_CHOICES)
    return serializers.ChoiceField(choices=choices, error_messages={"invalid_choice": UNKNOWN_GAME}, **kwargs)


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


class PlayerUpdateSerializer(JSONInput[Player]):
    display_name = serializers.CharField(
        max_length=80,
        help_text="Not another player's username or display name, in any case or look-alike spelling; "
        "one's own username in any case is fine.",
    )


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner = PlayerSerializer(read_only=True)
    version_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "owner", "name", "game", "description", "retired_at", "created_at", "version_count"]
        read_only_fields = fields


class BotCreateSerializer(JSONInput[Bot]):
    name = serializers.CharField(max_length=80)
    game = game_field()
    description = serializers.CharField(required=False, allow_blank=True, default="")


class BotUpdateSerializer(JSONInput[Bot]):
    name = serializers.CharField(max_length=80, required=False)
    description = serializers.CharField(required=False, allow_blank=True)


class BotVersionSerializer(serializers.ModelSerializer[BotVersion]):
    """A version as anyone sees it; an HTTP bot's URL is its owner's business (it may carry a token)."""

    url = serializers.SerializerMethodField()

    class Meta:
        model = BotVersion
        fields = [
            "id",
            "bot",
            "number",
            "kind",
            "strategy",
            "parameters",
            "filename",
            "entry",
            "sha256",
            "url",
            "status",
            "status_detail",
            "created_at",
            "suspended_at",
            "suspension_causes",
            "reinstated_at",
        ]
        read_only_fields = fields

    def get_url(self, version: BotVersion) -> str | None:
        owner_user_id = self.context.get("owner_user_id")
        return version.url if owner_user_id is not None and owner_user_id == version.bot.owner.user_id else None


class BotVersionLogSerializer(serializers.ModelSerializer[BotVersion]):
    class Meta:
        model = BotVersion
        fields = ["id", "number", "status", "status_detail", "log"]
        read_only_fields = fields


class BotVersionCreateSerializer(JSONInput[BotVersion]):
    kind = serializers.ChoiceField(choices=BotVersion.Kind.choices, default=BotVersion.Kind.BUILTIN)
    strategy = serializers.CharField(max_length=40, required=False)
    parameters = serializers.DictField(required=False, default=dict)
    # DRF's metaclass takes declared fields off the class, but the stubs read this as Field.source.
    source = serializers.FileField(  # type: ignore[assignment]
        required=False, help_text="upload: a .py file or a .zip with an entry module"
    )
    entry = serializers.CharField(max_length=200, required=False, default="", help_text="upload: the zip's entry")
    url = serializers.CharField(max_length=2000, required=False, help_text="http: the bot's endpoint")

    #: What each kind needs, and what it must not be given.
    NEEDS = {"builtin": ("strategy",), "upload": ("source",), "http": ("url",)}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["kind"]
        for field in self.NEEDS[kind]:
            if not attrs.get(field):
                article = "an" if kind[0] in "aeiou" else "a"
                raise serializers.ValidationError({field: f"{article} {kind} version needs {field!r}"})
        for other, fields in self.NEEDS.items():
            for field in fields if other != kind else ():
                if attrs.get(field):
                    raise serializers.ValidationError({field: f"{field!r} is for {other} versions, not {kind}"})
        source = attrs.get("source")
        if source is not None and source.size > MAX_UPLOAD_BYTES:
            # Refused before reading: the limit is the point.
            raise serializers.ValidationError(
                {"source": f"{source.name} is {source.size:,} bytes; the limit is {MAX_UPLOAD_BYTES:,}"}
            )
        return attrs


def _bot_version_json() -> dict[str, Any]:
    """A built-in or HTTP version as the schema states it: each kind with the field it needs and without
    the other's (BotVersionCreateSerializer.validate)."""
    text: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": NOT_BLANK}
    absent: dict[str, Any] = {"not": {}}
    return {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["builtin", "http"], "default": "builtin"},
            "strategy": {
                **text,
                "maxLength": 40,
                "description": "builtin: one of the engine's strategies for the game",
            },
            "parameters": {"type": "object", "description": "builtin: none yet; an HTTP version ignores them"},
            "url": {**text, "maxLength": 2000, "description": "http: the bot's endpoint"},
            "entry": {**text, "maxLength": 200, "description": "ignored: an upload's entry module"},
        },
        "oneOf": [
            {
                "title": "builtin",
                "properties": {"kind": {"enum": ["builtin"]}, "url": absent, "parameters": {"maxProperties": 0}},
                "required": ["strategy"],
            },
            {
                "title": "http",
                "properties": {"kind": {"enum": ["http"]}, "strategy": absent},
                "required": ["kind", "url"],
            },
        ],
    }


#: BotVersionCreateSerializer's request as the schema states it: a built-in or HTTP version as JSON, an
#: upload as a multipart form with the file (the view refuses the other kinds there).
BOT_VERSION_REQUEST = {
    "application/json": _bot_version_json(),
    "multipart/form-data": {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["upload"]},
            "source": {
                "type": "string",
                "format": "binary",
                "minLength": 1,
                "description": "a .py file, or a .zip with an entry module",
            },
            "entry": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": NOT_BLANK},
        },
        "required": ["kind", "source"],
    },
}


class ClubSerializer(serializers.ModelSerializer[Club]):
    member_count = serializers.IntegerField(read_only=True)
    calendar_url = serializers.SerializerMethodField(
        help_text="The club's public iCalendar feed (its competitions and rounds): subscribe to it in a calendar app."
    )

    class Meta:
        model = Club
        fields = ["id", "name", "slug", "competition_creators", "joining", "created_at", "member_count", "calendar_url"]
        read_only_fields = fields

    @extend_schema_field(serializers.URLField())
    def get_calendar_url(self, club: Club) -> str:
        # The site's page routes are named, not imported: league must not import tournaments (DESIGN.md).
        path = reverse("site:club-calendar", args=[club.slug])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class ClubCreateSerializer(JSONInput[Club]):
    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(max_length=60)
    competition_creators = serializers.ChoiceField(
        choices=Club.CompetitionCreators.choices,
        default=Club.CompetitionCreators.ORGANISERS,
        help_text="Who may create the club's competitions: its organisers only, or any member.",
    )
    joining = serializers.ChoiceField(
        choices=Club.Joining.choices,
        default=Club.Joining.INVITATION,
        help_text="How people join: at once (open), by a request an organiser decides, or by invitation only.",
    )


class ClubUpdateSerializer(JSONInput[Club]):
    name = serializers.CharField(max_length=120, required=False)
    competition_creators = serializers.ChoiceField(choices=Club.CompetitionCreators.choices, required=False)
    joining = serializers.ChoiceField(choices=Club.Joining.choices, required=False)


class MembershipSerializer(serializers.ModelSerializer[Membership]):
    player = PlayerSerializer(read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "player", "role", "joined_at"]
        read_only_fields = fields


class MembershipCreateSerializer(JSONInput[Membership]):
    player = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), help_text="a member, whose role changes; anyone else is invited in the role"
    )
    role = serializers.ChoiceField(choices=Membership.Role.choices, default=Membership.Role.MEMBER)


class PersonalInvitationSerializer(serializers.ModelSerializer[PersonalInvitation]):
    """An organiser's offer of a place in a club to one person, who accepts or declines it."""

    club = serializers.IntegerField(source="club_id", read_only=True)
    club_name = serializers.CharField(source="club.name", read_only=True)
    player = PlayerSerializer(read_only=True)
    invited_by = serializers.IntegerField(source="invited_by_id", read_only=True, allow_null=True)

    class Meta:
        model = PersonalInvitation
        fields = ["id", "club", "club_name", "player", "role", "status", "invited_by", "created_at", "decided_at"]
        read_only_fields = fields


class ClubJoinSerializer(JSONInput[Club]):
    note = serializers.CharField(
        max_length=300, required=False, default="", allow_blank=True, help_text="for the organisers (by request only)"
    )


class JoinRequestSerializer(serializers.ModelSerializer[JoinRequest]):
    player = PlayerSerializer(read_only=True)
    club = serializers.IntegerField(source="club_id", read_only=True)
    decided_by = serializers.IntegerField(source="decided_by_id", read_only=True, allow_null=True)

    class Meta:
        model = JoinRequest
        fields = ["id", "club", "player", "note", "status", "created_at", "decided_at", "decided_by"]
        read_only_fields = fields


class InvitationSerializer(serializers.ModelSerializer[Invitation]):
    club = serializers.IntegerField(source="club_id", read_only=True)
    club_name = serializers.CharField(source="club.name", read_only=True)
    usable = serializers.SerializerMethodField(help_text="whether it admits anyone now")
    problem = serializers.SerializerMethodField(help_text="why it admits no one now, or empty")

    class Meta:
        model = Invitation
        fields = [
            "id",
            "club",
            "club_name",
            "code",
            "role",
            "created_at",
            "expires_at",
            "max_uses",
            "uses",
            "revoked_at",
            "usable",
            "problem",
        ]
        read_only_fields = fields

    def get_usable(self, invitation: Invitation) -> bool:
        return not invitation_problem(invitation)

    def get_problem(self, invitation: Invitation) -> str:
        return invitation_problem(invitation)


class InvitationCreateSerializer(JSONInput[Invitation]):
    days = serializers.IntegerField(
        min_value=1, max_value=MAX_INVITATION_DAYS, default=7, help_text="how many days the code admits people"
    )
    max_uses = serializers.IntegerField(
        min_value=1, max_value=MAX_INVITATION_USES, default=1, help_text="how many people it admits"
    )
    role = serializers.ChoiceField(choices=Membership.Role.choices, default=Membership.Role.MEMBER)
