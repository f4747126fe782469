"""One path for a competition's settings, whoever sends them: the API, the admin site or a web form.

The settings every competition has (tournaments/formats/common.py) and its format's own are read against
their declared specs, then checked together: the common rules, then the format's own (``Format.check``).
Every refusal names its setting and says why.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError

from tournaments.formats.base import Draft, Format
from tournaments.formats.common import COMPETITION_SETTINGS, common_checks, competition_spec
from tournaments.formats.spec import Value, settings_read, stored
from tournaments.models import Competition

COMMON_NAMES = frozenset(setting.name for setting in COMPETITION_SETTINGS)


def current_settings(competition: Competition, format: Format) -> dict[str, Value]:
    """A competition's settings as they stand, common and its format's own."""
    common: dict[str, Value] = {name: getattr(competition, name) for name in COMMON_NAMES}
    return {**common, **stored(format.settings, competition.settings)}


def settings_checked(
    *, format: Format, given: Mapping[str, object], club_id: int, game: str, current: Competition | None
) -> tuple[dict[str, Value], dict[str, Value]]:
    """The common settings (the competition's columns) and the format's own, as they will be stored after
    creating a competition (``current`` None) or changing ``current``; a ValidationError naming every refused
    setting otherwise."""
    spec = competition_spec(format)
    base = None if current is None else current_settings(current, format)
    status_words = None if current is None or current.status == Competition.Status.OPEN else current.status
    values, refusals = settings_read(
        spec, given, owner=f"the {format.label} format", base=base, status_words=status_words
    )
    if refusals:
        raise ValidationError(refusals.by_name)
    common = {name: value for name, value in values.items() if name in COMMON_NAMES}
    own = {name: value for name, value in values.items() if name not in COMMON_NAMES}
    entrants = current.entrants if current is not None else None
    draft = Draft(
        pk=None if current is None else current.pk,
        club_id=club_id,
        game=game,
        common=common,
        settings=own,
        entered=0 if entrants is None else entrants.count(),
        people_entered=entrants is not None and entrants.filter(player__isnull=False).exists(),
    )
    refused = {**common_checks(draft), **format.check(draft)}
    if refused:
        raise ValidationError(refused)
    return common, own
