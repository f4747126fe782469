"""The OpenAPI schema (drf-spectacular) at /api/schema/ and Swagger UI at /api/docs/."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import resolve
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

MAIN_PATHS = {
    "/api/matches/{id}/table/": {"get"},
    "/api/matches/{id}/moves/": {"post"},
    "/api/players/me/matches/": {"get"},
    "/api/auth/token/": {"post"},
    "/api/auth/register/": {"post"},
    "/api/players/": {"get"},
    "/api/players/{id}/": {"get"},
    "/api/": {"get"},
    "/api/players/me/": {"get", "patch"},
    "/api/bots/": {"get", "post"},
    "/api/bots/{id}/": {"get", "patch", "delete"},
    "/api/bots/{id}/retire/": {"post"},
    "/api/bots/{bot_pk}/versions/": {"get", "post"},
    "/api/bots/{bot_pk}/versions/{number}/": {"get"},
    "/api/bots/{bot_pk}/versions/{number}/log/": {"get"},
    "/api/bots/{bot_pk}/versions/{number}/reinstate/": {"post"},
    # A bot's training data (issue 26, docs/training-data.md).
    "/api/bots/{id}/training-data/": {"get"},
    "/api/clubs/": {"get", "post"},
    "/api/clubs/{id}/": {"get", "patch"},
    "/api/clubs/{club_pk}/members/": {"get", "post"},
    "/api/clubs/{club_pk}/members/{id}/": {"delete"},
    # Joining clubs.
    "/api/clubs/{id}/join/": {"post"},
    "/api/clubs/{id}/leave/": {"post"},
    "/api/clubs/{club_pk}/invitations/": {"get", "post"},
    "/api/clubs/{club_pk}/invitations/{id}/revoke/": {"post"},
    "/api/invitations/{code}/": {"get"},
    "/api/invitations/{code}/accept/": {"post"},
    "/api/clubs/{club_pk}/join-requests/": {"get"},
    "/api/clubs/{club_pk}/join-requests/{id}/accept/": {"post"},
    "/api/clubs/{club_pk}/join-requests/{id}/decline/": {"post"},
    "/api/clubs/{club_pk}/join-requests/{id}/withdraw/": {"post"},
    # Personal invitations (made by POST .../members/ for someone outside the club).
    "/api/clubs/{club_pk}/personal-invitations/": {"get"},
    "/api/clubs/{club_pk}/personal-invitations/{id}/withdraw/": {"post"},
    "/api/players/me/invitations/": {"get"},
    "/api/players/me/invitations/{id}/accept/": {"post"},
    "/api/players/me/invitations/{id}/decline/": {"post"},
    # A club's webhooks (issue 24, docs/webhooks.md).
    "/api/clubs/{club_pk}/webhooks/": {"get", "post"},
    "/api/clubs/{club_pk}/webhooks/{id}/": {"delete"},
    "/api/clubs/{club_pk}/webhooks/{id}/deliveries/": {"get"},
    # The caller's notifications (issue 24).
    "/api/notifications/": {"get"},
    "/api/notifications/read/": {"post"},
    "/api/notifications/{id}/read/": {"post"},
    "/api/tournaments/": {"get", "post"},
    "/api/tournaments/{id}/": {"get", "patch"},
    "/api/tournaments/{id}/start/": {"post"},
    "/api/tournaments/{id}/cancel/": {"post"},
    "/api/tournaments/{id}/play/": {"post"},
    "/api/tournaments/{id}/progress/": {"get"},
    "/api/tournaments/{id}/ratings/history/": {"get"},
    "/api/tournaments/{id}/head-to-head/": {"get"},
    "/api/tournaments/{id}/separation/": {"get"},
    "/api/tournaments/{id}/opponents/": {"get"},
    "/api/tournaments/{id}/bracket/": {"get"},
    # Exports (docs/exports.md).
    "/api/tournaments/{id}/games.jsonl": {"get"},
    "/api/tournaments/{id}/export/": {"get"},
    "/api/tournaments/import/": {"post"},
    "/api/tournaments/{competition_pk}/entrants/": {"get", "post"},
    "/api/tournaments/{competition_pk}/entrants/{id}/": {"delete"},
    # Challenge ladders.
    "/api/tournaments/{competition_pk}/challenges/": {"get", "post"},
    "/api/tournaments/{competition_pk}/challenges/{number}/": {"get"},
    "/api/tournaments/{competition_pk}/challenges/{number}/accept/": {"post"},
    "/api/tournaments/{competition_pk}/challenges/{number}/decline/": {"post"},
    "/api/tournaments/{competition_pk}/challenges/{number}/withdraw/": {"post"},
    "/api/tournaments/{competition_pk}/rounds/": {"get"},
    "/api/tournaments/{competition_pk}/standings/": {"get"},
    "/api/matches/": {"get"},
    "/api/matches/{id}/": {"get"},
    "/api/matches/{id}/retry/": {"post"},
    "/api/matches/{id}/logs/": {"get"},
    "/api/matches/{match_pk}/race/": {"get"},
    "/api/matches/{match_pk}/sets/": {"get"},
    "/api/games/": {"get"},
    "/api/games/{id}/": {"get"},
    "/api/games/{id}/record/": {"get"},
    # Transcripts of games played with real cards.
    "/api/matches/{match_pk}/transcripts/": {"get", "post"},
    "/api/matches/{match_pk}/transcripts/{number}/": {"get"},
    "/api/matches/{match_pk}/transcripts/{number}/confirm/": {"post"},
    "/api/matches/{match_pk}/transcripts/{number}/dispute/": {"post"},
    "/api/matches/{match_pk}/transcripts/{number}/void/": {"post"},
    "/api/matches/{match_pk}/transcripts/{number}/accept/": {"post"},
    "/api/tournaments/{competition_pk}/disputes/": {"get"},
}


def test_the_schema_is_valid_openapi_and_lists_every_main_path_with_its_methods() -> None:
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    validate_schema(schema)
    assert {path: set(ops) & {"get", "post", "patch", "put", "delete"} for path, ops in schema["paths"].items()} == (
        MAIN_PATHS
    )


def test_the_schema_types_ids_as_integers_and_pages_lists() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/tournaments/{competition_pk}/standings/"]["get"]
    assert {p["name"]: p["schema"]["type"] for p in operation["parameters"]} == {
        "competition_pk": "integer",
        "page": "integer",
    }
    page = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert page == "#/components/schemas/PaginatedStandingRowList"
    # The whole table as CSV too (docs/exports.md).
    assert operation["responses"]["200"]["content"]["text/csv"]["schema"] == {"type": "string"}
    match_filters = {p["name"] for p in schema["paths"]["/api/matches/"]["get"]["parameters"]}
    assert {"competition", "status", "game", "player", "entrant", "created_after", "finished_before"} <= match_filters


def test_schema_generation_warns_about_nothing_but_enum_names() -> None:
    # Enum names (several models have a "status" or "kind") are settled by ENUM_NAME_OVERRIDES in settings;
    # anything else (an untyped path parameter, an unknown serializer) is a defect in the API code.
    GENERATOR_STATS.reset()
    with GENERATOR_STATS.silence():
        SchemaGenerator().get_schema(request=None, public=True)
    warnings = [message for message in GENERATOR_STATS._warn_cache if "enum naming" not in message]
    errors = list(GENERATOR_STATS._error_cache)
    GENERATOR_STATS.reset()
    assert (warnings, errors) == ([], [])


def test_swagger_ui_is_served_at_api_docs() -> None:
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger-ui" in response.content and b"/api/schema/" in response.content


# --- Error responses (config/schema.py) ----------------------------------------------------------------

#: Reads that refuse some callers: private records, hidden live tables, a bot's log, transcripts, disputes.
READS_THAT_REFUSE = {
    ("get", "/api/games/{id}/record/"),
    ("get", "/api/matches/{id}/table/"),
    ("get", "/api/bots/{bot_pk}/versions/{number}/log/"),
    ("get", "/api/bots/{id}/training-data/"),
    ("get", "/api/matches/{match_pk}/transcripts/"),
    ("get", "/api/matches/{match_pk}/transcripts/{number}/"),
    ("get", "/api/tournaments/{competition_pk}/disputes/"),
    ("get", "/api/clubs/{club_pk}/invitations/"),
    ("get", "/api/clubs/{club_pk}/personal-invitations/"),
    ("get", "/api/clubs/{club_pk}/webhooks/"),
    ("get", "/api/clubs/{club_pk}/webhooks/{id}/deliveries/"),
    # Exports: the private records and the whole competition are for its organisers.
    ("get", "/api/tournaments/{id}/games.jsonl"),
    ("get", "/api/tournaments/{id}/export/"),
}
#: Where the view raises tournaments.errors.Conflict.
CONFLICTS = {
    ("post", "/api/bots/{bot_pk}/versions/{number}/reinstate/"),
    ("post", "/api/matches/{id}/moves/"),
    ("post", "/api/matches/{match_pk}/transcripts/"),
    ("post", "/api/matches/{match_pk}/transcripts/{number}/confirm/"),
    ("post", "/api/matches/{match_pk}/transcripts/{number}/dispute/"),
    ("post", "/api/matches/{match_pk}/transcripts/{number}/void/"),
    ("post", "/api/matches/{match_pk}/transcripts/{number}/accept/"),
    ("post", "/api/clubs/{id}/join/"),
    ("post", "/api/clubs/{id}/leave/"),
    ("delete", "/api/clubs/{club_pk}/members/{id}/"),
    ("post", "/api/clubs/{club_pk}/members/"),
    ("post", "/api/clubs/{club_pk}/personal-invitations/{id}/withdraw/"),
    ("post", "/api/players/me/invitations/{id}/accept/"),
    ("post", "/api/players/me/invitations/{id}/decline/"),
    ("post", "/api/invitations/{code}/accept/"),
    ("post", "/api/clubs/{club_pk}/join-requests/{id}/accept/"),
    ("post", "/api/clubs/{club_pk}/join-requests/{id}/decline/"),
    ("post", "/api/clubs/{club_pk}/join-requests/{id}/withdraw/"),
    ("delete", "/api/tournaments/{competition_pk}/entrants/{id}/"),
    ("post", "/api/tournaments/{competition_pk}/challenges/"),
    ("post", "/api/tournaments/{competition_pk}/challenges/{number}/accept/"),
    ("post", "/api/tournaments/{competition_pk}/challenges/{number}/decline/"),
    ("post", "/api/tournaments/{competition_pk}/challenges/{number}/withdraw/"),
}
#: Writes without a body that nothing refuses as bad input.
WRITES_NEVER_400 = {
    ("post", "/api/bots/{bot_pk}/versions/{number}/reinstate/"),
    ("post", "/api/bots/{id}/retire/"),
    ("post", "/api/matches/{match_pk}/transcripts/{number}/confirm/"),
    ("post", "/api/clubs/{id}/leave/"),
    ("post", "/api/clubs/{club_pk}/invitations/{id}/revoke/"),
    ("post", "/api/invitations/{code}/accept/"),
    ("post", "/api/clubs/{club_pk}/join-requests/{id}/accept/"),
    ("post", "/api/clubs/{club_pk}/join-requests/{id}/decline/"),
    ("post", "/api/clubs/{club_pk}/join-requests/{id}/withdraw/"),
    ("post", "/api/clubs/{club_pk}/personal-invitations/{id}/withdraw/"),
    ("post", "/api/players/me/invitations/{id}/accept/"),
    ("post", "/api/players/me/invitations/{id}/decline/"),
    ("post", "/api/tournaments/{competition_pk}/challenges/{number}/withdraw/"),
    ("post", "/api/notifications/{id}/read/"),
    ("post", "/api/notifications/read/"),
    ("delete", "/api/clubs/{club_pk}/webhooks/{id}/"),
}
#: Operations that need no authentication at all: the token endpoint reads credentials from its body, and
#: anyone may sign up.
UNAUTHENTICATED = {("post", "/api/auth/token/"), ("post", "/api/auth/register/")}


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in {"get", "post", "put", "patch", "delete"}
    ]


def _throttled(path: str, method: str) -> bool:
    """Whether the view behind this operation throttles (the other engineer's throttle_scope and classes)."""
    match = resolve(re.sub(r"\{[^}]+\}", "1", path))
    view_class = match.func.cls  # type: ignore[attr-defined]
    view = view_class(**getattr(match.func, "initkwargs", {}))
    actions = getattr(match.func, "actions", None)
    if actions:
        view.action = actions.get(method)
    return bool(view.get_throttles())


def expected_errors(method: str, path: str, operation: dict[str, Any]) -> set[str]:
    """The rule of the issue: which 4xx every operation documents."""
    key = (method, path)
    query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
    in_path = any(p["in"] == "path" for p in operation.get("parameters", []))
    write = method != "get"
    codes: set[int] = set()
    if (write and key not in WRITES_NEVER_400) or query - {"page"}:
        codes.add(400)
    if key not in UNAUTHENTICATED:
        codes.add(401)
        if write or key in READS_THAT_REFUSE:
            codes.add(403)
    if in_path or "page" in query:
        codes.add(404)
    if key in CONFLICTS:
        codes.add(409)
    if "requestBody" in operation:
        codes.add(415)
    if _throttled(path, method):
        codes.add(429)
    return {str(code) for code in codes}


def test_every_operation_documents_exactly_the_errors_it_can_return() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    documented = {
        (method, path): {code for code in operation["responses"] if code.startswith("4")}
        for method, path, operation in _operations(schema)
    }
    expected = {(method, path): expected_errors(method, path, op) for method, path, op in _operations(schema)}
    assert documented == expected
    assert len(documented) >= 55


def test_error_responses_carry_their_bodies() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    assert components["Error"]["required"] == ["detail"]
    assert components["FieldErrors"]["additionalProperties"] == {"$ref": "#/components/schemas/FieldError"}
    for method, path, operation in _operations(schema):
        for code, response in operation["responses"].items():
            if not code.startswith("4"):
                continue
            body = response["content"]["application/json"]["schema"]
            wanted = "FieldErrors" if code == "400" else "Error"
            assert body == {"$ref": f"#/components/schemas/{wanted}"}, (method, path, code)
            assert response["description"], (method, path, code)
        if "429" in operation["responses"]:
            assert "Retry-After" in operation["responses"]["429"]["headers"], (method, path)
        needs_login = operation.get("security") and {} not in operation["security"]
        if needs_login:
            assert "No credentials" in operation["responses"]["401"]["description"], (method, path)


def test_a_field_error_body_matches_the_documented_shape() -> None:
    """What DRF sends for bad input (nested, parse errors) fits FieldErrors, as the fuzz gate checks live."""
    import jsonschema

    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    validator = jsonschema.Draft4Validator({"$ref": "#/components/schemas/FieldErrors", **schema})
    for body in (
        {"name": ["This field is required."], "non_field_errors": ["give exactly one"]},
        {"detail": "JSON parse error - Expecting value"},
        {"options": {"dummy": ["must be true or false"]}, "referees": {"0": ["Invalid pk"]}},
        {"members": [{}, {"player": ["Invalid pk"]}]},
    ):
        assert validator.is_valid(body), body
    assert not validator.is_valid({"name": "a string, not a list"})


def test_the_documented_errors_the_fuzzer_does_not_provoke_happen_as_documented() -> None:
    """401 for a bad token on a public read, and 415 for a body the operation does not read."""
    bad_token = APIClient(HTTP_AUTHORIZATION="Token not-a-token").get("/api/tournaments/")
    assert bad_token.status_code == 401 and set(bad_token.json()) == {"detail"}
    user = PlayerFactory().user
    client = APIClient()
    client.force_authenticate(user)
    unreadable = client.post("/api/bots/", "name=x", content_type="text/plain")
    assert unreadable.status_code == 415 and set(unreadable.json()) == {"detail"}
    # The token endpoint reads credentials from its body alone: a stale token sent along changes nothing.
    stale = APIClient(HTTP_AUTHORIZATION="Token not-a-token").post(
        "/api/auth/token/", {"username": user.username, "password": "wrong"}, format="json"
    )
    assert stale.status_code == 400


def test_every_operation_documents_its_503_with_retry_after() -> None:
    """While the database is away every operation answers 503 with Retry-After (config/unavailable.py)."""
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    for method, path, operation in _operations(schema):
        unavailable = operation["responses"].get("503")
        assert unavailable is not None, (method, path)
        assert unavailable["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
        assert "Retry-After" in unavailable["headers"], (method, path)
