"""A service's ValidationError, shown where the admin user will read it: on a form, or as a message."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from league.errors import Conflict


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


class RefusalsAsMessages:
    """A ModelAdmin mix-in: a service's refusal after the form's checks becomes a message, not a 500.

    Forms check what they can up front; a service that still refuses (a race, a rule only it knows) has
    rolled its transaction back, and the admin user gets its reason on the same page.
    """

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)  # type: ignore[misc,no-any-return]
        except ValidationError as error:
            self.message_user(request, service_error_text(error), messages.ERROR)  # type: ignore[attr-defined]
        except Conflict as conflict:  # the state refuses it now (the club's last organiser stepping down)
            self.message_user(request, str(conflict), messages.ERROR)  # type: ignore[attr-defined]
        return HttpResponseRedirect(request.get_full_path())
