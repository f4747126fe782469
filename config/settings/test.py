"""The test suite: PostgreSQL when DATABASE_URL names it, SQLite otherwise (README)."""

from config.env import env_bool, env_rates
from config.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Unit tests run tasks inline; the integration tests start a real worker and switch this off
# (and a worker started by them must send its follow-up tasks to the broker, not run them inline).
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", True)

# The suite's own rates: far above anything a test does, so only the throttling tests (which set low
# rates) are ever throttled; the throttles still count every request.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = env_rates(  # noqa: F405
    "THROTTLE_RATES",
    {scope: "100000/minute" for scope in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]},  # noqa: F405
)
