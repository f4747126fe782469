"""A format's settings through the API: one spec per format (tournaments/formats/), from which the API's
fields, bounds and schema are made, and one validation path with the service (issue 22).

The first three tests are the drifts the issue found against the running API before it: a PATCH answered 200
while dropping every field, a round robin that took and stored settings of other formats, and a bound the API
and the service disagreed on (5 seconds and 1). The bounds test holds every setting of every registered
format to its spec, in the schema and at runtime.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework import serializers

from tests.league.test_api_support import Cast, add_entrants, make_cast, results
from tournaments.api.format_serializers import create_serializer, update_serializer
from tournaments.formats.common import competition_spec
from tournaments.formats.registry import format_keys, get_format
from tournaments.formats.spec import BotVersionRef, CompetitionRef, Number, Setting, SettingRefused, WholeNumber
from tournaments.models import Competition
from tournaments.services.competitions import competition_create

pytestmark = pytest.mark.django_db


def _created(cast: Cast, **body: Any) -> dict[str, Any]:
    payload = {"club": cast.club.pk, "name": "Evening", "game": "war", **body}
    response = cast.client("organiser").post("/api/tournaments/", payload, format="json")
    assert response.status_code == 201, response.content
    created: dict[str, Any] = response.json()
    return created


# --- The drifts -------------------------------------------------------------------------------------------------


def test_a_patch_of_an_open_swiss_changes_its_settings_and_refuses_one_it_lacks_changing_nothing() -> None:
    cast = make_cast()
    client = cast.client("organiser")
    url = f"/api/tournaments/{_created(cast, format='swiss')['id']}/"
    refused = client.patch(url, {"round_count": 7, "bye_points": "none", "sprt_alpha": 0.2}, format="json")
    assert refused.status_code == 400
    assert list(refused.json()) == ["sprt_alpha"]
    assert "has no setting 'sprt_alpha'" in refused.json()["sprt_alpha"][0]
    # All or nothing: the settings it does have were not changed either.
    assert {k: client.get(url).json()[k] for k in ("round_count", "bye_points")} == {
        "round_count": None,
        "bye_points": "win",
    }
    changed = client.patch(url, {"round_count": 7, "bye_points": "none"}, format="json")
    assert changed.status_code == 200, changed.content
    for shown in (changed.json(), client.get(url).json()):
        assert (shown["format"], shown["round_count"], shown["bye_points"]) == ("swiss", 7, "none")


@pytest.mark.parametrize("encoding", ["json", "multipart"])
def test_a_round_robin_given_settings_of_other_formats_is_a_400_naming_each(encoding: str) -> None:
    cast = make_cast()
    body = {"club": cast.club.pk, "name": "League", "game": "war", "challenge_reach": 5, "sprt_alpha": 0.2}
    refused = cast.client("organiser").post("/api/tournaments/", body, format=encoding)
    assert refused.status_code == 400
    assert sorted(refused.json()) == ["challenge_reach", "sprt_alpha"]
    assert "the Round robin format has no setting 'challenge_reach'" in refused.json()["challenge_reach"][0]
    assert not Competition.objects.filter(name="League").exists()


@pytest.mark.parametrize("seconds", [1, 3, 4, 5])
def test_the_api_and_the_service_refuse_a_move_clock_alike_at_the_same_bound(seconds: int) -> None:
    cast = make_cast()
    body = {"club": cast.club.pk, "name": "Quick", "game": "war", "move_seconds": seconds}
    api = cast.client("organiser").post("/api/tournaments/", body, format="json")
    try:
        competition_create(
            club=cast.club, created_by=cast.organiser, name="Quick", game="war", settings={"move_seconds": seconds}
        )
        service: dict[str, list[str]] | None = None
    except ValidationError as exc:
        service = exc.message_dict
    if seconds < 5:
        assert api.status_code == 400
        assert api.json() == service == {"move_seconds": ["must be between 5 and 604800"]}
    else:
        assert api.status_code == 201 and service is None
        assert api.json()["move_seconds"] == 5
        assert Competition.objects.filter(name="Quick", move_seconds=5).count() == 2


# --- Bounds: every setting of every format, as its spec says ----------------------------------------------------


def _probes(setting: Setting) -> list[float]:
    """Values at and around each bound of a number setting."""
    assert isinstance(setting, WholeNumber | Number)
    step = 1 if isinstance(setting, WholeNumber) else 1e-9
    values: list[float] = []
    for bound in (setting.minimum, setting.maximum):
        if bound is not None:
            values += [bound - step, bound, bound + step]
    return values


def _takes(field: serializers.Field[Any, Any, Any, Any], value: object) -> bool:
    try:
        field.run_validation(value)
    except serializers.ValidationError:
        return False
    return True


def _spec_takes(setting: Setting, value: object) -> bool:
    try:
        setting.parse(value)
    except SettingRefused:
        return False
    return True


def _stated_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: schema[k] for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") if k in schema}


def _spec_bounds(setting: Setting) -> dict[str, Any]:
    if isinstance(setting, CompetitionRef | BotVersionRef):
        return {"minimum": 1}  # an id
    if not isinstance(setting, WholeNumber | Number):
        return {}
    exclusive = isinstance(setting, Number) and setting.exclusive
    bounds: dict[str, Any] = {}
    for name, bound in (("Minimum", setting.minimum), ("Maximum", setting.maximum)):
        if bound is not None:
            bounds[name.lower()] = bound
            if exclusive:
                bounds[f"exclusive{name}"] = True
    return bounds


def _components(schema: dict[str, Any], union: str) -> dict[str, dict[str, Any]]:
    """Each format's component of a union (create, update or output), by format key."""
    components = schema["components"]["schemas"]
    shape = components[union]
    refs = (
        shape["discriminator"]["mapping"]
        if "discriminator" in shape
        else dict(zip(format_keys(), [branch["$ref"] for branch in shape["anyOf"]], strict=True))
    )
    return {key: components[ref.rsplit("/", 1)[1]] for key, ref in refs.items()}


