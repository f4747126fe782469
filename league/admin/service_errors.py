"""A service's ValidationError, shown where the admin user will read it: on a form, or as a message."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError


def add_service_errors(form: forms.BaseForm, error: ValidationError) -> None:
    """Put a service's ValidationError on the form fields it names (the rest on the form itself)."""
    if hasattr(error, "error_dict"):
        for field, field_messages in error.message_dict.items():
            if field in form.fields:
                form.add_error(field, field_messages)
            else:
                # The form has no such field: keep the service's name for it in the message.
                form.add_error(None, [f"{field}: {m}" for m in field_messages])
    else:
        form.add_error(None, error.messages)


def service_error_text(error: ValidationError) -> str:
    """A service's ValidationError as one line, for an admin message."""
    if hasattr(error, "error_dict"):
        return "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in error.message_dict.items())
    return " ".join(error.messages)
