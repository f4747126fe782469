"""The test suite: PostgreSQL when DATABASE_URL names it, SQLite otherwise (README)."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env_bool

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Unit tests run tasks inline; the integration tests start a real worker and switch this off
# (and a worker started by them must send its follow-up tasks to the broker, not run them inline).
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", True)
