"""A notification as it waits in a person's inbox and for its mail, and a person's choice of channels per kind.

Imported by league/models.py, so that Django finds them in the league app."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from league.notifications.kinds import Kind


class Notification(models.Model):
    """One thing that happened, told to one person."""

    player = models.ForeignKey("league.Player", on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    #: One line: what happened, naming who and where ("Otto challenged you in Riverside ladder").
    title = models.CharField(max_length=200)
    #: What to do about it, or the details; may be empty.
    body = models.TextField(blank=True)
    #: Where on this site to see it or act on it: a path ("/competitions/7/"), or empty.
    link = models.CharField(max_length=300, blank=True)
    #: The club it happened in, if any: a club's webhooks hear its events.
    club = models.ForeignKey("league.Club", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    #: Whether it shows in the person's inbox (their setting for its kind when it was made); one that does not
    #: is kept for the mail alone.
    on_site = models.BooleanField(default=True)
    #: When the person read it, on the site or through the API; null while unread.
    read_at = models.DateTimeField(null=True, blank=True)
    #: Whether it is to go out by mail (the person's setting when it was made, and an address to send to).
    mail_due = models.BooleanField(default=False)
    #: When it went out in a mail; null while it waits for the next one.
    mailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["player", "-created_at"], name="notification_inbox"),
            models.Index(
                fields=["player"], condition=Q(on_site=True, read_at__isnull=True), name="notification_unread"
            ),
            models.Index(
                fields=["player", "created_at"],
                condition=Q(mail_due=True, mailed_at__isnull=True),
                name="notification_mail_waiting",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.player_id}: {self.title}"


class NotificationSetting(models.Model):
    """A person's channels for one kind; without a row, the kind's defaults (league/notifications/kinds.py)."""

    player = models.ForeignKey("league.Player", on_delete=models.CASCADE, related_name="notification_settings")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    site = models.BooleanField(default=True)
    mail = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "kind"], name="one_notification_setting_per_kind")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind}: site {self.site}, mail {self.mail}"
