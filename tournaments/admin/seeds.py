"""Seeds on the admin site: shown only once nothing can still be dealt from them.

DESIGN.md, "Seeds stay secret until the end": no page shows the seed of an
unfinished match to anyone, superusers and organisers included. A match's seed
fixes every card of its games, and a bot-only match's seed derives from its
competition's, so the competition's seed stays hidden until the competition is
over too (people's matches have fresh seeds of their own, see
services/round_rows.py ``match_seed``).
"""

from __future__ import annotations

from tournaments.models import Competition, Match

HIDDEN = "hidden until the end"

_COMPETITION_OVER = (Competition.Status.FINISHED, Competition.Status.CANCELLED)


def competition_over(competition: Competition) -> bool:
    return competition.status in _COMPETITION_OVER


def match_over(match: Match) -> bool:
    return match.status in Match.OVER


def competition_seed_text(competition: Competition) -> str:
    return str(competition.seed) if competition_over(competition) else HIDDEN


def match_seed_text(match: Match) -> str:
    return str(match.seed) if match_over(match) else HIDDEN
