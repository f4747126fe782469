"""The OpenAPI schema's error responses, decided in one place for every operation.

drf-spectacular documents what a view returns when all goes well; a client also needs what it
gets when not. Every operation documents the errors it can really return, with their bodies:

- 400, the field-error shape (``{"field": ["message"], "non_field_errors": [...]}``, or
  ``{"detail": "..."}`` for a body that does not parse): every write, and every read whose query
  string is validated (list filters, the record's ``view``);
- 401: every operation that authenticates, for a token that is not valid; for an operation that
  needs a login, also for no credentials at all;
- 403: every write (object permissions, and the CSRF check of a session login), and the reads a
  view refuses to some callers (``errors(add=[403])``);
- 404: every operation with an id in its path, and every paginated list (a page past the end);
- 409: where the view raises ``tournaments.errors.Conflict`` (``errors(add=[409])``);
- 415: every operation with a request body, for a Content-Type it does not parse;
- 429: every operation whose view throttles (``get_throttles()``);
- 503: every operation, while the database (or Redis, where it is needed) cannot be reached, with
  ``Retry-After`` (config/unavailable.py).

A view that differs says so with ``errors(add=..., drop=...)`` on its method; one that documents a
code itself with ``extend_schema(responses=...)`` keeps its own. ``tests/tournaments/
test_api_schema.py`` holds every operation to these rules, and ``tournaments.fuzz`` (``make fuzz``)
holds the running server to the schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.validators import RegexValidator
from drf_spectacular import openapi
from drf_spectacular.plumbing import ComponentRegistry, ResolvedComponent
from rest_framework import serializers
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import ScopedRateThrottle

F = TypeVar("F", bound=Callable[..., Any])

_ERRORS_ATTR = "_schema_errors"

#: What each error status means in this API, as the schema describes it.
DESCRIPTIONS = {
    400: "Bad input: a message per field (`non_field_errors` for the request as a whole), or `detail` "
    "for a body that does not parse.",
    401: "The Authorization header's token is not valid.",
    403: "Not allowed: the caller may not do this here (or a session login's CSRF token is missing).",
    404: "No such object (or no such page of the list).",
    409: "The request conflicts with the current state of what it acts on; nothing changed.",
    415: "The request body's Content-Type is not one this operation reads.",
    429: "Too many requests: throttled; `Retry-After` says in how many seconds to try again.",
    503: "The service is briefly unavailable (its database cannot be reached); `Retry-After` says in how many "
    "seconds to try again.",
}
LOGIN_NEEDED = "No credentials were given, or the Authorization header's token is not valid."

FIELD_ERRORS = "FieldErrors"
FIELD_ERROR = "FieldError"


class ErrorSerializer(serializers.Serializer[Any]):
    """The body of every error but bad input: one message."""

    detail = serializers.CharField(help_text="What went wrong, for a person to read.")


def errors(*, add: Iterable[int] = (), drop: Iterable[int] = ()) -> Callable[[F], F]:
    """Mark a view method whose error responses differ from what config.schema decides for it.

    ``add``: codes it returns beyond the rule (a read that refuses some callers: 403; a Conflict: 409);
    ``drop``: codes the rule gives it that it never returns (a body-less write no service refuses: 400).
    """

    def mark(method: F) -> F:
        setattr(method, _ERRORS_ATTR, (frozenset(add), frozenset(drop)))
        return method

    return mark


def _field_error_components(registry: ComponentRegistry) -> dict[str, str]:
    """The 400 shape: DRF's validation errors, nested as deep as the serializers are."""
    errors_ref = f"#/components/schemas/{FIELD_ERRORS}"
    error_ref = f"#/components/schemas/{FIELD_ERROR}"
    registry.register_on_missing(
        ResolvedComponent(
            name=FIELD_ERRORS,
            type=ResolvedComponent.SCHEMA,
            object=FIELD_ERRORS,
            schema={
                "type": "object",
                "description": "Each field's errors under its name; errors about the request as a whole under "
                "`non_field_errors`; or, for a body that does not parse, one `detail`.",
                "properties": {
                    "detail": {"type": "string", "description": "Why the body could not be read."},
                    "non_field_errors": {"type": "array", "items": {"type": "string"}},
                },
                "additionalProperties": {"$ref": error_ref},
            },
        )
    )
    registry.register_on_missing(
        ResolvedComponent(
            name=FIELD_ERROR,
            type=ResolvedComponent.SCHEMA,
            object=FIELD_ERROR,
            schema={
                "description": "A field's messages; for a field holding objects or lists, the errors of "
                "what is inside it, by key or position.",
                "anyOf": [
                    {"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": errors_ref}]}},
                    {"$ref": errors_ref},
                ],
            },
        )
    )
    return {"$ref": errors_ref}


