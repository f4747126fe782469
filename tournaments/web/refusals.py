"""A service's refusal, shown where the person will read it: on the form they sent, or as a message.

Pages hold no rules of their own: a form checks its fields' shapes, then calls the same service the API
and the admin site call, and whatever that service refuses (bad input, no right to do it, the wrong
moment) is put on the form in the service's own words. So the web, the API and the admin refuse the
same things with the same messages (DESIGN.md, "Pages for people").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest
from django.utils.text import capfirst

from league.errors import Conflict

T = TypeVar("T")


def refusal_text(error: Exception) -> str:
    """What a service's refusal says, in one line a person can read."""
    if isinstance(error, ValidationError):
        # The service's words without its field names ("player: ..."): on a page they are jargon, and each
        # message names what it is about already.
        return " ".join(error.messages)
    text = str(error)
    if isinstance(error, PermissionDenied):
        return text or "You are not allowed to do that."
    return text


def _as_sentence(words: str) -> str:
    words = capfirst(words.strip()) or ""
    return words if words.endswith((".", "?", "!")) else f"{words}."


def put_on_form(form: forms.BaseForm, error: ValidationError) -> None:
    """A service's refusal on the fields it names; what names no field of this form goes above the form, as a
    sentence without the service's name for the field (a person never saw that name)."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, [_as_sentence(message) for message in error.messages])
        return
    for field, said in error.message_dict.items():
        if field in form.fields:
            form.add_error(field, said)
        else:
            form.add_error(None, [_as_sentence(message) for message in said])


def call_for_form(form: forms.BaseForm, call: Callable[[], T]) -> T | None:
    """Run a service for a valid form; on a refusal put its reason on the form and give None."""
    try:
        return call()
    except ValidationError as error:
        put_on_form(form, error)
    except (PermissionDenied, Conflict) as error:
        form.add_error(None, refusal_text(error))
    return None


def call_for_message(request: HttpRequest, call: Callable[[], T], *, done: str = "") -> T | None:
    """Run a service for a button (no form to show errors on): its refusal, or ``done``, becomes a message."""
    try:
        result = call()
    except (ValidationError, PermissionDenied, Conflict) as error:
        messages.error(request, refusal_text(error))
        return None
    if done:
        messages.success(request, done)
    return result
