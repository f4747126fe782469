"""Starting a match with people in it: ``pending → live``, each game's seed committed to and the first game dealt."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from engine.fairness import commitment, new_salt
from engine.match import deal_number, game_seed
from tournaments.models import Competition, Match
from tournaments.services.live_tables import announce_change, live_context, open_game, settle


def live_matches_start(*, match_ids: Sequence[int]) -> list[int]:
    """Start these pending matches with people; the ids started. Called inside the releasing transaction.

    The commitments to each game's seed are published now (engine/fairness.py, docs/fair-play.md);
    the seeds and the salt stay secret until the match ends. A competition played with real cards
    deals nothing: its matches wait for transcripts (services/transcripts.py).
    """
    started = []
    now = timezone.now()
    for match in Match.objects.filter(pk__in=match_ids, status=Match.Status.PENDING).select_related("competition"):
        competition = match.competition
        dealt = competition.people_play == Competition.PeoplePlay.LIVE
        salt = new_salt() if dealt else ""
        games = range(competition.games_per_match)
        deals = [deal_number(n, competition.players_per_match, duplicate=competition.duplicate_deals) for n in games]
        commitments = [commitment(game_seed(match.seed, deal), salt) for deal in deals] if dealt else []
        claimed = Match.objects.filter(pk=match.pk, status=Match.Status.PENDING).update(
            status=Match.Status.LIVE, started_at=now, salt=salt, commitments=commitments, version=1, queued_at=now
        )
        if not claimed:
            continue
        started.append(match.pk)
        if not dealt:
            continue
        match.status, match.salt, match.commitments, match.version = Match.Status.LIVE, salt, commitments, 1
        context = live_context(match)
        table, game = open_game(context, 0, now)
        # A game nobody decides (War) is over as soon as it is dealt: the workers record the match.
        announce_change(context, settle(context, table, game, now), record_on_worker=True)
    return started
