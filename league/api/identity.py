"""Who is asking: the caller's Player profile, read without side effects or created for a write;
and signing up (``POST /api/auth/register/``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from allauth.account.models import EmailAddress
from allauth.account.signals import user_signed_up
from django.core.exceptions import NON_FIELD_ERRORS
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import NotAuthenticated
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from config.api_input import JSONInput, JSONParser
from config.throttles import RegisterThrottle
from league.accounts import USERNAME_VALIDATORS, signup_form_class
from league.api.serializers import PlayerSelfSerializer
from league.models import Player
from league.selectors import player_of_user
from league.services import player_for_user

_CACHE_ATTR = "_league_viewing_player"


def viewing_player(request: Request) -> Player | None:
    """The caller's profile if they have one; permission checks use this, so a refused write creates nothing."""
    if not hasattr(request, _CACHE_ATTR):
        setattr(request, _CACHE_ATTR, player_of_user(request.user))
    player: Player | None = getattr(request, _CACHE_ATTR)
    return player


def remember_viewing_player(request: Request, player: Player | None) -> None:
    """The caller's profile, read along with their credentials (tournaments/api/live_auth.py)."""
    setattr(request, _CACHE_ATTR, player)


def acting_player(request: Request) -> Player:
    """The caller's profile, created on first use (see the README's API section): only allowed writes call this."""
    player = viewing_player(request)
    if player is None:
        user = request.user
        if not user.is_authenticated:
            # Unreachable through the API: the permission classes let only signed-in callers write.
            raise NotAuthenticated
        player = player_for_user(user=user)
        setattr(request, _CACHE_ATTR, player)
    return player


# --- Sign-up: POST /api/auth/register/ --------------------------------------------------------------


class RegisterSerializer(JSONInput[Any]):
    # A comment, not a docstring: the schema would describe the request with it.
    # Not trimmed: the schema's pattern (the validator's) allows no spaces, so none are taken off either.
    username = serializers.CharField(
        max_length=150,
        trim_whitespace=False,
        validators=USERNAME_VALIDATORS,
        help_text="Letters a to z, digits and @ . + - _ only; free in any case (Alice is alice), and not "
        "another player's display name.",
    )
    password = serializers.CharField(
        max_length=4096,
        trim_whitespace=False,
        write_only=True,
        style={"input_type": "password"},
        help_text="Held to Django's password validators: long enough, not common, not all digits, "
        "not like the username or e-mail.",
    )
    email = serializers.EmailField(
        max_length=254,
        required=False,
        allow_blank=True,
        help_text="Optional: a confirmation link is sent; signing in needs none.",
    )
    display_name = serializers.CharField(
        max_length=80,
        required=False,
        allow_blank=True,
        help_text="How other players see you; the username if empty. Not another player's username or display "
        "name, in any case or look-alike spelling.",
    )

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class RegisteredSerializer(serializers.Serializer[Any]):
    player = PlayerSelfSerializer(help_text="The new player profile.")
    token = serializers.CharField(help_text='The API token: send it as "Authorization: Token <token>".')


class _RegisterRequestExtension(OpenApiSerializerExtension):
    """The request body as the view reads it: a field it does not know is refused, so the schema says so."""

    target_class = RegisterSerializer

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction == "request":
            schema["additionalProperties"] = False
        return schema


#: The sign-up form's field names as the API calls them.
_API_NAMES = {"password1": "password", NON_FIELD_ERRORS: api_settings.NON_FIELD_ERRORS_KEY}


def _signed_up(form: Any, request: HttpRequest | None) -> Any:
    """The form's new user (none when ``request`` is None: only checked); a 400 with its messages if refused."""
    if not form.is_valid():
        raise serializers.ValidationError(
            {
                _API_NAMES.get(name, name): [str(message) for message in messages]
                for name, messages in form.errors.items()
            }
        )
    return form.save(request) if request is not None else None


class RegisterView(APIView):
    """Sign up: a new user, their player profile and an API token, through the web page's own form and flow."""

    # Anyone may sign up: whatever credentials come along are neither needed nor looked at.
    authentication_classes: list[type[BaseAuthentication]] = []
    permission_classes: list[type[BasePermission]] = []
    throttle_classes = [RegisterThrottle]
    parser_classes = [JSONParser, FormParser, MultiPartParser]

    @extend_schema(
        operation_id="auth_register",
        request=RegisterSerializer,
        responses={201: RegisteredSerializer},
        summary="Sign up",
        description="A new account with its player profile (display name: the username unless given), and an "
        "API token for it. Refused with a message per field: a username taken in any case, a username or "
        "display name that is another player's name in any case or look-alike spelling, a password "
        "Django's validators refuse, a bad or taken e-mail address, a field not listed here. Rate-limited "
        "per client address (the `register` rate).",
    )
    def post(self, request: Request) -> Response:
        body = RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = body.validated_data
        data = {
            "username": fields["username"],
            "password1": fields["password"],
            "email": fields.get("email", ""),
            "display_name": fields.get("display_name", ""),
        }
        django_request = request._request
        try:
            with transaction.atomic():
                # allauth's form and adapter, as the page's: the user, their Player and e-mail address.
                user = _signed_up(signup_form_class()(data=data), django_request)
                token, _ = Token.objects.get_or_create(user=user)
        except IntegrityError:
            # A sign-up racing this one took the username or address since the form checked: checked again,
            # the form now says which; if it does not, the error was something else.
            _signed_up(signup_form_class()(data=data), None)
            raise
        # The rest of allauth's sign-up but what is for a browser (a session login, a flash message): its
        # signal, and the e-mail address's confirmation link.
        user_signed_up.send(sender=user.__class__, request=django_request, user=user)
        address = EmailAddress.objects.get_primary(user)
        if address is not None and not address.verified:
            address.send_confirmation(django_request, signup=True)
        player = player_of_user(user)
        return Response(
            {"player": PlayerSelfSerializer(player).data, "token": token.key}, status=status.HTTP_201_CREATED
        )
