"""Deciding a challenge and moving the ladder's places: by its recorded match, or by a forfeit.

Called with the competition row locked (recording holds it, services/results.py; the challenge
services take it), so decisions apply one after another to the places as they then stand. This
module needs nothing but the models, so that recording can call it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from tournaments.ladder_places import block, forfeit_ranking, reorder
from tournaments.models import Challenge, ChallengeSide, Competition, Entrant
from tournaments.standings_cache import publish_results_version


def ladder_order(competition_id: int) -> list[int]:
    """The ladder's entrant ids, top place first (those who left have no place)."""
    return list(
        Entrant.objects.filter(competition_id=competition_id, position__isnull=False)
        .order_by("position", "id")
        .values_list("id", flat=True)
    )


def table_changed(competition_id: int) -> None:
    """The standings changed without a recorded match (places moved, an entrant came or went): a new
    results version, so that no cached table of the old one is served (tournaments/standings_cache.py).

    The caller holds the competition's lock, so the version read back is the one just written.
    """
    Competition.objects.filter(pk=competition_id).update(results_version=F("results_version") + 1)
    version = Competition.objects.values_list("results_version", flat=True).get(pk=competition_id)
    transaction.on_commit(lambda: publish_results_version(competition_id, version))


def ladder_places_set(competition_id: int, order: Sequence[int]) -> None:
    """Write the places of ``order`` (top first), touching only the entrants whose place changed."""
    current = dict(
        Entrant.objects.filter(competition_id=competition_id, position__isnull=False).values_list("id", "position")
    )
    changed = [Entrant(pk=entrant, position=place) for place, entrant in enumerate(order, start=1)]
    changed = [entrant for entrant in changed if current.get(entrant.pk) != entrant.position]
    Entrant.objects.bulk_update(changed, ["position"], batch_size=500)
    table_changed(competition_id)


def challenge_settle_played(*, match_id: int, ranks: Mapping[int, int]) -> None:
    """Reorder the ladder by a challenge's recorded match. Called by recording, under the competition's lock.

    ``ranks`` is each entrant's place in the match. A match of no open challenge changes nothing.
    """
    challenge = Challenge.objects.select_for_update().filter(match_id=match_id).first()
    if challenge is None or challenge.status != Challenge.Status.ACCEPTED:
        return
    sides = list(challenge.sides.select_related("entrant").order_by("place"))
    names = {side.entrant_id: side.entrant.name for side in sides}
    winners = [names[e] for e, rank in sorted(ranks.items(), key=lambda item: item[1]) if rank == 1]
    outcome = f"won by {' and '.join(winners)}" if len(winners) == 1 else f"shared first place: {', '.join(winners)}"
    _decide(challenge, sides, dict(ranks), Challenge.Status.PLAYED, outcome)


def decide_by_forfeit(
    competition: Competition,
    challenge: Challenge,
    sides: list[ChallengeSide],
    forfeiting: set[int],
    status: str,
    why: str,
) -> None:
    order = ladder_order(competition.pk)
    in_ladder_order = sorted((side.entrant_id for side in sides), key=order.index)
    names = ", ".join(side.entrant.name for side in sides if side.entrant_id in forfeiting)
    _decide(challenge, sides, forfeit_ranking(in_ladder_order, forfeiting), status, f"{why}: {names} forfeited")


def _decide(
    challenge: Challenge, sides: list[ChallengeSide], ranking: dict[int, int], status: str, outcome: str
) -> None:
    before = ladder_order(challenge.competition_id)
    after = reorder(before, challenge.challenger_id, ranking)
    ladder_places_set(challenge.competition_id, after)
    moved = block(before, after, list(ranking))
    challenge.top_place, challenge.places_before, challenge.places_after = moved
    close(challenge, sides, status, outcome, extra=["top_place", "places_before", "places_after"])


def close(
    challenge: Challenge, sides: list[ChallengeSide], status: str, outcome: str, extra: Sequence[str] = ()
) -> None:
    challenge.status, challenge.outcome, challenge.decided_at = status, outcome, timezone.now()
    challenge.save(update_fields=["status", "outcome", "decided_at", *extra])
    ChallengeSide.objects.filter(pk__in=[side.pk for side in sides]).update(open=False)


def challenges_cancel(*, competition_id: int, why: str) -> int:
    """Close every open challenge of a competition that stops (the caller holds its lock); nothing moves."""
    open_ = list(Challenge.objects.filter(competition_id=competition_id, status__in=Challenge.OPEN))
    for challenge in open_:
        close(challenge, list(challenge.sides.all()), Challenge.Status.CANCELLED, why)
    return len(open_)
