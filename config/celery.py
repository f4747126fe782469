"""The Celery app: broker from CELERY_BROKER_URL (Redis in production, a folder by default)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("cardclub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
