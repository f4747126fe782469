"""Celery tasks: thin wrappers that take ids and call services (DESIGN.md, "Thin tasks")."""

from __future__ import annotations

from celery import shared_task

from config.database_outages import sweep, when_database_answers
from tournaments.services.challenges import challenges_enforce_deadlines
from tournaments.services.live import live_clocks_enforce, live_match_record_if_over, live_turns_tell
from tournaments.services.live_bots import live_bots_play, live_bots_reap
from tournaments.services.play import matches_play
from tournaments.services.rating_ladder import rating_ladders_tick
from tournaments.services.scheduling import matches_reap
from tournaments.services.transcripts import transcript_verify, transcripts_resend_stale


@shared_task(acks_late=True, reject_on_worker_lost=True)
def run_matches(match_ids: list[int]) -> None:
    """Play a batch of matches and record them together. Safe to deliver twice: the claim lets one worker
    through for each match."""
    matches_play(match_ids=match_ids)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def run_match(match_id: int) -> None:
    """One match: the message an earlier release sent, which may still be queued when this one is deployed."""
    matches_play(match_ids=[match_id])


@shared_task
def reap_matches() -> None:
    """Celery beat's periodic sweep: requeue matches of dead workers, re-send lost tasks."""
    sweep(matches_reap)
    sweep(transcripts_resend_stale)  # the same sweep re-sends lost transcript verifications


@shared_task(acks_late=True, reject_on_worker_lost=True)
def verify_transcript(transcript_id: int) -> None:
    """Replay a submitted transcript: verified or rejected. Idempotent: only a submitted one is judged."""
    transcript_verify(transcript_id=transcript_id)


@shared_task
def reap_transcripts() -> None:
    """Re-send the verification of transcripts still submitted long after submission (their task was lost)."""
    sweep(transcripts_resend_stale)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def advance_live_match(match_id: int) -> None:
    """Decide for the bots a live table waits on, or record a match whose games are over.

    Safe twice: a decision for a table that moved on is dropped, and a match is recorded once. So a
    database outage midway only delays it: it runs again once the database answers, rather than leaving
    the bot's turn to the beat's sweep (LIVE_BOT_GRACE later).
    """

    def advance() -> None:
        if not live_match_record_if_over(match_id=match_id):
            live_bots_play(match_id=match_id)

    when_database_answers(advance, what=f"live match {match_id}")


@shared_task
def enforce_live_clocks() -> None:
    """Celery beat, every few seconds: people out of time forfeit; bots whose task was lost are asked again."""
    sweep(live_clocks_enforce)
    sweep(live_bots_reap)


@shared_task
def tell_quiet_turns() -> None:
    """Celery beat: at tables played by correspondence, people whose turn has been quiet a while are told."""
    sweep(live_turns_tell)


@shared_task
def tick_rating_ladders() -> None:
    """Celery beat: pair the next round of every running rating ladder whose last round is over."""
    sweep(rating_ladders_tick)


@shared_task
def enforce_challenge_deadlines() -> None:
    """Celery beat: remind defenders whose deadline nears; forfeit or expire challenges past it."""
    sweep(challenges_enforce_deadlines)
