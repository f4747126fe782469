"""The formats this service comes with, registered when the app is ready (tournaments/apps.py), and then those
kept outside this package that ``COMPETITION_FORMATS`` names (tournaments/formats/outside.py)."""

from __future__ import annotations

from tournaments.formats.challenge_ladder import CHALLENGE_LADDER
from tournaments.formats.knockout import DOUBLE, SINGLE
from tournaments.formats.outside import register_outside_formats
from tournaments.formats.rating_ladder import RATING_LADDER
from tournaments.formats.registry import register
from tournaments.formats.round_robin import DOUBLE_ROUND_ROBIN, ROUND_ROBIN
from tournaments.formats.separation import SEPARATION
from tournaments.formats.stages import Staged
from tournaments.formats.swiss import SWISS


def register_builtin_formats() -> None:
    # A round robin or a Swiss can be a first stage that cuts to a knockout.
    for stage in (ROUND_ROBIN, DOUBLE_ROUND_ROBIN, SWISS):
        register(Staged(stage, cuts_to=(SINGLE, DOUBLE)))
    for format in (SEPARATION, SINGLE, DOUBLE, CHALLENGE_LADDER, RATING_LADDER):
        register(format)
    register_outside_formats()
