"""Development on one machine: debug on, embedded defaults."""

from config.env import env_bool
from config.settings.base import *  # noqa: F403

DEBUG = env_bool("DJANGO_DEBUG", True)
