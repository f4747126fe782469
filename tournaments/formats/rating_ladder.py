"""A rating ladder: bots paired with others close in rating on Celery beat's ticks, round after round
(services/rating_ladder.py), ranked by rating; it runs until cancelled or until its last round."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone

from tournaments.formats.base import Ranking
from tournaments.formats.ladders import Ladder
from tournaments.formats.spec import Changes, Spec, WholeNumber
from tournaments.formats.values import whole_setting
from tournaments.ladder_selectors import rating_ladder_progress
from tournaments.models import Competition, Entrant
from tournaments.services.challenge_decisions import table_changed

KEY = "rating_ladder"


class RatingLadder(Ladder):
    key = KEY
    label = "Rating ladder"
    summary = "bots paired again and again with others close in rating: a standing table of the club's bots"
    settings: Spec = (
        WholeNumber(
            name="ladder_rounds",
            label="Rounds before it finishes",
            help="rounds to play before it finishes; empty to run until cancelled",
            default=None,
            nullable=True,
            minimum=1,
            maximum=1_000_000,
            changes=Changes.ANY_TIME,
        ),
    )

    def entrant_refusal(self, competition: Competition, *, person: bool) -> str:
        return "a rating ladder is for bots: people play in a challenge ladder" if person else ""

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        return None  # its first round comes with Celery beat's next tick

    def joined_running(self, competition: Competition, entrant: Entrant) -> None:
        # A bot's newer version replaces the one it had entered; the older's results stay.
        table_changed(competition.pk)
        if entrant.bot_version is not None:
            Entrant.objects.filter(
                competition=competition, bot_version__bot_id=entrant.bot_version.bot_id, left_at__isnull=True
            ).exclude(pk=entrant.pk).update(left_at=timezone.now())

    def standings_sql_order(self) -> list[Any]:
        return ["-ordinal"]

    def ranking(self, competition: Competition) -> Ranking:
        return Ranking(first_key=lambda row: (-row.ordinal,))

    def order_note(self, labels: list[str]) -> str:
        return "Ordered by rating (ordinal, μ − 3σ), highest first"

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        return render_to_string(
            "formats/rating_ladder.html",
            {
                "admin": admin,
                "ladder_rounds": whole_setting(competition, "ladder_rounds"),
                "rating_ladder": rating_ladder_progress(competition),
            },
        )


def running_rating_ladders() -> QuerySet[Competition]:
    return Competition.objects.filter(format=KEY, status=Competition.Status.RUNNING)


RATING_LADDER = RatingLadder()
