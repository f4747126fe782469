"""The competition admin by format (issue 22): the add page asks for the format, then shows exactly that format's
settings and the common ones, made from the specs; refusals land on their fields; the change form disables
what may no longer change, says why, and never drops a submitted change in silence."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.test import Client
from django.urls import reverse

from league.models import Club, Player
from tests.factories import ClubFactory, CompetitionFactory, EntrantFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import started
from tournaments.admin.competition_fieldsets import PEOPLE_FIELDS, form_spec, people_may_enter
from tournaments.formats.common import COMPETITION_SETTINGS
from tournaments.formats.durations import SecondsField, seconds_in_words
from tournaments.formats.registry import all_formats, format_of, get_format
from tournaments.formats.spec import Changes
from tournaments.models import Competition
from tournaments.services.competition_settings import current_settings
from tournaments.services.competitions import competition_create, competition_update

pytestmark = pytest.mark.django_db

ADD = reverse("admin:tournaments_competition_add")
CHANGELIST = reverse("admin:tournaments_competition_changelist")
COMMON = {setting.name for setting in COMPETITION_SETTINGS}
#: The add form's fields that are not settings.
ADD_BASICS = {"club", "name", "game", "organiser", "options", "seed"}


@pytest.fixture
def superuser() -> Player:
    return PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True), display_name="Root")


@pytest.fixture
def boss(client: Client, superuser: Player) -> Client:
    client.force_login(superuser.user)
    return client


def change_url(competition: Competition) -> str:
    return reverse("admin:tournaments_competition_change", args=[competition.pk])


def add_url(key: str) -> str:
    return f"{ADD}?format={key}"


def as_posted(form: forms.BaseForm) -> dict[str, Any]:
    """A form as a browser sends it untouched: every field it may change, with the value it shows."""
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        if field.disabled:
            continue  # a browser never sends a disabled field
        value = form[name].value()
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
        else:
            data[name] = "" if value is None else value
    return data


def add_form_of(client: Client, key: str) -> Any:
    response = client.get(add_url(key))
    assert response.status_code == 200, key
    return response.context["adminform"]


def filled_add_form(client: Client, key: str, club: Club, organiser: Player, **changes: Any) -> dict[str, Any]:
    data = as_posted(add_form_of(client, key).form)
    return {**data, "club": club.pk, "name": f"A {key}", "game": "war", "organiser": organiser.pk, **changes}


def fieldset_fields(adminform: Any) -> list[str]:
    return [name for _, options in adminform.fieldsets for name in options["fields"]]


def running(key: str, entrants: int = 4, **kwargs: Any) -> Competition:
    competition = CompetitionFactory(format=key, **kwargs)
    for _ in range(entrants):
        EntrantFactory(competition=competition)
    return started(competition)


# --- Adding: the format first, then its form ---------------------------------------------------------------


def test_the_add_page_asks_for_the_format_first_offering_every_registered_one(boss: Client) -> None:
    response = boss.get(f"{ADD}?_changelist_filters=status%3Dopen")
    assert response.status_code == 200
    assert "adminform" not in response.context
    links = dict((format.key, link) for format, link in response.context["choices"])
    assert list(links) == [format.key for format in all_formats()]
    # The changelist's filters go on with the choice, to return to once the competition is saved.
    assert links["swiss"] == "?_changelist_filters=status%3Dopen&format=swiss"
    for format in all_formats():
        assert format.label in response.text
    unknown = boss.get(f"{ADD}?format=no_such_format")
    assert unknown.status_code == 200 and "choices" in unknown.context
    assert "no format “no_such_format”" in unknown.text


def test_each_format_s_add_form_has_exactly_its_settings_and_the_common_ones_all_shown(boss: Client) -> None:
    for format in all_formats():
        adminform = add_form_of(boss, format.key)
        own = {setting.name for setting in format.settings}
        common = COMMON if people_may_enter(format) else COMMON - set(PEOPLE_FIELDS)
        assert set(adminform.form.fields) == ADD_BASICS | common | own, format.key
        # Every field is on the page, once, and the format's own under its name.
        shown = fieldset_fields(adminform)
        assert sorted(shown) == sorted(adminform.form.fields), format.key
        # The format's own under its name, the rest (a stage's knockout) each under its section's heading.
        headed = {heading: options["fields"] for heading, options in adminform.fieldsets if heading}
        assert headed[format.label] == [s.name for s in format.settings if not s.section], format.key
        for setting in format.settings:
            assert setting.name in headed[setting.section or format.label], (format.key, setting.name)


def test_people_s_section_is_shown_only_for_formats_people_may_enter(boss: Client) -> None:
    """A rating ladder is for bots: neither its add page nor its change page asks how people play."""
    for format in all_formats():
        headings = [heading for heading, _ in add_form_of(boss, format.key).fieldsets]
        assert ("People at live tables" in headings) == (format.key != "rating_ladder"), format.key
    ladder = running("rating_ladder")
    page = boss.get(change_url(ladder))
    assert "People at live tables" not in page.text and "move_seconds" not in page.context["adminform"].form.fields
    league = running("round_robin")
    assert "People at live tables" in boss.get(change_url(league)).text
    # Saving the ladder's page as it comes changes nothing it does not show: who may watch stays as it was.
    data = {**as_posted(page.context["adminform"].form), "entrants-TOTAL_FORMS": 4, "entrants-INITIAL_FORMS": 4}
    for n, entrant in enumerate(ladder.entrants.order_by("id")):
        data[f"entrants-{n}-id"] = entrant.pk
        data[f"entrants-{n}-competition"] = ladder.pk
    assert boss.post(change_url(ladder), data).status_code == 302
    ladder.refresh_from_db()
    assert ladder.live_tables_public and ladder.move_seconds == 300


def test_each_format_s_add_form_saved_as_it_comes_creates_that_format_with_its_defaults(
    boss: Client, superuser: Player
) -> None:
    club = ClubFactory()
    for format in all_formats():
        response = boss.post(add_url(format.key), filled_add_form(boss, format.key, club, superuser))
        assert response.status_code == 302, (format.key, response.context and response.context["adminform"].errors)
        competition = Competition.objects.get(name=f"A {format.key}")
        assert format_of(competition) is format
        stored = current_settings(competition, format)
        assert stored == {s.name: s.default for s in (*COMPETITION_SETTINGS, *format.settings)}, format.key


def test_save_and_add_another_keeps_the_format(boss: Client, superuser: Player) -> None:
    data = filled_add_form(boss, "swiss", ClubFactory(), superuser, _addanother="Save and add another")
    response = boss.post(add_url("swiss"), data)
    assert response.status_code == 302
    assert response["Location"] == add_url("swiss")


@pytest.mark.parametrize(
    ("key", "changes", "field", "words"),
    [
        ("swiss", {"round_count": "0"}, "round_count", "greater than or equal to 1"),
        (
            "round_robin",
            {"cut_to": "4"},
            "cut_format",
            # The services name the formats by key; the form by the names it offers them under.
            "Choose the knockout to cut to: Single elimination, Double elimination.",
        ),
        ("single_elimination", {"seeding": "standings"}, "seeded_from", 'exactly when seeding is "standings"'),
        ("separation", {"sprt_elo0": "60", "sprt_elo1": "50"}, "sprt_elo1", "Must be greater than elo0"),
        ("challenge_ladder", {"challenge_reach": "101"}, "challenge_reach", "less than or equal to 100"),
        (
            # People play a challenge ladder's matches at live tables (a rating ladder's forms have no clocks).
            "challenge_ladder",
            {"move_seconds": "10 minutes", "game_seconds": "5 minutes"},
            "game_seconds",
            "Must be at least “Time for one decision”",
        ),
        ("swiss", {"duplicate_deals": "on", "games_per_match": "3"}, "duplicate_deals", "must be a multiple of 2"),
    ],
)
def test_a_refused_setting_shows_on_its_field_keeps_what_was_typed_and_creates_nothing(
    boss: Client, superuser: Player, key: str, changes: dict[str, str], field: str, words: str
) -> None:
    data = filled_add_form(boss, key, ClubFactory(), superuser, **changes)
    response = boss.post(add_url(key), data)
    assert response.status_code == 200
    assert not Competition.objects.exists()
    form = response.context["adminform"].form
    assert words in " ".join(form.errors.get(field, [])), form.errors
    assert not form.non_field_errors()
    for name, value in changes.items():
        assert str(form[name].value()).lower() in (value, "true"), name
    # The page shows the error beside its field.
    assert f"field-{field}" in response.text and "errorlist" in response.text


def test_a_bad_ruleset_and_a_refused_setting_are_told_together(boss: Client, superuser: Player) -> None:
    data = filled_add_form(boss, "swiss", ClubFactory(), superuser, options='{"colour": "red"}', cut_to="4")
    errors = boss.post(add_url("swiss"), data).context["adminform"].form.errors
    assert {"options", "cut_format"} <= set(errors)


# --- Changing: what may change now, and why the rest may not -----------------------------------------------


def test_a_setting_that_may_change_at_any_time_changes_on_a_running_ladder(boss: Client) -> None:
    ladder = running("challenge_ladder")
    form = boss.get(change_url(ladder)).context["adminform"].form
    assert not form.fields["challenge_reach"].disabled and not form.fields["live_tables_public"].disabled
    data = {**as_posted(form), "challenge_reach": 5, "challenge_days": 3}
    data.pop("live_tables_public")  # unticked
    response = boss.post(change_url(ladder), {**data, **inline_management(ladder)})
    assert response.status_code == 302, response.context and response.context["adminform"].form.errors
    ladder.refresh_from_db()
    assert (ladder.settings["challenge_reach"], ladder.settings["challenge_days"]) == (5, 3)
    assert ladder.live_tables_public is False


def test_who_may_watch_changes_on_a_running_round_robin_and_the_rest_is_disabled_with_the_reason(
    boss: Client,
) -> None:
    competition = running("round_robin")
    response = boss.get(change_url(competition))
    form = response.context["adminform"].form
    fixed = {name for name, field in form.fields.items() if field.disabled}
    open_only = {
        s.name for s in (*COMPETITION_SETTINGS, *format_of(competition).settings) if s.changes is Changes.WHILE_OPEN
    }
    assert fixed == open_only | {"players_per_match", "options"}
    assert "Fixed once entries closed; the competition is running." in form.fields["games_per_match"].help_text
    assert "Fixed when the competition was created." in form.fields["players_per_match"].help_text
    assert 'name="games_per_match"' in response.text and "disabled" in response.text
    data = as_posted(form)
    data.pop("live_tables_public")
    assert boss.post(change_url(competition), {**data, **inline_management(competition)}).status_code == 302
    competition.refresh_from_db()
    assert competition.live_tables_public is False


def inline_management(competition: Competition) -> dict[str, Any]:
    """The entrant list's management form and rows, which the change page posts with the competition."""
    entrants = list(competition.entrants.order_by("id"))
    data: dict[str, Any] = {"entrants-TOTAL_FORMS": len(entrants), "entrants-INITIAL_FORMS": len(entrants)}
    for index, entrant in enumerate(entrants):
        data[f"entrants-{index}-id"] = entrant.pk
        data[f"entrants-{index}-competition"] = competition.pk
    return data


