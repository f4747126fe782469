"""Celery tasks: thin wrappers that take ids and call services (DESIGN.md, "Thin tasks")."""

from __future__ import annotations

from celery import shared_task

from tournaments.services.play import match_play
from tournaments.services.scheduling import matches_reap


@shared_task(acks_late=True, reject_on_worker_lost=True)
def run_match(match_id: int) -> None:
    """Play and record one match. Safe to deliver twice: the claim lets one worker through."""
    match_play(match_id=match_id)


@shared_task
def reap_matches() -> None:
    """Celery beat's periodic sweep: requeue matches of dead workers, re-send lost tasks."""
    matches_reap()
