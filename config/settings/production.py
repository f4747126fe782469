"""Production: every secret and address must come from the environment."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403

# A node without a broker URL would fall back to a local folder that no other node reads.
for _required in ("DJANGO_SECRET_KEY", "DATABASE_URL", "DJANGO_ALLOWED_HOSTS", "CELERY_BROKER_URL"):
    if not os.environ.get(_required):
        raise ImproperlyConfigured(f"{_required} must be set in production")

DEBUG = False
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