def another_value(field: forms.Field, current: object, others: list[int]) -> object:
    """A value the field takes that differs from ``current``, as a form posts it; None to leave a box unticked."""
    if isinstance(field, forms.BooleanField):
        return None if current else "on"
    if isinstance(field, forms.ModelChoiceField):
        return next(pk for pk in others if pk != current)
    if isinstance(field, forms.ChoiceField):
        return next(value for value, _ in field.choices if value != current)
    if isinstance(field, forms.FloatField):
        return float(current) / 2 if isinstance(current, float) and current else 1.0
    if isinstance(field, SecondsField):
        assert isinstance(current, int)
        return seconds_in_words(current + 60)
    assert isinstance(field, forms.IntegerField)
    if current is None:
        return field.min_value
    assert isinstance(current, int)
    return current + 1 if field.max_value is None or current < field.max_value else current - 1


def test_the_change_form_saves_or_refuses_every_submitted_change_of_every_format(boss: Client) -> None:
    club, creator = ClubFactory(), PlayerFactory()
    others = [CompetitionFactory(club=club, game="war").pk for _ in range(2)]
    for format in all_formats():
        competition = competition_create(club=club, created_by=creator, name=format.key, game="war", format=format.key)
        form = boss.get(change_url(competition)).context["adminform"].form
        for setting in form_spec(format):  # the settings its forms show
            if form.fields[setting.name].disabled:
                continue
            before = current_settings(competition, format)
            value = another_value(form.fields[setting.name], before[setting.name], others)
            data = {**as_posted(form), **inline_management(competition)}
            data.pop(setting.name, None)
            if value is not None:
                data[setting.name] = value
            response = boss.post(change_url(competition), data)
            competition.refresh_from_db()
            after = current_settings(competition, format)
            if response.status_code == 302:
                # Saved: exactly the change made, the rest as it was; then put back for the next setting.
                field = form.fields[setting.name]
                expected = value == "on" if isinstance(field, forms.BooleanField) else field.to_python(value)
                assert after == {**before, setting.name: expected}, (format.key, setting.name)
                competition_update(competition=competition, settings={setting.name: before[setting.name]})
                competition.refresh_from_db()
            else:
                assert response.status_code == 200, (format.key, setting.name)
                assert response.context["adminform"].form.errors, (format.key, setting.name)
                assert after == before, (format.key, setting.name)


