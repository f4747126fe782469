"""The competition serializers of each format, made from its settings spec (tournaments/formats/), so the API
can never take a setting the service would not, with other bounds, or drop one in silence.

For each registered format there is a create, an update and an output serializer: the fields every
competition has, then the format's own settings, each field made from its declared setting. A setting's
field reads the value as DRF reads it (a form's text included) and then through the setting's own spec
(``Setting.parse``): the API refuses what the service refuses, in the same words, and the schema states the
spec's bounds. The schema gives each format's shape, chosen by ``format`` (``any_format``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from django.http import QueryDict
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.serializers import PolymorphicProxySerializerExtension
from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from config.api_input import JSONInput
from league.api.serializers import game_field
from league.models import BotVersion, Club, Player
from tournaments.api.serializers import MAX_SEED
from tournaments.formats.base import Format
from tournaments.formats.common import competition_spec
from tournaments.formats.registry import DEFAULT_FORMAT, UnknownFormat, format_keys, get_format, is_default_format
from tournaments.formats.spec import (
    BotVersionRef,
    Changes,
    Choice,
    CompetitionRef,
    Flag,
    Number,
    Setting,
    SettingRefused,
    WholeNumber,
)
from tournaments.formats.values import setting as setting_value
from tournaments.models import Competition

_T = TypeVar("_T")

#: What a creation chooses once and no change can touch.
CHOSEN_AT_CREATION = ("club", "game", "format", "seed")

#: Django's CSRF token, which a form posted from a page carries beside its fields.
CSRF_FIELD = "csrfmiddlewaretoken"


# --- A setting's field --------------------------------------------------------------------------------------


class SettingField:
    """A field made from a declared setting (mixed into a DRF field): DRF reads the value as it reads any (a
    form's text included), then the setting's spec checks it."""

    def __init__(self, *, setting: Setting, **kwargs: Any) -> None:
        self.setting = setting
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        read = super().to_internal_value(data)  # type: ignore[misc]
        try:
            return self.setting.parse(read)
        except SettingRefused as exc:
            raise serializers.ValidationError(str(exc)) from None

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        # DRF copies every declared field for each serializer it makes; the setting is a frozen declaration,
        # shared rather than copied each time.
        memo[id(self.setting)] = self.setting
        return super().__deepcopy__(memo)  # type: ignore[misc]


class WholeNumberField(SettingField, serializers.IntegerField):
    pass


class NumberField(SettingField, serializers.FloatField):
    pass


class FlagField(SettingField, serializers.BooleanField):
    pass


class ChoiceSettingField(SettingField, serializers.ChoiceField):
    pass


class ReferenceField(SettingField, serializers.PrimaryKeyRelatedField):  # type: ignore[type-arg]
    """Another competition or a bot version by id: one that exists, which the format then checks."""


def setting_field(setting: Setting, *, update: bool) -> serializers.Field[Any, Any, Any, Any]:
    """The serializer field of one setting: its type from the spec, checked by the spec."""
    help_text = setting.help
    if update and setting.changes is Changes.WHILE_OPEN:
        help_text += " (only while entries are open)"
    if update and setting.changes is Changes.AT_CREATION:
        help_text += " (set when the competition is created: another value is refused)"
    kwargs: dict[str, Any] = {
        "setting": setting,
        "help_text": help_text,
        "allow_null": setting.nullable,
        "required": False,
    }
    if not update:
        kwargs["default"] = setting.default
    if isinstance(setting, WholeNumber):
        return WholeNumberField(**kwargs)
    if isinstance(setting, Number):
        return NumberField(**kwargs)
    if isinstance(setting, Flag):
        return FlagField(**kwargs)
    if isinstance(setting, Choice):
        return ChoiceSettingField(choices=list(setting.choices), **kwargs)
    if isinstance(setting, CompetitionRef):
        return ReferenceField(queryset=Competition.objects.all(), **kwargs)
    if isinstance(setting, BotVersionRef):
        return ReferenceField(queryset=BotVersion.objects.all(), **kwargs)
    raise TypeError(f"no serializer field for a {type(setting).__name__}")


def setting_bounds(setting: Setting) -> dict[str, Any]:
    """A setting's bounds as the schema states them (OpenAPI 3.0: an exclusive bound is a flag beside it)."""
    if isinstance(setting, WholeNumber):
        return {"minimum": setting.minimum, "maximum": setting.maximum}
    if isinstance(setting, Number):
        bounds: dict[str, Any] = {}
        if setting.minimum is not None:
            bounds["minimum"] = setting.minimum
            if setting.exclusive:
                bounds["exclusiveMinimum"] = True
        if setting.maximum is not None:
            bounds["maximum"] = setting.maximum
            if setting.exclusive:
                bounds["exclusiveMaximum"] = True
        return bounds
    if isinstance(setting, CompetitionRef | BotVersionRef):
        return {"minimum": 1}
    return {}


class SettingFieldSchema(OpenApiSerializerFieldExtension):
    target_class = SettingField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        return {**schema, **setting_bounds(cast(SettingField, self.target).setting)}


# --- The format's key ---------------------------------------------------------------------------------------


class FormatKeyField(serializers.ChoiceField):
    """``format``: one format's key, which picks the shape of the body."""

    def __init__(self, *, key: str, label: str, **kwargs: Any) -> None:
        self.key = key
        super().__init__(choices=[(key, label)], **kwargs)


class FormatKeySchema(OpenApiSerializerFieldExtension):
    """Each format's key is an enum of its own, named after it (SwissFormatEnum), shared by its shapes."""

    target_class = FormatKeyField

    def get_name(self) -> str:
        return _camel(cast(FormatKeyField, self.target).key) + "FormatEnum"

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {"type": "string", "enum": [cast(FormatKeyField, self.target).key]}


def _camel(key: str) -> str:
    return "".join(part.capitalize() for part in key.split("_"))


# --- Bodies: creating and changing a competition ------------------------------------------------------------


class FormatChosen(JSONInput[Any]):
    """The format a creation names, a round robin if none; one this server lacks is a 400 naming ``format``."""

    format = serializers.ChoiceField(choices=[], required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(serializers.ChoiceField, self.fields["format"]).choices = format_keys()


def chosen_format_key(data: Any) -> str:
    chosen = FormatChosen(data=data)
    chosen.is_valid(raise_exception=True)
    key: str = chosen.validated_data.get("format", DEFAULT_FORMAT)
    return key


class SettingsInput(JSONInput[Competition]):
    """A body whose every key is a field: a key this format does not have is a 400 naming it, never dropped."""

    competition_format: Format
    #: Keys a creation takes that this body cannot change.
    fixed: tuple[str, ...] = ()

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            known = set(self.fields) | ({CSRF_FIELD} if isinstance(data, QueryDict) else set())
            unknown = sorted(set(data) - known)
            if unknown:
                raise serializers.ValidationError({name: [self._unknown(name)] for name in unknown})
        return super().to_internal_value(data)

    def _unknown(self, name: str) -> str:
        if name in self.fixed:
            return "is chosen when the competition is created and cannot change"
        own = ", ".join(s.name for s in self.competition_format.settings) or "none"
        return f"the {self.competition_format.label} format has no setting {name!r}: its own settings are {own}"


class SettingsInputSchema(OpenApiSerializerExtension):
    """The schema says what the body refuses: a key it does not list."""

    target_class = SettingsInput
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        return {**schema, "additionalProperties": False}


def _each_format(make: Callable[[Format], _T]) -> Callable[[str], _T]:
    """``make`` once for each format, by its key; again for another format registered under a key used before
    (a test's own): the cache is by the format object itself, which it keeps, so its id is never reused."""
    made: dict[int, tuple[Format, _T]] = {}

    def get(key: str) -> _T:
        format = get_format(key)
        known = made.get(id(format))
        if known is None:
            known = made[id(format)] = (format, make(format))
        return known[1]

    return get


def _create_serializer(format: Format) -> type[SettingsInput]:
    default = is_default_format(format)
    fields: dict[str, Any] = {
        "club": serializers.PrimaryKeyRelatedField(queryset=Club.objects.all()),
        "name": serializers.CharField(max_length=120),
        "game": game_field(),
        "format": FormatKeyField(
            key=format.key,
            label=format.label,
            help_text=f"{format.label}: {format.summary}" + (" (the format when none is given)" if default else ""),
            **({"required": False, "default": format.key} if default else {}),
        ),
        #: Checked option by option by the engine; a bad one is a 400 naming it.
        "options": serializers.DictField(required=False, default=dict),
        "seed": serializers.IntegerField(
            min_value=0, max_value=MAX_SEED, required=False, allow_null=True, default=None
        ),
        **{s.name: setting_field(s, update=False) for s in competition_spec(format)},
    }
    doc = f"A new {format.label.lower()} competition: the fields every competition has, then its own settings."
    attributes = {**fields, "competition_format": format, "__doc__": doc}
    return type(_camel(format.key) + "CompetitionCreate", (SettingsInput,), attributes)


def _update_serializer(format: Format) -> type[SettingsInput]:
    fields: dict[str, Any] = {
        "name": serializers.CharField(max_length=120, required=False),
        "options": serializers.DictField(required=False, help_text="only while entries are open"),
        "referees": serializers.PrimaryKeyRelatedField(
            many=True,
            queryset=Player.objects.all(),
            required=False,
            help_text="members of the club who confirm transcripts and settle disputes; replaces the list",
        ),
        # Every setting, even one set at creation: the service takes its current value back (a form sends every
        # field) and refuses another, saying why.
        **{s.name: setting_field(s, update=True) for s in competition_spec(format)},
    }
    doc = f"A change to a {format.label.lower()} competition: only the fields it lists, each as its help says."
    attributes = {**fields, "competition_format": format, "fixed": CHOSEN_AT_CREATION, "__doc__": doc}
    return type(_camel(format.key) + "CompetitionUpdate", (SettingsInput,), attributes)


create_serializer = _each_format(_create_serializer)
update_serializer = _each_format(_update_serializer)


# --- Output: a competition as the API shows it --------------------------------------------------------------


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


def _output_serializer(format: Format) -> type[CompetitionBaseSerializer]:
    """A competition of this format as the API shows it: its own settings beside the common fields."""
    fields: dict[str, Any] = {
        "format": FormatKeyField(key=format.key, label=format.label, read_only=True),
        **{s.name: SettingShown(setting=s) for s in format.settings},
    }
    meta = type(
        "Meta", (CompetitionBaseSerializer.Meta,), {"fields": [*CompetitionBaseSerializer.Meta.fields, *fields]}
    )
    doc = f"A {format.label.lower()} competition: the fields every competition has, then its own settings."
    return type(
        _camel(format.key) + "Competition", (CompetitionBaseSerializer,), {**fields, "Meta": meta, "__doc__": doc}
    )


output_serializer = _each_format(_output_serializer)


class SettingShown(serializers.Field[Any, Any, Any, Competition]):
    """A competition's format setting as stored (or its default), described in the schema by its spec."""

    def __init__(self, *, setting: Setting) -> None:
        self.setting = setting
        super().__init__(read_only=True, source="*", help_text=setting.help)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        memo[id(self.setting)] = self.setting  # a frozen declaration: shared, not copied
        return super().__deepcopy__(memo)

    def to_representation(self, competition: Competition) -> Any:
        return setting_value(competition, self.setting.name)


class SettingShownSchema(OpenApiSerializerFieldExtension):
    """A setting shown is described as the field that takes it: the same type, bounds and choices."""

    target_class = SettingShown

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        taking = setting_field(cast(SettingShown, self.target).setting, update=True)
        schema: dict[str, Any] = auto_schema._map_serializer_field(taking, direction)
        return schema


class CompetitionSerializer(serializers.Serializer[Competition]):
    """Any competition, shown by its own format's serializer (documented by ``any_format("output")``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # One serializer of each class for a whole page: DRF builds a serializer's fields each time one is made.
        self._made: dict[type[CompetitionBaseSerializer], CompetitionBaseSerializer] = {}

    def to_representation(self, instance: Competition) -> Any:
        try:
            kind = output_serializer(instance.format)
        except UnknownFormat:
            # A format this server does not have (a module taken away): its common fields still show.
            kind = CompetitionBaseSerializer
        shown = self._made.get(kind)
        if shown is None:
            shown = self._made[kind] = kind(context=self.context)
        return shown.to_representation(instance)


# --- The schema: one shape per format -----------------------------------------------------------------------


class FormatShapes(PolymorphicProxySerializer):
    """For the schema: one shape per format registered when the schema is made."""

    @property
    def serializers(self) -> Any:
        made = self._serializers
        return made() if callable(made) else made

    @serializers.setter
    def serializers(self, value: Any) -> None:
        self._serializers = value


class FormatShapesSchema(PolymorphicProxySerializerExtension):
    target_class = "tournaments.api.format_serializers.FormatShapes"

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = PolymorphicProxySerializerExtension.map_serializer(self, auto_schema, direction)
        if self.target.resource_type_field_name is None:
            # A change's body names no format: the competition's own decides which shape it must fit.
            return {"anyOf": schema["oneOf"]}
        if direction == "request":
            # What every shape asks for, so the body is documented as required.
            asked = [
                set(auto_schema.resolve_serializer(s, direction).schema.get("required", []))
                for s in self.target.serializers.values()
            ]
            if asked and set.intersection(*asked):
                schema["required"] = sorted(set.intersection(*asked))
        return schema


_SHAPES = {
    "create": ("CompetitionCreate", create_serializer),
    "update": ("CompetitionUpdate", update_serializer),
    "output": ("Competition", output_serializer),
}


def any_format(kind: str) -> FormatShapes:
    """For the schema: one shape per format (``kind``: create, update or output). A creation's and an output's
    are a union discriminated by ``format``; a change's body fits the shape of the competition's format."""
    name, make = _SHAPES[kind]
    return FormatShapes(
        component_name=name,
        serializers=cast(Any, lambda: {key: make(key) for key in format_keys()}),
        resource_type_field_name=None if kind == "update" else "format",
    )
