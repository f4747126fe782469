"""What the two ladders share: they start with no schedule, take entrants while they run, never finish by
themselves, and let entrants leave keeping their results (docs/ladders.md)."""

from __future__ import annotations

from django.utils import timezone

from league.errors import Conflict
from tournaments.formats.base import FormatBase, RoundByes
from tournaments.models import Competition, Entrant
from tournaments.services.challenge_decisions import ladder_order, ladder_places_set


class Ladder(FormatBase):
    ends_by_itself = False
    open_while_running = True
    chart_over_time = True

    def leaving_running(self, competition: Competition, entrant: Entrant) -> None:
        """It plays no more and keeps its results; those below move up a place (where the ladder has places);
        one in an open challenge must see it decided first."""
        current = Entrant.objects.get(pk=entrant.pk)
        if current.left_at is not None:
            raise Conflict(f"{current.name} has already left this ladder")
        if current.challenge_sides.filter(open=True).exists():
            raise Conflict(f"{current.name} is in an open challenge: it can leave once that is decided")
        order = [e for e in ladder_order(competition.pk) if e != current.pk]
        Entrant.objects.filter(pk=current.pk).update(left_at=timezone.now(), position=None)
        ladder_places_set(competition.pk, order)  # a new results version even where no place is kept

    def round_byes(self, competition: Competition) -> RoundByes:
        # A ladder's rounds seat whoever was challenged or paired: nobody sits a round out.
        return RoundByes()