@pytest.mark.parametrize("status", ["running", "finished"])
def test_a_change_sent_for_a_disabled_field_is_refused_on_it_never_dropped(boss: Client, status: str) -> None:
    competition = running("swiss")
    if status == "finished":
        Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.FINISHED)
        competition.refresh_from_db()
    form = boss.get(change_url(competition)).context["adminform"].form
    before = current_settings(competition, format_of(competition))
    others = [CompetitionFactory(club=competition.club).pk]
    for name, field in form.fields.items():
        if not field.disabled or name == "options":
            continue
        value = another_value(field, before[name], others)
        if value is None:
            continue  # an unticked box is what a browser sends for a disabled one: not a change
        data = {**as_posted(form), **inline_management(competition), "name": "Renamed", name: value}
        response = boss.post(change_url(competition), data)
        assert response.status_code == 200, name
        errors = response.context["adminform"].form.errors
        expected = (
            "Is set when the competition is created and cannot change."
            if name == "players_per_match"
            else f"Can change only while entries are open; the competition is {status}."
        )
        assert errors[name] == [expected], (name, errors)
    data = {**as_posted(form), **inline_management(competition), "options": '{"max_rounds": 7}'}
    errors = boss.post(change_url(competition), data).context["adminform"].form.errors
    assert errors["options"] == [f"Can change only while entries are open; the competition is {status}."]
    competition.refresh_from_db()
    assert competition.name != "Renamed" and current_settings(competition, format_of(competition)) == before


