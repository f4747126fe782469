"""The competition serializers of each format, made from its settings spec (tournaments/formats/), so the API
can never take a setting the service would not, with other bounds, or drop one in silence.

For each registered format there is a create, an update and an output serializer: the fields every
competition has, then the format's own settings, each field made from its declared setting. The schema
states each format's shape, chosen by ``format`` (tournaments/api/competitions.py).
"""

from __future__ import annotations

from functools import cache
from typing import Any, cast

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from config.api_input import JSONInput
from league.api.serializers import game_field
from league.models import BotVersion, Club, Player
from tournaments.api.serializers import MAX_SEED
from tournaments.formats.base import Format
from tournaments.formats.common import competition_spec
from tournaments.formats.registry import format_keys, get_format
from tournaments.formats.spec import (
    BotVersionRef,
    Changes,
    Choice,
    CompetitionRef,
    Flag,
    Number,
    Setting,
    WholeNumber,
)
from tournaments.formats.values import setting as setting_value
from tournaments.models import Competition


def setting_field(setting: Setting, *, update: bool) -> serializers.Field[Any, Any, Any, Any]:
    """The serializer field of one setting: its type, bounds and words from the spec."""
    help_text = setting.help
    if update and setting.changes is Changes.WHILE_OPEN:
        help_text += " (only while entries are open)"
    kwargs: dict[str, Any] = {"help_text": help_text, "allow_null": setting.nullable, "required": False}
    if not update:
        kwargs["default"] = setting.default
    if isinstance(setting, WholeNumber):
        return serializers.IntegerField(min_value=setting.minimum, max_value=setting.maximum, **kwargs)
    if isinstance(setting, Number):
        return serializers.FloatField(min_value=setting.minimum, max_value=setting.maximum, **kwargs)
    if isinstance(setting, Flag):
        return serializers.BooleanField(**kwargs)
    if isinstance(setting, Choice):
        return serializers.ChoiceField(choices=list(setting.values), **kwargs)
    if isinstance(setting, CompetitionRef):
        return serializers.PrimaryKeyRelatedField(queryset=Competition.objects.all(), **kwargs)
    if isinstance(setting, BotVersionRef):
        return serializers.PrimaryKeyRelatedField(queryset=BotVersion.objects.all(), **kwargs)
    raise TypeError(f"no serializer field for a {type(setting).__name__}")


class _SettingsInput(JSONInput[Competition]):
    """A body whose every key is a field: a key this format does not have is a 400 naming it, never dropped."""

    competition_format: Format

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                settings = ", ".join(s.name for s in self.competition_format.settings) or "none of its own"
                raise serializers.ValidationError(
                    {
                        name: [
                            f"the {self.competition_format.label} format has no setting {name!r}: its own settings "
                            f"are {settings}"
                        ]
                        for name in unknown
                    }
                )
        return super().to_internal_value(data)


def _name(format: Format, what: str) -> str:
    return "".join(part.capitalize() for part in format.key.split("_")) + what


@cache
def create_serializer(key: str) -> type[_SettingsInput]:
    format = get_format(key)
    fields: dict[str, Any] = {
        "club": serializers.PrimaryKeyRelatedField(queryset=Club.objects.all()),
        "name": serializers.CharField(max_length=120),
        "game": game_field(),
        "format": serializers.ChoiceField(
            choices=[key], required=False, default=key, help_text=f"{format.label}: {format.summary}"
        ),
        #: Checked option by option by the engine; a bad one is a 400 naming it.
        "options": serializers.DictField(required=False, default=dict),
        "seed": serializers.IntegerField(
            min_value=0, max_value=MAX_SEED, required=False, allow_null=True, default=None
        ),
        **{s.name: setting_field(s, update=False) for s in competition_spec(format)},
    }
    return type(_name(format, "CompetitionCreate"), (_SettingsInput,), {**fields, "competition_format": format})