def test_every_settings_bounds_in_the_api_and_its_schema_are_its_specs() -> None:
    cast = make_cast()
    schema = cast.client("anonymous").get("/api/schema/", {"format": "json"}).json()
    created = _components(schema, "CompetitionCreateRequest")
    changed = _components(schema, "PatchedCompetitionUpdateRequest")
    shown = _components(schema, "Competition")
    assert set(created) == set(changed) == set(shown) == set(format_keys())
    checked = 0
    for key in format_keys():
        format = get_format(key)
        for setting in competition_spec(format):
            bounds = _spec_bounds(setting)
            assert _stated_bounds(created[key]["properties"][setting.name]) == bounds, (key, setting.name)
            assert _stated_bounds(changed[key]["properties"][setting.name]) == bounds, (key, setting.name)
            if setting in format.settings:
                assert _stated_bounds(shown[key]["properties"][setting.name]) == bounds, (key, setting.name)
            if not isinstance(setting, WholeNumber | Number):
                continue
            for serializer in (create_serializer(key)(), update_serializer(key)()):
                field = serializer.fields[setting.name]
                for value in _probes(setting):
                    assert _takes(field, value) == _spec_takes(setting, value), (key, setting.name, value)
                    checked += 1
    assert checked > 100


def test_a_probability_is_strictly_between_its_bounds() -> None:
    """sprt_alpha and sprt_beta: 0 and 0.5 are refused, in the API as in its schema."""
    cast = make_cast()
    schema = cast.client("anonymous").get("/api/schema/", {"format": "json"}).json()
    alpha = _components(schema, "CompetitionCreateRequest")["separation"]["properties"]["sprt_alpha"]
    assert (alpha["minimum"], alpha["exclusiveMinimum"], alpha["maximum"], alpha["exclusiveMaximum"]) == (
        0,
        True,
        0.5,
        True,
    )
    for value, taken in ((0, False), (0.5, False), (math.nextafter(0, 1), True), (0.4999, True)):
        body = {"club": cast.club.pk, "name": f"Test {value}", "game": "war", "format": "separation"}
        answer = cast.client("organiser").post("/api/tournaments/", {**body, "sprt_beta": value}, format="json")
        assert (answer.status_code == 201) == taken, (value, answer.content)
        if not taken:
            assert answer.json() == {"sprt_beta": ["must be more than 0 and less than 0.5"]}


