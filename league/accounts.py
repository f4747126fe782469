"""Sign-up, with django-allauth: one form and one adapter behind the web page and the API.

The page (/accounts/signup/, ``SignupPageView``) and ``POST /api/auth/register/``
(league/api/identity.py) both validate with ``SignupForm`` (allauth's: a username free in any
case, Django's password validators, an optional e-mail address; and a display name) and save
through ``AccountAdapter.save_user``, the one place a new account gets its Player profile.
"""

from __future__ import annotations

from typing import Any

from allauth.account import app_settings
from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.forms import SignupForm as AllauthSignupForm
from allauth.account.views import SignupView
from allauth.utils import get_form_class
from django import forms
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.validators import ASCIIUsernameValidator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from config.throttles import sign_up_wait
from league.models import Player
from league.names import names_check
from league.services import player_sign_up


class UsernameValidator(ASCIIUsernameValidator):
    """Django's ASCII usernames, spelled out: the API's schema states the pattern, and ``\\w`` means more to some
    schema tools (Python's own regexes among them) than to JavaScript's."""

    regex = r"^[A-Za-z0-9_.@+-]+\Z"
    flags = 0


#: Usernames of new accounts (settings.ACCOUNT_USERNAME_VALIDATORS, and the API's schema): ASCII letters,
#: digits and @ . + - _, so that no newcomer takes a name that only looks like another's ("аlice" in Cyrillic).
USERNAME_VALIDATORS = [UsernameValidator()]

#: What the page keeps of a refused or throttled attempt: all but the password.
KEPT_FIELDS = ("username", "email", "display_name")


# allauth ships no type information (no py.typed): its classes are Any to mypy, hence the ignores.
class SignupForm(AllauthSignupForm):  # type: ignore[misc]
    """allauth's sign-up form (username, optional e-mail, password) with the Player's display name."""

    display_name = forms.CharField(
        label="Display name (optional)",
        max_length=80,
        required=False,
        help_text="How other players see you; your user name if left empty.",
    )
    field_order = ["username", "display_name", "email", "password1"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # allauth's widgets carry placeholders; the site's forms have labels instead.
        for field in self.fields.values():
            field.widget.attrs.pop("placeholder", None)
        self.fields["username"].label = "User name"
        self.fields["username"].help_text = "Letters a to z, digits and @ . + - _ only; you sign in with it."

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean()
        display_name = cleaned.get("display_name", "").strip()
        if display_name and "username" in cleaned:
            # Not another player's name (a look-alike included); one's own username in another case is fine.
            try:
                names_check(username=cleaned["username"], display_name=display_name)
            except ValidationError as error:
                self.add_error(None, error)
        return cleaned


def signup_form_class() -> type[SignupForm]:
    """The sign-up form, as allauth's page picks it (settings.ACCOUNT_FORMS): the API validates with the same."""
    form_class: type[SignupForm] = get_form_class(app_settings.FORMS, "signup", AllauthSignupForm)
    return form_class


class AccountAdapter(DefaultAccountAdapter):  # type: ignore[misc]
    def clean_username(self, username: str, shallow: bool = False) -> str:
        """allauth's checks (free in any case), then: not another player's display name, nor a look-alike of it."""
        cleaned: str = super().clean_username(username, shallow=shallow)
        if not shallow:
            try:
                names_check(username=cleaned)
            except ValidationError as error:
                raise forms.ValidationError(error.message_dict["username"]) from None
        return cleaned

    def save_user(
        self, request: HttpRequest, user: AbstractBaseUser, form: forms.Form, commit: bool = True
    ) -> AbstractBaseUser:
        """The new user and their Player profile, together or not at all."""
        with transaction.atomic():
            saved: AbstractBaseUser = super().save_user(request, user, form, commit=commit) or user
            if commit:
                signed_up_player(saved, form.cleaned_data.get("display_name", ""))
        return saved

    def unstash_verified_email(self, request: HttpRequest) -> str | None:
        # allauth's sets the key to None, which writes a session (and sends its cookie) for every sign-up,
        # the API's included; taking it out writes only a session that had one.
        email: str | None = request.session.pop("account_verified_email", None)
        return email

    def get_login_redirect_url(self, request: HttpRequest) -> str:
        # Someone already signed in who opens the sign-up page goes to their dashboard.
        return reverse("site:home")


def signed_up_player(user: AbstractBaseUser, display_name: str) -> Player:
    """The profile of a user who just signed up: the username as its display name unless one was given."""
    return player_sign_up(user=user, display_name=display_name)  # type: ignore[arg-type]  # the settings' User


class SignupPageView(SignupView):  # type: ignore[misc]
    """allauth's sign-up page in the site's style, under the API's sign-up rate.

    A throttled attempt is not checked at all: the form comes back, with what was typed but the
    password, status 429, Retry-After and the message among the form's errors.
    """

    template_name = "play/signup.html"

    def form_valid(self, form: forms.Form) -> HttpResponse:
        # The form found the name free, but another sign-up may take it before this one is saved: the
        # database's unique name then says no, and the person gets the form back rather than a 500.
        try:
            response: HttpResponse = super().form_valid(form)
        except IntegrityError:
            form.add_error("username", "That user name was taken a moment ago: choose another.")
            invalid: HttpResponse = self.form_invalid(form)
            return invalid
        except ValidationError as error:
            # The same, found by the names' claims (league/names.py): a sign-up or rename took it meanwhile.
            form.add_error(None, error)
            refused: HttpResponse = self.form_invalid(form)
            return refused
        return response

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        seconds = sign_up_wait(request)
        if seconds is None:
            response: HttpResponse = super().post(request, *args, **kwargs)
            return response
        form = self.get_form_class()(initial={name: request.POST.get(name, "") for name in KEPT_FIELDS})
        form.cleaned_data = {}  # what add_error expects of a form that was cleaned
        form.add_error(None, f"Too many sign-ups from your address. Try again in {seconds} seconds.")
        response = self.render_to_response(self.get_context_data(form=form))
        response.status_code = 429
        response["Retry-After"] = str(seconds)
        return response