@cache
def update_serializer(key: str) -> type[_SettingsInput]:
    format = get_format(key)
    fields: dict[str, Any] = {
        "name": serializers.CharField(max_length=120, required=False),
        "options": serializers.DictField(required=False, help_text="only while entries are open"),
        "referees": serializers.PrimaryKeyRelatedField(
            many=True,
            queryset=Player.objects.all(),
            required=False,
            help_text="members of the club who confirm transcripts and settle disputes; replaces the list",
        ),
        **{
            s.name: setting_field(s, update=True)
            for s in competition_spec(format)
            if s.changes is not Changes.AT_CREATION
        },
    }
    return type(_name(format, "CompetitionUpdate"), (_SettingsInput,), {**fields, "competition_format": format})


class CompetitionBaseSerializer(serializers.ModelSerializer[Competition]):
    entrant_count = serializers.IntegerField(read_only=True)
    organisers = serializers.PrimaryKeyRelatedField[Player](many=True, read_only=True)
    referees = serializers.PrimaryKeyRelatedField[Player](many=True, read_only=True)

    class Meta:
        model = Competition
        fields = [
            "id",
            "club",
            "name",
            "game",
            "options",
            "format",
            "players_per_match",
            "games_per_match",
            "max_entrants",
            "status",
            "people_play",
            "move_seconds",
            "game_seconds",
            "live_tables_public",
            "duplicate_deals",
            "next_stage",
            "entrant_count",
            "organisers",
            "referees",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


@cache
def output_serializer(key: str) -> type[CompetitionBaseSerializer]:
    """A competition of this format as the API shows it: its own settings beside the common fields."""
    format = get_format(key)
    fields: dict[str, Any] = {
        "format": serializers.ChoiceField(choices=[key], read_only=True),
        **{s.name: _output_field(s) for s in format.settings},
    }
    meta = type(
        "Meta", (CompetitionBaseSerializer.Meta,), {"fields": [*CompetitionBaseSerializer.Meta.fields, *fields]}
    )
    return type(_name(format, "Competition"), (CompetitionBaseSerializer,), {**fields, "Meta": meta})


def _output_field(setting: Setting) -> SettingShown:
    return SettingShown(setting)


class SettingShown(serializers.Field[Any, Any, Any, Competition]):
    """A competition's format setting as stored (or its default), described in the schema by its spec."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        super().__init__(read_only=True, source="*", help_text=setting.help)

    def to_representation(self, competition: Competition) -> Any:
        return setting_value(competition, self.setting.name)


class SettingShownSchema(OpenApiSerializerFieldExtension):
    target_class = SettingShown

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return setting_schema(cast(SettingShown, self.target).setting)


def setting_schema(setting: Setting) -> dict[str, Any]:
    """A setting's JSON schema, from its spec."""
    schema: dict[str, Any] = {"type": setting.kind, "description": setting.help}
    if isinstance(setting, WholeNumber | Number):
        schema.update(minimum=setting.minimum, maximum=setting.maximum)
    if isinstance(setting, Choice):
        schema["enum"] = list(setting.values)
    if setting.nullable:
        schema["nullable"] = True
    return schema


class CompetitionSerializer(serializers.Serializer[Competition]):
    """Any competition, shown by its own format's serializer."""

    def to_representation(self, instance: Competition) -> Any:
        return output_serializer(instance.format)(instance, context=self.context).data


#: A competition created without a format is a round robin.
DEFAULT_FORMAT = "round_robin"


def any_format(kind: str) -> PolymorphicProxySerializer:
    """For the schema: one shape per format, chosen by ``format`` (a discriminated union)."""
    makers = {"create": create_serializer, "update": update_serializer, "output": output_serializer}
    make = makers[kind]
    return PolymorphicProxySerializer(
        component_name={"create": "CompetitionCreate", "update": "CompetitionUpdate", "output": "Competition"}[kind],
        serializers={key: make(key) for key in format_keys()},
        # An update's body has no format: the competition's own decides its shape.
        resource_type_field_name="format" if kind != "update" else None,
    )