# --- Creating and changing ------------------------------------------------------------------------------------


def test_a_creation_without_a_format_is_a_round_robin_shown_with_its_own_settings_flat() -> None:
    cast = make_cast()
    shown = _created(cast)
    assert shown["format"] == "round_robin"
    # A round robin can be a stage: its own settings are those of the cut, beside the common fields.
    assert {s.name for s in get_format("round_robin").settings} <= set(shown)
    assert (shown["cut_to"], shown["cut_format"], shown["move_seconds"]) == (None, "", 300)
    assert "round_count" not in shown


def test_an_unknown_format_is_a_400_naming_format() -> None:
    cast = make_cast()
    for format, message in (("monrad", '"monrad" is not a valid choice.'), (None, "This field may not be null.")):
        body = {"club": cast.club.pk, "name": "X", "game": "war", "format": format}
        refused = cast.client("organiser").post("/api/tournaments/", body, format="json")
        assert refused.status_code == 400 and refused.json() == {"format": [message]}


def test_json_values_keep_their_types_while_a_form_is_read_as_text() -> None:
    cast = make_cast()
    body = {"club": cast.club.pk, "name": "Typed", "game": "war", "format": "swiss", "round_count": "7"}
    refused = cast.client("organiser").post("/api/tournaments/", body, format="json")
    assert refused.status_code == 400 and refused.json() == {"round_count": ["A valid integer is required."]}
    from_a_form = cast.client("organiser").post("/api/tournaments/", body, format="multipart")
    assert from_a_form.status_code == 201, from_a_form.content
    assert (from_a_form.json()["format"], from_a_form.json()["round_count"]) == ("swiss", 7)
    bad = cast.client("organiser").post("/api/tournaments/", {**body, "round_count": "0"}, format="multipart")
    assert bad.status_code == 400 and bad.json() == {"round_count": ["must be between 1 and 1000"]}


def test_a_change_that_may_not_happen_now_is_a_400_naming_it_and_why() -> None:
    cast = make_cast()
    client = cast.client("organiser")
    competition = _created(cast, format="swiss")
    url = f"/api/tournaments/{competition['id']}/"
    fixed = client.patch(url, {"players_per_match": 3, "format": "round_robin", "club": cast.club.pk}, format="json")
    assert fixed.status_code == 400
    assert fixed.json() == {
        "club": ["is chosen when the competition is created and cannot change"],
        "format": ["is chosen when the competition is created and cannot change"],
    }
    at_creation = client.patch(url, {"players_per_match": 3}, format="json")
    assert at_creation.json() == {"players_per_match": ["is set when the competition is created and cannot change"]}
    # Its value as it stands is no change: a form sends every field back.
    assert client.patch(url, {"players_per_match": 2}, format="json").status_code == 200
    add_entrants(Competition.objects.get(pk=competition["id"]), 4)
    assert client.post(f"{url}start/").status_code == 200
    late = client.patch(url, {"bye_points": "draw", "live_tables_public": False}, format="json")
    assert late.status_code == 400
    assert late.json() == {"bye_points": ["can change only while entries are open; the competition is running"]}
    assert client.get(url).json()["live_tables_public"] is True
    anytime = client.patch(url, {"live_tables_public": False}, format="json")
    assert anytime.status_code == 200 and anytime.json()["live_tables_public"] is False