def test_a_value_sent_unchanged_for_a_disabled_field_is_no_change(boss: Client) -> None:
    competition = running("swiss")
    form = boss.get(change_url(competition)).context["adminform"].form
    data = {**as_posted(form), **inline_management(competition), "name": "Renamed", "games_per_match": 1}
    assert boss.post(change_url(competition), data).status_code == 302
    competition.refresh_from_db()
    assert competition.name == "Renamed"


# --- The list ------------------------------------------------------------------------------------------------


def test_the_list_shows_each_competition_s_format_by_name_and_filters_by_it(boss: Client) -> None:
    swiss = CompetitionFactory(format="swiss", name="Evening Swiss")
    CompetitionFactory(format="round_robin", name="League")
    gone = CompetitionFactory(name="Old")
    Competition.objects.filter(pk=gone.pk).update(format="gauntlet_removed")
    response = boss.get(CHANGELIST)
    assert response.status_code == 200
    assert "Evening Swiss" in response.text and get_format("swiss").label in response.text
    assert "gauntlet_removed (not on this server)" in response.text
    (format_filter,) = [f for f in response.context["cl"].filter_specs if getattr(f, "parameter_name", "") == "format"]
    assert [label for _, label in format_filter.lookup_choices] == [f.label for f in all_formats()]
    filtered = boss.get(CHANGELIST, {"format": "swiss"})
    assert [c.pk for c in filtered.context["cl"].result_list] == [swiss.pk]


def test_a_competition_of_a_format_this_server_lacks_says_so_and_can_still_be_renamed(boss: Client) -> None:
    competition = running("swiss", entrants=3)
    Competition.objects.filter(pk=competition.pk).update(format="gauntlet_removed")
    response = boss.get(change_url(competition))
    assert response.status_code == 200
    shown = [str(message) for message in response.context["messages"]]
    assert shown == [
        "No competition format 'gauntlet_removed' on this server, so its settings, standings and matches cannot "
        "be shown."
    ]
    form = response.context["adminform"].form
    assert set(form.fields) == {"name", "options"} and form.fields["options"].disabled
    data = {**as_posted(form), **inline_management(competition), "name": "Renamed"}
    assert boss.post(change_url(competition), data).status_code == 302
    competition.refresh_from_db()
    assert competition.name == "Renamed"
