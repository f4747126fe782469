"""The competition forms: each checks what it can up front and asks the services about the ruleset."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.http import HttpRequest
from django.utils.functional import lazy
from django.utils.html import escape

from engine.games import game_names, get_game
from league.admin.form_helpers import model_choice_field, player_lookup
from league.admin.permissions import is_superuser, members_only, organised_club_ids, own_player
from league.admin.service_errors import add_service_errors
from league.models import BotVersion, Club, Player
from tournaments.models import Competition
from tournaments.services.competitions import validate_ruleset

#: The rules and size, which competition_update changes only while entries are open.
RULE_FIELDS = ["games_per_match", "max_entrants", "options"]
#: A knockout's settings, or those of the knockout a stage cuts to: also only while entries are open.
KNOCKOUT_FIELDS = ["advance_count", "third_place", "seeding", "seeded_from", "cut_to", "cut_format"]


def knockout_changes(data: dict[str, Any], changed: set[str]) -> dict[str, Any]:
    """The knockout settings the change form changed, as competition_update takes them (the rest left out)."""
    return {field: data[field] for field in KNOCKOUT_FIELDS if field in changed}


def options_help() -> str:
    """Every game's options, for the create form."""
    parts = []
    for name in game_names():
        described = get_game(name).OPTIONS.describe()
        listed = ", ".join(f"{o['name']} (default {o['default']!r})" for o in described) or "none"
        parts.append(f"{name}: {listed}")
    # The admin prints help text unescaped, so the engine's words are escaped here.
    return escape('A JSON object, e.g. {"target_points": 50}. Options by game — ' + "; ".join(parts) + ".")


def check_options(form: forms.BaseForm, data: dict[str, Any], *, game: str, players_per_match: int) -> None:
    """Replace ``data["options"]`` by the ruleset validate_ruleset makes of it, or put its refusal on the form."""
    try:
        data["options"] = validate_ruleset(
            game=game, options=data.get("options") or {}, players_per_match=players_per_match
        )
    except ValidationError as error:
        add_service_errors(form, error)


class CompetitionAddForm(forms.ModelForm[Competition]):
    organiser = forms.ModelChoiceField(
        queryset=Player.objects.none(), help_text="Recorded as the creator and first organiser of the competition."
    )
    options = forms.JSONField(required=False, initial=dict, help_text=lazy(options_help, str)())
    games_per_match = forms.IntegerField(min_value=1, max_value=1000, initial=1)
    players_per_match = forms.IntegerField(min_value=2, max_value=12, initial=2)
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**62,
        # People's matches never derive from it (services/round_rows.py, match_seed); it stays hidden until the end.
        help_text="Leave empty for a random seed; fix it to replay the bot-only matches. "
        "Matches with people get secret seeds of their own. Shown once the competition is over.",
    )

    class Meta:
        model = Competition
        fields = [
            "club",
            "name",
            "kind",
            "game",
            "format",
            "players_per_match",
            "games_per_match",
            "max_entrants",
            "options",
            "people_play",
            "move_seconds",
            "game_seconds",
            "live_tables_public",
            # A knockout's, or those of the knockout a Swiss or round robin stage cuts to (docs/formats.md).
            *KNOCKOUT_FIELDS,
            "seed",
        ]

    #: Set by CompetitionAdmin.get_form: the clubs and organisers offered depend on who asks.
    request: HttpRequest

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        clubs = Club.objects.all()
        me = own_player(self.request)
        if is_superuser(self.request):
            organisers = Player.objects.select_related("user")
            self.fields["organiser"].widget = player_lookup()
        else:
            clubs = clubs.filter(pk__in=organised_club_ids(self.request))
            organisers = Player.objects.filter(pk=me.pk) if me else Player.objects.none()
        model_choice_field(self, "club").queryset = clubs
        model_choice_field(self, "seeded_from").queryset = Competition.objects.filter(club__in=clubs)
        model_choice_field(self, "organiser").queryset = organisers
        if me is not None:
            self.fields["organiser"].initial = me.pk
        if clubs.count() == 1:
            self.fields["club"].initial = clubs.get().pk

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        game, people = data.get("game"), data.get("players_per_match")
        if game and people and "options" not in self.errors:
            check_options(self, data, game=game, players_per_match=people)
        limit = data.get("max_entrants")
        if limit is not None and people and limit < people:
            self.add_error("max_entrants", f"must leave room for at least one match of {people}")
        return data


class CompetitionChangeForm(forms.ModelForm[Competition]):
    """The name can change at any time; rules and size only while entries are open (competition_update).

    The fields are the model's, not declared here, so the admin can drop the read-only ones once the
    competition has started.
    """

    class Meta:
        model = Competition
        fields = ["name", *RULE_FIELDS, *KNOCKOUT_FIELDS]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "seeded_from" in self.fields:
            others = Competition.objects.filter(club_id=self.instance.club_id).exclude(pk=self.instance.pk)
            model_choice_field(self, "seeded_from").queryset = others
        if "games_per_match" in self.fields:
            self.fields["games_per_match"].validators += [MinValueValidator(1), MaxValueValidator(1000)]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        competition: Competition = self.instance
        if "options" in self.changed_data and "options" not in self.errors:
            check_options(self, data, game=competition.game, players_per_match=competition.players_per_match)
        return data


class BotVersionsField(forms.ModelMultipleChoiceField[BotVersion]):
    """Bot versions offered by bot, number, strategy and owner rather than by their str()."""

    def label_from_instance(self, obj: BotVersion) -> str:
        return f"{obj.bot.name} v{obj.number} — {obj.strategy or obj.kind}, {obj.bot.owner.display_name}"


class AddEntrantsForm(forms.Form):
    bot_versions = BotVersionsField(
        queryset=BotVersion.objects.none(), required=False, widget=FilteredSelectMultiple("bot versions", False)
    )
    players = forms.ModelMultipleChoiceField(
        queryset=Player.objects.none(),
        required=False,
        widget=FilteredSelectMultiple("players", False),
        help_text="Club members who play in person: their matches are refereed games, not played by the engine.",
    )

    def __init__(self, *args: Any, competition: Competition, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        entered = competition.entrants.all()
        # NOT IN over a subquery with NULLs matches nothing, so each subquery keeps only its own kind.
        versions = (
            BotVersion.objects.filter(
                bot__game=competition.game, status=BotVersion.Status.READY, bot__retired_at__isnull=True
            )
            .exclude(pk__in=entered.filter(bot_version__isnull=False).values("bot_version_id"))
            .select_related("bot__owner")
            .order_by("bot__name", "number")
        )
        # An organiser is offered their clubs' members' bots, never another club's (issue 21, finding 8).
        versions = members_only(request, versions, "bot__owner")
        players = (
            Player.objects.filter(memberships__club_id=competition.club_id)
            .exclude(pk__in=entered.filter(player__isnull=False).values("player_id"))
            .order_by("display_name", "id")
            .distinct()
        )
        model_choice_field(self, "bot_versions").queryset = versions
        model_choice_field(self, "players").queryset = players

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not data.get("bot_versions") and not data.get("players") and not self.errors:
            raise ValidationError("choose at least one bot version or player")
        return data