def test_a_form_encoded_change_is_held_to_the_same_fields() -> None:
    cast = make_cast()
    client = cast.client("organiser")
    url = f"/api/tournaments/{_created(cast, format='swiss')['id']}/"
    refused = client.patch(url, {"round_count": "4", "sprt_alpha": "0.2"}, format="multipart")
    assert refused.status_code == 400 and list(refused.json()) == ["sprt_alpha"]
    changed = client.patch(url, {"round_count": "4"}, format="multipart")
    assert changed.status_code == 200 and changed.json()["round_count"] == 4


def test_the_list_shows_each_competition_with_its_own_formats_settings() -> None:
    cast = make_cast()
    for format in ("swiss", "separation", "challenge_ladder"):
        _created(cast, format=format, name=format)
    rows = {row["name"]: row for row in results(cast.client("anonymous").get("/api/tournaments/"))}
    assert rows["swiss"]["bye_points"] == "win" and "sprt_alpha" not in rows["swiss"]
    assert rows["separation"]["sprt_alpha"] == 0.05 and "bye_points" not in rows["separation"]
    assert rows["challenge_ladder"]["challenge_reach"] == 3


def test_the_schema_gives_one_shape_per_format_for_each_competition_operation() -> None:
    schema = make_cast().client("anonymous").get("/api/schema/", {"format": "json"}).json()
    paths, components = schema["paths"], schema["components"]["schemas"]

    def body(operation: dict[str, Any], code: str | None = None) -> str:
        content = operation["requestBody"] if code is None else operation["responses"][code]
        ref: str = content["content"]["application/json"]["schema"]["$ref"]
        return ref.rsplit("/", 1)[1]

    create = paths["/api/tournaments/"]["post"]
    assert body(create) == "CompetitionCreateRequest" and create["requestBody"]["required"] is True
    assert body(create, "201") == "Competition"
    page = components[body(paths["/api/tournaments/"]["get"], "200")]
    assert page["properties"]["results"]["items"] == {"$ref": "#/components/schemas/Competition"}
    one = paths["/api/tournaments/{id}/"]
    assert body(one["get"], "200") == body(one["patch"], "200") == "Competition"
    assert body(one["patch"]) == "PatchedCompetitionUpdateRequest"
    created = _components(schema, "CompetitionCreateRequest")
    assert components["CompetitionCreateRequest"]["discriminator"]["propertyName"] == "format"
    assert components["CompetitionCreateRequest"]["required"] == ["club", "game", "name"]
    for key, shape in created.items():
        assert shape["additionalProperties"] is False
        assert shape["properties"]["format"]["allOf"] == [{"$ref": f"#/components/schemas/{_camel(key)}FormatEnum"}]
        # Only the format a body may leave out is not asked for.
        assert ("format" in shape["required"]) == (key != "round_robin"), key
        own = {s.name for s in competition_spec(get_format(key))}
        assert own <= set(shape["properties"]), key
    assert "round_count" in created["swiss"]["properties"] and "round_count" not in created["separation"]["properties"]


def _camel(key: str) -> str:
    return "".join(part.capitalize() for part in key.split("_"))


def test_the_list_filters_by_format_and_refuses_one_there_is_not() -> None:
    cast = make_cast()
    for format in ("swiss", "separation"):
        _created(cast, format=format, name=format)
    client = cast.client("anonymous")
    assert [row["name"] for row in results(client.get("/api/tournaments/", {"competition_format": "swiss"}))] == [
        "swiss"
    ]
    refused = client.get("/api/tournaments/", {"competition_format": "monrad"})
    assert refused.status_code == 400 and list(refused.json()) == ["competition_format"]
    schema = client.get("/api/schema/", {"format": "json"}).json()
    parameters = schema["paths"]["/api/tournaments/"]["get"]["parameters"]
    stated = next(p["schema"] for p in parameters if p["name"] == "competition_format")
    assert sorted(stated["enum"]) == sorted(format_keys())
