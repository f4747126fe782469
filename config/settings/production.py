"""Production: every secret and address must come from the environment."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403

# A node without a broker URL would fall back to a local folder that no other node reads.
for _required in ("DJANGO_SECRET_KEY", "DATABASE_URL", "DJANGO_ALLOWED_HOSTS", "CELERY_BROKER_URL"):
    if not os.environ.get(_required):
        raise ImproperlyConfigured(f"{_required} must be set in production")

# The development key is in this repository, and the placeholder in deploy/cardclub.env in every copy of
# it: anyone could sign sessions with either. Short keys are guessable.
_KNOWN_KEYS = {"insecure-development-key-change-me", "CHANGE-ME-to-50-random-characters"}
if SECRET_KEY in _KNOWN_KEYS or SECRET_KEY.upper().startswith("CHANGE-ME") or len(SECRET_KEY) < 32:  # noqa: F405
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is the development key, the placeholder, or shorter than 32 characters: "
        'set 50 random characters (python -c "import secrets; print(secrets.token_urlsafe(50))")'
    )

# Request rates are counted in the cache (config/throttles.py): one per process would multiply every rate
# by the number of web processes, and restart it with each.
if not CACHE_URL.startswith("redis://"):  # noqa: F405
    raise ImproperlyConfigured("CACHE_URL must name the shared Redis in production (redis://host:port/db)")

DEBUG = False
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