#: Text a CharField takes: no NUL anywhere (Django refuses them: PostgreSQL cannot store them). One
#: character or more: drf-spectacular offers blank text, where a field allows it, as a choice of its own.
NO_NUL = "^[^\\u0000]+$"
#: What Python's str.strip() takes off, spelled out: \s means less to the JSON Schema validators of other
#: languages (no \x1c-\x1f, no \x85), and a field would refuse as blank what the schema allowed.
SPACE = "\\t\\n\\u000b\\u000c\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
#: ... and, when it trims and refuses blank text, something besides whitespace.
NOT_BLANK = f"^[^\\u0000]*[^{SPACE}\\u0000][^\\u0000]*$"


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's AutoSchema, with the error responses above added to every operation.

    Two more things the API does that drf-spectacular does not say: a query-string filter or page
    given an empty value is no filter (django-filter's rule, which the browsable API's filter form
    relies on), and text fields refuse NUL characters and, unless blank is allowed, whitespace alone.
    """

    # drf-spectacular's methods are unannotated, and mypy's untyped_calls_exclude misses calls through
    # super() (python/mypy#16653): hence the ignores below.

    def _get_filter_parameters(self) -> list[dict[str, Any]]:
        return [_text_without_nul(_empty_allowed(p)) for p in super()._get_filter_parameters()]  # type: ignore[no-untyped-call]

    def _get_pagination_parameters(self) -> list[dict[str, Any]]:
        return [_empty_allowed(p) for p in super()._get_pagination_parameters()]  # type: ignore[no-untyped-call]

    def _map_serializer_field(self, field: Any, direction: str, bypass_extensions: bool = False) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_serializer_field(  # type: ignore[no-untyped-call]
            field, direction, bypass_extensions
        )
        if direction == "request" and isinstance(field, serializers.FileField) and not field.allow_empty_file:
            schema.setdefault("minLength", 1)  # an empty file is refused
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and schema.get("type") == "string"
            and not {"pattern", "enum", "format"} & schema.keys()
            # A slug, URL or other regex-checked text gets the validator's own pattern (drf-spectacular's).
            and not any(isinstance(v, RegexValidator) for v in field.validators)
        ):
            blank_refused = not field.allow_blank and field.trim_whitespace
            schema["pattern"] = NOT_BLANK if blank_refused else NO_NUL
        return schema

    def get_operation(
        self, path: str, path_regex: str, path_prefix: str, method: str, registry: ComponentRegistry
    ) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses: dict[str, Any] = operation["responses"]
        for code in sorted(self.error_codes(operation)):
            if str(code) not in responses:
                responses[str(code)] = self._error_response(code, operation)
        operation["responses"] = dict(sorted(responses.items()))
        body = operation.get("requestBody")
        if body is not None and any(_needs_fields(m.get("schema", {})) for m in body["content"].values()):
            # drf-spectacular leaves a body given as a plain schema optional, whatever it requires.
            body["required"] = True
        return operation

    def error_codes(self, operation: dict[str, Any]) -> set[int]:
        """The error statuses this operation can return (see the module's docstring)."""
        parameters = operation.get("parameters", [])
        query = {p["name"] for p in parameters if p["in"] == "query"}
        in_path = any(p["in"] == "path" for p in parameters)
        write = self.method not in SAFE_METHODS
        authenticates = bool(self.view.get_authenticators())
        codes: set[int] = set()
        if write or query - {"page"}:
            codes.add(400)
        if authenticates:
            codes.add(401)
        if write and (authenticates or self.view.get_permissions()):
            codes.add(403)
        if in_path or "page" in query:
            codes.add(404)
        if "requestBody" in operation:
            codes.add(415)
        if self._throttled():
            codes.add(429)
        codes.add(503)
        add, drop = self._marked()
        return (codes | add) - drop

    def _marked(self) -> tuple[frozenset[int], frozenset[int]]:
        action = getattr(self.view, "action", None)
        method = getattr(self.view, action or self.method.lower(), None)
        marked: tuple[frozenset[int], frozenset[int]] = getattr(method, _ERRORS_ATTR, (frozenset(), frozenset()))
        return marked

    def _throttled(self) -> bool:
        # A scoped throttle only acts on a view that names its scope; any other throttle always may.
        return any(
            not isinstance(throttle, ScopedRateThrottle) or getattr(self.view, "throttle_scope", None)
            for throttle in self.view.get_throttles()
        )

    def _needs_login(self, operation: dict[str, Any]) -> bool:
        security: list[dict[str, Any]] = operation.get("security") or []
        return bool(security) and {} not in security

    def _error_response(self, code: int, operation: dict[str, Any]) -> dict[str, Any]:
        if code == 400:
            schema = _field_error_components(self.registry)
        else:
            component = self.resolve_serializer(ErrorSerializer, "response")
            schema = component.ref
        description = LOGIN_NEEDED if code == 401 and self._needs_login(operation) else DESCRIPTIONS[code]
        response: dict[str, Any] = {"content": {"application/json": {"schema": schema}}, "description": description}
        if code in (429, 503):
            response["headers"] = {
                "Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait before trying again."}
            }
        return response


def _empty_allowed(parameter: dict[str, Any]) -> dict[str, Any]:
    return {**parameter, "allowEmptyValue": True} if parameter.get("in") == "query" else parameter


def _needs_fields(schema: dict[str, Any]) -> bool:
    """Whether a request schema written out in full (not a component) asks for a field in every case."""
    if "$ref" in schema:
        return False
    if schema.get("required"):
        return True
    branches = schema.get("oneOf") or schema.get("anyOf") or []
    return bool(branches) and all(_needs_fields(branch) for branch in branches)


def _text_without_nul(parameter: dict[str, Any]) -> dict[str, Any]:
    """A free-text filter (``?name=``) refuses NUL, as a text field does (Django's form field)."""
    schema = parameter.get("schema", {})
    if schema.get("type") != "string" or {"pattern", "enum", "format"} & schema.keys():
        return parameter
    return {**parameter, "schema": {**schema, "pattern": NO_NUL}}
