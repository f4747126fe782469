"""Celery tasks for bots, notifications and club webhooks: thin wrappers that take ids and call services
(DESIGN.md, "Thin tasks")."""

from __future__ import annotations

from celery import shared_task

from config.database_outages import sweep
from league.notifications.mail import send_due_mail
from league.validation import bot_version_validate, validations_reap
from league.webhooks.delivery import deliver, deliver_due


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


@shared_task
def deliver_webhook(delivery_id: int) -> None:
    """Post one delivery to its club's webhook once its event has committed (league/webhooks/delivery.py)."""
    deliver(delivery_id)


@shared_task
def sweep_webhooks() -> None:
    """Beat's sweep of the webhooks' queue: retries when they are due, and deliveries a dead worker left."""
    sweep(deliver_due)
