"""Celery tasks for bots and notifications: thin wrappers that take ids and call services (DESIGN.md, "Thin
tasks")."""

from __future__ import annotations

from celery import shared_task

from config.database_outages import sweep
from league.notifications.mail import send_due_mail
from league.validation import bot_version_validate, validations_reap


@shared_task(acks_late=True, reject_on_worker_lost=True)
def validate_bot_version(version_id: int) -> None:
    """Play the version's validation game; delivered twice, the verdict is written once."""
    bot_version_validate(version_id=version_id)


@shared_task
def reap_validations() -> None:
    sweep(validations_reap)


@shared_task
def send_notification_mail() -> None:
    """The mail sweep (league/notifications/mail.py): each person due a mail gets one, gathering what waits."""
    sweep(send_due_mail)
