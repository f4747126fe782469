"""The test suite: PostgreSQL when DATABASE_URL names it, SQLite otherwise (README)."""

from config.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
