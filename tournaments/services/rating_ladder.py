"""The rating ladder's rounds, made by Celery beat (task ``tick_rating_ladders``, every
``RATING_LADDER_TICK_SECONDS``).

A tick gives each running rating ladder its next round once every match of its last round is done or
cancelled, and does nothing for a ladder whose last round is still open. Ratings apply in (round,
match id) order (services/results.py), so when round r is over they are a pure function of the
results of rounds 1 to r; round r + 1 is paired from them with a random stream derived from the
competition's seed. The ladder is therefore the same whatever order its matches finished in, and
however many workers were killed on the way: a tick that runs early, or twice, finds the round open
(or the new round made) and changes nothing. A match in error holds the ladder until an organiser
retries or cancels it, as it holds the ratings.

Each bot plays at most one match a round (tournaments/rating_pairing.py), so beat's period is the
ladder's rate limit per bot; a round has at most ``RATING_LADDER_BATCH`` matches.
"""

from __future__ import annotations

import math
import random

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from engine.rng import derive_seed
from tournaments import notices
from tournaments.formats.rating_ladder import running_rating_ladders
from tournaments.formats.values import whole_setting
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Round, Standing
from tournaments.rating_pairing import LadderEntrant, pair_round
from tournaments.services.round_rows import round_over, rounds_create
from tournaments.services.scheduling import matches_release


def rating_ladders_tick() -> int:
    """Give every running rating ladder whose last round is over its next round; the matches scheduled."""
    ladders = running_rating_ladders()
    # One transaction per ladder, so that one ladder's lock is never held while another is paired.
    return sum(rating_ladder_tick(competition_id=pk) for pk in ladders.order_by("id").values_list("id", flat=True))


def rating_ladder_tick(*, competition_id: int) -> int:
    """The next round of one rating ladder if its last round is over (or its end); the matches scheduled."""
    if not round_over(competition_id, _last_round(competition_id)):
        # Read without the ladder's lock, which every recording of its matches takes: a tick that finds the
        # round still open (most ticks) holds none of them up.
        return 0
    with transaction.atomic():
        # The lock every change of the competition takes: a join, a withdrawal or a cancellation waits.
        competition = running_rating_ladders().select_for_update(no_key=True).filter(pk=competition_id).first()
        if competition is None:
            return 0
        last = _last_round(competition.pk)
        if not round_over(competition.pk, last):
            return 0
        rounds = whole_setting(competition, "ladder_rounds")
        if rounds is not None and last >= rounds:
            competition.status = Competition.Status.FINISHED
            competition.finished_at = timezone.now()
            competition.save(update_fields=["status", "finished_at"])
            notices.competition_finished(competition.pk)
            return 0
        _retired_leave(competition)
        tables = _pair(competition, last + 1)
        if not tables:
            return 0
        # Bots only: a person cannot enter a rating ladder (services/competitions.py, entrant_join).
        match_ids = rounds_create(competition, last + 1, [tables])
        matches_release(match_ids=match_ids)
        return len(match_ids)


def _last_round(competition_id: int) -> int:
    return int(Round.objects.filter(competition_id=competition_id).aggregate(last=Max("number"))["last"] or 0)


def _retired_leave(competition: Competition) -> None:
    """A retired bot's entrant leaves: it is not paired again, and its matches and standing stay."""
    Entrant.objects.filter(
        competition=competition, left_at__isnull=True, bot_version__bot__retired_at__isnull=False
    ).update(left_at=timezone.now())


def suspended_pairings_withdrawn(*, version_id: int) -> int:
    """A suspended version's matches not yet begun in running rating ladders are cancelled: they are not
    played, rate no one, and its opponents are paired afresh at the next tick; its entrant stays, unpaired
    (``_pair``), until its owner reinstates it. The number cancelled.

    Called once the suspension has committed, each ladder under its own lock, the one its tick pairs under:
    a tick that was pairing the version as it was suspended (from a read made before the suspension
    committed) has committed its round before this cancels, and a later tick finds the version suspended.
    Never under a recording's lock (the recording that suspended it holds its own competition's): one
    ladder's lock is never held while another's is waited for.
    """
    ladders = (
        running_rating_ladders()
        .filter(entrants__bot_version_id=version_id, entrants__left_at__isnull=True)
        .order_by("id")
        .values_list("id", flat=True)
    )
    cancelled = 0
    for ladder_id in ladders:
        with transaction.atomic():
            if not running_rating_ladders().select_for_update(no_key=True).filter(pk=ladder_id).exists():
                continue
            # Conditional on pending: a worker's claim (pending → running) and this never both take a match.
            cancelled += Match.objects.filter(
                competition_id=ladder_id,
                status=Match.Status.PENDING,
                participants__entrant__bot_version_id=version_id,
            ).update(status=Match.Status.CANCELLED, finished_at=timezone.now())
    return cancelled


def _pair(competition: Competition, number: int) -> list[tuple[int, ...]]:
    # A suspended version's entrant is not paired (services/bot_suspension.py); it stays on the ladder.
    active = list(
        Standing.objects.filter(
            competition=competition,
            entrant__left_at__isnull=True,
            entrant__bot_version__suspended_at__isnull=True,
        ).values_list("entrant_id", "ordinal", "played")
    )
    last_rounds = _last_rounds(competition, number - 1, [entrant for entrant, _, _ in active])
    entrants = [
        LadderEntrant(id=entrant, rating=ordinal, played=played, last_round=last_rounds.get(entrant))
        for entrant, ordinal, played in active
    ]
    return pair_round(
        entrants,
        table_size=competition.players_per_match,
        batch=settings.RATING_LADDER_BATCH,
        placement=settings.RATING_LADDER_PLACEMENT_MATCHES,
        exploration_percent=settings.RATING_LADDER_EXPLORATION_PERCENT,
        rng=random.Random(derive_seed(competition.seed, f"rating-ladder/round/{number}")),
    )


def _last_rounds(competition: Competition, last: int, entrant_ids: list[int]) -> dict[int, int]:
    """The last round each entrant had a match in; absent for those who never had one.

    Read from the last few rounds first, which hold every entrant that keeps its turn (the longest
    waiting play first, so everyone plays within about active / seats-per-round rounds): the whole
    history of a ladder that runs for ever is not read on every tick. Anyone not found there (a
    newcomer, or an entrant that waited longer) is looked up by its own rows.
    """
    seats_per_round = settings.RATING_LADDER_BATCH * competition.players_per_match
    window = math.ceil(len(entrant_ids) / seats_per_round) + 2
    recent = (
        MatchParticipant.objects.filter(match__round__competition=competition, match__round__number__gt=last - window)
        .values("entrant_id")
        .annotate(last=Max("match__round__number"))
        .values_list("entrant_id", "last")
    )
    found = dict(recent)
    missing = [entrant for entrant in entrant_ids if entrant not in found]
    if missing:
        older = (
            MatchParticipant.objects.filter(entrant_id__in=missing)
            .values("entrant_id")
            .annotate(last=Max("match__round__number"))
            .values_list("entrant_id", "last")
        )
        found.update(older)
    return found
