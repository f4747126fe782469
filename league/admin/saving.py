"""Telling Django's add/change machinery what a service saved, since the admin did not save it itself.

Every write here goes through a service, but ``ModelAdmin`` still expects to have saved the rows:
after ``save_model`` it logs, messages and redirects using the instance it built from the form, and
after ``save_formset`` it writes the change history from lists that ``formset.save()`` would have
filled. These two helpers give it what it expects.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Model


def adopt(unsaved: Model, created: Model) -> None:
    """Make the admin's unsaved form instance the row a service created, so the admin's
    success message, log entry and redirect all point at it.

    Needed because ``ModelAdmin._changeform_view`` keeps its own reference to the form's instance
    and, after ``save_model`` returns (with nothing), hands that same object to ``log_addition`` and
    ``response_add``; there is no hook to give it the service's row instead. So the row's stored
    values are copied onto the instance the admin holds, and it is marked as saved, as Django's
    own ``refresh_from_db`` does (without a second query).
    """
    for field in created._meta.concrete_fields:
        # Set through the attribute name (``owner_id``), which also drops a stale cached relation.
        setattr(unsaved, field.attname, getattr(created, field.attname))
    unsaved._state.adding = False
    unsaved._state.db = created._state.db


def formset_saved(
    formset: Any,
    *,
    new: list[Model] | None = None,
    changed: list[tuple[Model, list[str]]] | None = None,
    deleted: list[Model] | None = None,
) -> None:
    """Tell the admin's change history what a formset's services did, as formset.save() would have."""
    formset.new_objects = new or []
    formset.changed_objects = changed or []
    formset.deleted_objects = deleted or []
