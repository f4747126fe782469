"""A challenge ladder: places, changed by challenges up the ladder (services/challenges.py); it never ends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import F, QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string

from league.errors import Conflict
from league.selectors import player_of_user
from tournaments.formats.base import Ranking
from tournaments.formats.ladders import Ladder
from tournaments.formats.spec import Changes, Spec, WholeNumber
from tournaments.formats.values import whole_setting
from tournaments.ladder_selectors import challenge_ladder, challenge_lines, own_place
from tournaments.models import Competition, Entrant, Standing
from tournaments.services.challenge_decisions import challenge_settle_played, ladder_order, ladder_places_set
from tournaments.services.ladder_seeding import ladder_seeding

KEY = "challenge_ladder"

#: The challenges the admin page lists, newest first; the Challenge list, filtered by competition, has them all.
HISTORY_IN_ADMIN = 100
#: The challenges the public page lists; the API pages through them all.
HISTORY_IN_PUBLIC = 20


class ChallengeLadder(Ladder):
    key = KEY
    label = "Challenge ladder"
    summary = "a club's standing ladder: challenge someone a few places above, and take their place by beating them"
    start_order = "the first places: every entrant's id once, the top place first"
    settings: Spec = (
        WholeNumber(
            name="challenge_reach",
            label="Challenge up to (places)",
            help="how many places above their own a player may challenge",
            default=3,
            minimum=1,
            maximum=100,
            changes=Changes.ANY_TIME,
        ),
        WholeNumber(
            name="challenge_days",
            label="Days to answer a challenge",
            help="days the challenged side has to accept and play, or forfeit",
            default=7,
            minimum=1,
            maximum=365,
            changes=Changes.ANY_TIME,
        ),
    )

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        if order is None:
            ladder_places_set(competition.pk, ladder_seeding(competition, entrants))
            return
        if sorted(order) != sorted(entrants) or len(set(order)) != len(order):
            raise ValidationError({"order": "list every entrant's id exactly once, top place first"})
        ladder_places_set(competition.pk, list(order))

    def joined_running(self, competition: Competition, entrant: Entrant) -> None:
        # A newcomer starts at the bottom.
        ladder_places_set(competition.pk, [*ladder_order(competition.pk), entrant.pk])

    def match_recorded(self, competition_id: int, match_id: int, ranks: Mapping[int, int]) -> None:
        # Under the competition's lock, as every change of the ladder's places is.
        challenge_settle_played(match_id=match_id, ranks=ranks)

    def standings_sql_order(self) -> list[Any]:
        return [F("entrant__position").asc(nulls_last=True)]

    def ranking(self, competition: Competition) -> Ranking:
        def place(row: Standing) -> tuple[bool, int]:
            position = row.entrant.position
            return (position is None, position or 0)

        return Ranking(first_key=place)

    def order_note(self, labels: list[str]) -> str:
        return "Ordered by place on the ladder; those who left follow, by " + ", then ".join(labels)

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        limit = HISTORY_IN_ADMIN if admin else HISTORY_IN_PUBLIC
        reach = whole_setting(competition, "challenge_reach") or 1
        ladder = challenge_ladder(competition)
        viewer = None if request is None else player_of_user(request.user)
        own = None
        if viewer is not None and competition.status == Competition.Status.RUNNING:
            own = own_place(ladder, player_id=viewer.pk, reach=reach, players=competition.players_per_match)
        return render_to_string(
            "formats/challenge_ladder.html",
            {
                "competition": competition,
                "admin": admin,
                "reach": reach,
                "days": whole_setting(competition, "challenge_days"),
                "challenge_ladder": ladder,
                "challenge_history": challenge_lines(competition, limit=limit),
                "challenge_count": competition.challenges.count(),
                "history_on_page": limit,
                "own": own,
            },
            request=request,
        )


def challenge_ladders() -> QuerySet[Competition]:
    """The competitions challenges are made in (the fuzzer's ids of them, tournaments/fuzz.py)."""
    return Competition.objects.filter(format=KEY)


def challenge_ladder_required(competition: Competition) -> None:
    """Challenges are a challenge ladder's: a 400 for another format, a 409 while it is not running."""
    if competition.format != KEY:
        raise ValidationError({"competition": f"challenges are for challenge ladders; this is a {competition.format}"})
    if competition.status != Competition.Status.RUNNING:
        raise Conflict(f"the ladder is {competition.status}: challenges are made while it is running")


CHALLENGE_LADDER = ChallengeLadder()
