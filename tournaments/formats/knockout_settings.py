"""Which competitions are knockouts and their bracket's settings: read by the bracket's selectors
(tournaments/knockout_selectors.py) and by the knockout formats (tournaments/formats/knockout.py), which
import those selectors, so this lives apart from both."""

from __future__ import annotations

from tournaments.formats.values import flag_setting, whole_setting
from tournaments.knockout import Settings
from tournaments.models import Competition

SINGLE_ELIMINATION = "single_elimination"
DOUBLE_ELIMINATION = "double_elimination"
KNOCKOUTS = (SINGLE_ELIMINATION, DOUBLE_ELIMINATION)


def is_knockout(competition: Competition) -> bool:
    return competition.format in KNOCKOUTS


def knockout_settings(competition: Competition) -> Settings:
    return Settings(
        table_size=competition.players_per_match,
        advance=whole_setting(competition, "advance_count") or 1,
        double=competition.format == DOUBLE_ELIMINATION,
        third_place=flag_setting(competition, "third_place"),
    )
