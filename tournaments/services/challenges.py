"""The challenge ladder: issuing, accepting and deciding challenges, and the places they change.

Every change of a ladder's places happens under the competition row's lock (FOR NO KEY UPDATE, as
recording takes it, services/results.py), so two challenges decided at once both apply, one after
the other, to the places as they then stand. The database holds each entrant to one open challenge
(ChallengeSide's partial unique constraint), whatever the locks.

Who may act (the challenger's side, a defender's side, an organiser) is the API's business; the
services check what the ladder allows: reach, places, open challenges, deadlines.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from league.errors import Conflict
from league.models import BotVersion, Player
from tournaments import notices
from tournaments.formats.challenge_ladder import challenge_ladder_required
from tournaments.formats.values import whole_setting
from tournaments.ladder_places import within_reach
from tournaments.models import Challenge, ChallengeSide, Competition, Entrant, Match
from tournaments.services.challenge_decisions import close, decide_by_forfeit, ladder_order
from tournaments.services.live_turns import turns_withdrawn
from tournaments.services.round_rows import rounds_create
from tournaments.services.scheduling import matches_release


def _locked_ladder(competition: Competition) -> Competition:
    locked = Competition.objects.select_for_update(no_key=True).get(pk=competition.pk)
    challenge_ladder_required(locked)
    return locked


def challenge_issue(
    *, competition: Competition, challenger: Entrant, defender: Entrant | None, issued_by: Player
) -> Challenge:
    """Challenge ``defender`` (two-player games) or the entrants directly above (multiplayer games).

    400 for a challenge the ladder's rules do not allow (out of reach, downwards, oneself);
    409 when an entrant in it is already in an open challenge.
    """
    with transaction.atomic():
        locked = _locked_ladder(competition)
        order = ladder_order(locked.pk)
        defenders = _defenders(locked, order, challenger, defender)
        busy = (
            ChallengeSide.objects.filter(open=True, entrant_id__in=[challenger.pk, *(d.pk for d in defenders)])
            .select_related("entrant", "challenge")
            .first()
        )
        if busy is not None:
            raise Conflict(f"{busy.entrant.name} is already in challenge {busy.challenge.number}")
        _refuse_suspended([challenger, *defenders])
        now = timezone.now()
        number = (locked.challenges.aggregate(last=Max("number"))["last"] or 0) + 1
        challenge = Challenge.objects.create(
            competition=locked,
            number=number,
            challenger=challenger,
            issued_by=issued_by,
            issued_at=now,
            deadline=now + timedelta(days=whole_setting(locked, "challenge_days") or 1),
        )
        place = {entrant: i for i, entrant in enumerate(order, start=1)}
        sides = [
            ChallengeSide(
                challenge=challenge, entrant=challenger, role=ChallengeSide.Role.CHALLENGER, place=place[challenger.pk]
            )
        ]
        sides += [
            ChallengeSide(
                challenge=challenge,
                entrant=d,
                role=ChallengeSide.Role.DEFENDER,
                place=place[d.pk],
                # A bot has nobody to ask: it accepts at once, and a bot-only challenge is played at once.
                accepted_at=now if d.bot_version_id is not None else None,
            )
            for d in defenders
        ]
        sides[0].accepted_at = now
        try:
            with transaction.atomic():
                ChallengeSide.objects.bulk_create(sides)
        except IntegrityError:
            # Another challenge took one of them between the check and here (the check ran under the
            # competition's lock, so only a write that skipped it could): the constraint still holds.
            raise Conflict("one of these entrants is already in a challenge") from None
        notices.challenged(locked, challenge, sides)
        if all(side.accepted_at is not None for side in sides):
            _start_match(locked, challenge, sides)
    return challenge


def _refuse_suspended(entrants: list[Entrant]) -> None:
    """A bot version suspended for forfeiting most of its recent games (services/bot_suspension.py) neither
    challenges nor is challenged until its owner reinstates it: a read only when a bot is among them."""
    versions = [entrant.bot_version_id for entrant in entrants if entrant.bot_version_id is not None]
    if not versions:
        return
    suspended = set(BotVersion.objects.filter(pk__in=versions, suspended_at__isnull=False).values_list("pk", flat=True))
    for entrant in entrants:
        if entrant.bot_version_id in suspended:
            raise Conflict(
                f"{entrant.name} is suspended for forfeiting most of its recent games, until its owner reinstates it"
            )


def challenge_reach(competition: Competition) -> int:
    """How many places above itself an entrant may challenge (two-player games)."""
    return whole_setting(competition, "challenge_reach") or 1


def _defenders(
    competition: Competition, order: list[int], challenger: Entrant, defender: Entrant | None
) -> list[Entrant]:
    if challenger.competition_id != competition.pk or challenger.pk not in order:
        raise ValidationError({"challenger": f"{challenger.name} has no place on this ladder"})
    here = order.index(challenger.pk)
    above = competition.players_per_match - 1
    within = within_reach(
        order, challenger.pk, reach=challenge_reach(competition), players=competition.players_per_match
    )
    if above > 1:
        # Multiplayer: the challenger plays the entrants directly above it, enough for a table.
        if not within:
            raise ValidationError(
                {
                    "challenger": f"{challenger.name} is in place {here + 1}: a challenge in this game needs "
                    f"{above} entrants above it"
                }
            )
        chosen = within
        if defender is not None and defender.pk not in chosen:
            raise ValidationError(
                {"defender": f"in a game of {above + 1} a challenge is against the {above} entrants directly above"}
            )
        by_id = Entrant.objects.in_bulk(chosen)
        return [by_id[entrant] for entrant in chosen]
    if defender is None:
        raise ValidationError({"defender": "name the entrant you challenge"})
    if defender.competition_id != competition.pk or defender.pk not in order:
        raise ValidationError({"defender": f"{defender.name} has no place on this ladder"})
    there = order.index(defender.pk)
    if defender.pk == challenger.pk:
        raise ValidationError({"defender": "an entrant cannot challenge itself"})
    if there > here:
        raise ValidationError(
            {"defender": f"{defender.name} is below {challenger.name} (place {there + 1}, not above {here + 1})"}
        )
    if defender.pk not in within:
        raise ValidationError(
            {
                "defender": f"{defender.name} is {here - there} places above {challenger.name}: "
                f"this ladder lets an entrant challenge up to {challenge_reach(competition)} places above"
            }
        )
    return [defender]


def _open_challenge(competition: Competition, number: int) -> tuple[Challenge, list[ChallengeSide]]:
    challenge = Challenge.objects.select_for_update().get(competition=competition, number=number)
    if challenge.status not in Challenge.OPEN:
        raise Conflict(f"challenge {number} is {challenge.status}")
    return challenge, list(challenge.sides.select_related("entrant").order_by("place"))


def challenge_accept(*, competition: Competition, number: int, defender: Entrant) -> Challenge:
    """A defender accepts; once every defender has, the match is played."""
    with transaction.atomic():
        locked = _locked_ladder(competition)
        challenge, sides = _open_challenge(locked, number)
        side = _side_of(sides, defender, ChallengeSide.Role.DEFENDER)
        if challenge.status != Challenge.Status.ISSUED or side.accepted_at is not None:
            raise Conflict(f"{defender.name} has already accepted challenge {number}")
        side.accepted_at = timezone.now()
        side.save(update_fields=["accepted_at"])
        if all(s.accepted_at is not None for s in sides):
            notices.challenge_answered(locked, challenge, sides, "accepted")
            _start_match(locked, challenge, sides)
    return challenge


def challenge_decline(*, competition: Competition, number: int, defender: Entrant) -> Challenge:
    """A defender declines: it forfeits, and the challenge is decided without a match."""
    with transaction.atomic():
        locked = _locked_ladder(competition)
        challenge, sides = _open_challenge(locked, number)
        side = _side_of(sides, defender, ChallengeSide.Role.DEFENDER)
        if challenge.status != Challenge.Status.ISSUED:
            raise Conflict(f"challenge {number} was accepted: it is decided by its match now")
        decide_by_forfeit(
            locked, challenge, sides, {side.entrant_id}, Challenge.Status.DECLINED, f"{defender.name} declined"
        )
        notices.challenge_answered(locked, challenge, sides, "declined")
    return challenge


def challenge_withdraw(*, competition: Competition, number: int) -> Challenge:
    """The challenger takes its challenge back before it is accepted; nothing moves."""
    with transaction.atomic():
        locked = _locked_ladder(competition)
        challenge, sides = _open_challenge(locked, number)
        if challenge.status != Challenge.Status.ISSUED:
            raise Conflict(f"challenge {number} was accepted: it is decided by its match now")
        close(challenge, sides, Challenge.Status.WITHDRAWN, f"{challenge.challenger.name} withdrew the challenge")
        notices.challenge_answered(locked, challenge, sides, "withdrawn")
    return challenge


def _side_of(sides: list[ChallengeSide], entrant: Entrant, role: str) -> ChallengeSide:
    for side in sides:
        if side.entrant_id == entrant.pk and side.role == role:
            return side
    raise ValidationError({"entrant": f"{entrant.name} is not a {role} in this challenge"})


def _start_match(competition: Competition, challenge: Challenge, sides: list[ChallengeSide]) -> None:
    """The challenge's match, in a round of its own: ratings apply in (round, match) order, so in the
    order challenges were accepted. Bots play it on the workers; with a person it goes to a live table
    (or awaits its transcript)."""
    number = (competition.rounds.aggregate(last=Max("number"))["last"] or 0) + 1
    # The challenger sits first; seats rotate every game of the match.
    seated = sorted(sides, key=lambda s: (s.role != ChallengeSide.Role.CHALLENGER, s.place))
    (match_id,) = rounds_create(competition, number, [[tuple(side.entrant_id for side in seated)]])
    match = Match.objects.get(pk=match_id)
    challenge.status, challenge.match, challenge.accepted_at = Challenge.Status.ACCEPTED, match, timezone.now()
    challenge.save(update_fields=["status", "match", "accepted_at"])
    matches_release(match_ids=[match.pk])


def challenges_enforce_deadlines() -> dict[str, int]:
    """Celery beat: remind defenders as a deadline nears, and apply the deadlines that have passed.

    Past its deadline, an issued challenge is forfeited by the defenders who had not accepted; an
    accepted one whose match has not been played (and is not being played by a worker right now)
    expires: its match is cancelled and nobody moves.
    """
    now = timezone.now()
    counts = {"reminded": 0, "forfeited": 0, "expired": 0}
    due = Challenge.objects.filter(status__in=Challenge.OPEN, deadline__lte=now).values_list("pk", flat=True)
    for challenge_id in list(due):
        outcome = _apply_deadline(challenge_id)
        if outcome is not None:
            counts[outcome] += 1
    soon = now + timedelta(hours=settings.CHALLENGE_REMINDER_HOURS)
    to_remind = Challenge.objects.filter(
        status=Challenge.Status.ISSUED, reminded_at__isnull=True, deadline__lte=soon, deadline__gt=now
    ).values_list("pk", flat=True)
    for challenge_id in list(to_remind):
        counts["reminded"] += _remind(challenge_id)
    return counts


def _apply_deadline(challenge_id: int) -> str | None:
    with transaction.atomic():
        competition_id = Challenge.objects.values_list("competition_id", flat=True).get(pk=challenge_id)
        competition = Competition.objects.select_for_update(no_key=True).get(pk=competition_id)
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        if challenge.status not in Challenge.OPEN or challenge.deadline > timezone.now():
            return None  # decided meanwhile
        sides = list(challenge.sides.select_related("entrant").order_by("place"))
        if challenge.status == Challenge.Status.ISSUED:
            late = {side.entrant_id for side in sides if side.accepted_at is None}
            decide_by_forfeit(
                competition, challenge, sides, late, Challenge.Status.FORFEITED, "not accepted by the deadline"
            )
            return "forfeited"
        match = None if challenge.match_id is None else Match.objects.get(pk=challenge.match_id)
        if match is not None and match.status in (Match.Status.RUNNING, Match.Status.DONE):
            return None  # a worker is playing it, or has just recorded it
        if match is not None:
            turns_withdrawn(match_id=match.pk)
            Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED, finished_at=timezone.now())
        close(challenge, sides, Challenge.Status.EXPIRED, "not played by the deadline: nobody moves")
        return "expired"


def _remind(challenge_id: int) -> int:
    """Tell the defenders who have not accepted, by their channels; marked reminded once, whoever is told."""
    with transaction.atomic():
        challenge = (
            # Only the challenge's row: the competition's lock is recording's, and this needs none of it.
            Challenge.objects.select_for_update(of=("self",))
            .select_related("competition", "challenger")
            .filter(pk=challenge_id, status=Challenge.Status.ISSUED, reminded_at__isnull=True)
            .first()
        )
        if challenge is None:
            return 0
        waiting = [
            side.entrant
            for side in challenge.sides.filter(accepted_at__isnull=True).select_related("entrant__bot_version__bot")
        ]
        challenge.reminded_at = timezone.now()
        challenge.save(update_fields=["reminded_at"])
        notices.challenge_deadline_near(challenge.competition, challenge, waiting)
    return 1
