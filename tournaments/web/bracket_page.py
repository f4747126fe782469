"""A knockout's bracket on its two competition pages, the admin site's and the public one.

Both pages draw it with one include (templates/competition_parts/bracket.html) from the read model
of tournaments/knockout_selectors.py; this module only says what the include gets.
"""

from __future__ import annotations

from tournaments.knockout_selectors import bracket_view, is_knockout
from tournaments.models import Competition


def bracket_page(competition: Competition) -> dict[str, object]:
    """The bracket for a knockout's page; nothing for other formats.

    ``knockout`` says the page has a bracket section at all; ``bracket`` is None until the knockout
    starts, because the seeds (and so the bracket) are only drawn then.
    """
    if not is_knockout(competition):
        return {}
    drawn = competition.started_at is not None
    return {"knockout": True, "bracket": bracket_view(competition) if drawn else None}
