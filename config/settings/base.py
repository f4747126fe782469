"""Settings shared by every environment; each value can come from the environment.

The embedded defaults (SQLite in the checkout) let a fresh clone run with
nothing else installed; production points the same code at PostgreSQL and
Redis through DATABASE_URL and CELERY_BROKER_URL.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    check_engine_games,
    email_config,
    env_bool,
    env_int,
    env_list,
    env_rates,
    env_str,
    redis_cache,
)

# Django's generic classes (ModelAdmin[Player], ModelForm[Club]) subscriptable at run time, as mypy reads them.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("CARDCLUB_VAR_DIR", str(BASE_DIR / "var")))
# SQLite and the embedded broker keep their files here; a fresh checkout has no var/ yet.
VAR_DIR.mkdir(parents=True, exist_ok=True)

SECRET_KEY = env_str("DJANGO_SECRET_KEY", "insecure-development-key-change-me")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

# The games beyond the engine's own (ENGINE_GAMES, docs/engine-interface.md, "Adding a game") are
# imported and checked now, so a bad entry stops every process at start with one line.
check_engine_games()

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    # Swagger UI's files, served from our own static files: /api/docs/ works without internet.
    "drf_spectacular_sidecar",
    "league",
    "tournaments",
    # Sign-up and its e-mail (league/accounts.py); after our apps, so their templates take precedence.
    "allauth",
    "allauth.account",
]

MIDDLEWARE = [
    "config.request_limits.RequestSizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # The site's own 404 page for an unknown address, even with DEBUG on (tournaments/web/errors.py).
    "tournaments.web.errors.SitePagesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so that it sees what a view raised first: 503 for an outage of the database or Redis.
    "config.unavailable.ServiceUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Project-wide overrides of other apps' templates (the admin's base_site.html), found before theirs.
        "DIRS": [BASE_DIR / "config" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "league.notifications.context.unread_notifications",
            ],
        },
    },
]


def database_from_env(default_sqlite: Path) -> dict[str, Any]:
    url = env_str("DATABASE_URL", f"sqlite:///{default_sqlite}")
    try:
        # Health checks: a connection kept across tasks is pinged before reuse, so a database restart
        # costs one reconnect, not a failed match.
        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL={url!r}: {exc}") from None
    if not config.get("ENGINE"):
        raise ImproperlyConfigured(f"DATABASE_URL={url!r}: unsupported database scheme")
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # The embedded default still has a web server and worker processes writing at once:
        # WAL lets readers run beside a writer, IMMEDIATE takes the write lock up front (no
        # deadlocked upgrades), and the timeout makes a writer wait its turn instead of failing.
        config["OPTIONS"] = {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    return dict(config)


DATABASES = {"default": database_from_env(VAR_DIR / "cardclub.sqlite3")}
# The workers' fixed statements are prepared once per PostgreSQL connection (tournaments/services/
# statements.py). Turn off behind a pooler that cannot keep prepared statements across transactions.
DB_PREPARED_STATEMENTS = env_bool("DB_PREPARED_STATEMENTS", True)
if DB_PREPARED_STATEMENTS and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django turns psycopg's preparing off on every connection. Its own cursors bind values on the
    # client and are never prepared; this lets the workers' server-side binding cursors ask for it.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 5
# A connection pool for an ASGI server (docs/deploy.md): there every request runs on a thread of its own,
# and without a pool each would open a database connection that outlives it. Connections are lent per
# request (and per read of a live table's events stream) and returned at once.
DATABASE_POOL = env_bool("DATABASE_POOL", False)
#: Seconds to wait for a new PostgreSQL connection (libpq's connect_timeout; it takes 2 at least). A
#: database that does not answer then fails the request with a 503 (config/unavailable.py) rather than
#: holding it until the operating system gives up on the connection, minutes later.
DATABASE_CONNECT_TIMEOUT = env_int("DATABASE_CONNECT_TIMEOUT", 2)
#: Seconds a request waits for a connection from the pool (DATABASE_POOL): while PostgreSQL is away the
#: pool has none to lend, and the request answers 503 after this, not after psycopg_pool's 30 s.
DATABASE_POOL_TIMEOUT = env_int("DATABASE_POOL_TIMEOUT", 2)
if DATABASE_CONNECT_TIMEOUT <= 0 or DATABASE_POOL_TIMEOUT <= 0:
    raise ImproperlyConfigured("DATABASE_CONNECT_TIMEOUT and DATABASE_POOL_TIMEOUT must be positive (seconds)")
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", DATABASE_CONNECT_TIMEOUT)
if DATABASE_POOL:
    if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_POOL=true needs PostgreSQL (DATABASE_URL=postgres://...)")
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # Each connection is checked before it is lent (one empty round trip): after a PostgreSQL restart every
    # pooled connection is dead, and without the check each one failed the request it was lent to (issue 21,
    # finding 6). The backend is Django's, with a check that clears every dead connection at once
    # (config/pooled_postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "config.pooled_postgresql"
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": 2,
        "max_size": env_int("DATABASE_POOL_SIZE", 20),
        "timeout": DATABASE_POOL_TIMEOUT,
        # While PostgreSQL is away the pool retries a connection 1 s, then 2 s, 4 s, 8 s... apart, up to this
        # long, then waits for a request to ask again. Its default (5 minutes) left a node minutes behind a
        # database that was back; this keeps it within a few seconds.
        "reconnect_timeout": DATABASE_POOL_TIMEOUT,
    }

# The largest request body, by its declared length (config/request_limits.py): a 5 MB transcript file
# with its form around it. Bot uploads have their own, smaller limit (docs/bot-protocol.md).
MAX_REQUEST_BYTES = env_int("MAX_REQUEST_BYTES", 6 * 1024 * 1024)

#: Seconds to connect to Redis, and to wait for its answer, on every path a request takes (the cache,
#: live-event publishing, sending a task): a Redis that does not answer must not hold requests up
#: (docs/deploy.md, "When Redis or PostgreSQL is away").
REDIS_TIMEOUT_SECONDS = env_int("REDIS_TIMEOUT_MS", 500) / 1000
if REDIS_TIMEOUT_SECONDS <= 0:
    raise ImproperlyConfigured("REDIS_TIMEOUT_MS must be positive")
# Shared by every web process when CACHE_URL names Redis; one cache per process otherwise. While Redis
# cannot be reached the cache is a miss and requests go on without it (config/cache.py).
CACHE_URL = env_str("CACHE_URL", "locmem://")
if CACHE_URL.startswith("redis://"):
    CACHES = {"default": redis_cache(CACHE_URL, REDIS_TIMEOUT_SECONDS)}
elif CACHE_URL == "locmem://":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(f"CACHE_URL={CACHE_URL!r}: use redis://host:port/db or locmem://")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's four password validators: sign-up (league/accounts.py) and every password change apply them.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Sign-up (django-allauth: league/accounts.py, docs/security.md) --------------------------------------
# One form and one adapter for the web page (/accounts/signup/) and the API (POST /api/auth/register/).
# Sign-in stays Django's own form (/accounts/login/, config.throttles.ThrottledLoginView), by username.
# Usernames sign in in any case, as sign-up compares them (league/auth_backends.py).
AUTHENTICATION_BACKENDS = ["league.auth_backends.UsernameAnyCaseBackend"]
ACCOUNT_ADAPTER = "league.accounts.AccountAdapter"
ACCOUNT_FORMS = {"signup": "league.accounts.SignupForm"}
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_USERNAME_VALIDATORS = "league.accounts.USERNAME_VALIDATORS"
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*"]
# A newcomer plays at once: an e-mail address, if given, is sent a confirmation link but need not be confirmed.
ACCOUNT_EMAIL_VERIFICATION = "optional"
# A newcomer lands on the front page's dashboard, which says what to do first (find a club); so does
# anyone allauth signs in without a ?next= (Django's default is a profile page the site does not have).
ACCOUNT_SIGNUP_REDIRECT_URL = "site:home"
LOGIN_REDIRECT_URL = "site:home"
# The API answers a taken address with a 400 naming the field, as it does a taken username, rather than
# pretending to succeed: the address is optional, and whoever signs up learns only that it is in use.
ACCOUNT_PREVENT_ENUMERATION = False
# Sign-ups are counted by the "register" rate (config/throttles.py) on the page and the API alike.
ACCOUNT_RATE_LIMITS = {"signup": None}
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Card club] "

# Mail: the console by default, a folder with EMAIL_FILE_PATH, SMTP with EMAIL_URL or EMAIL_HOST (config/env.py).
_email = email_config(os.environ)
EMAIL_BACKEND = _email.backend
if _email.file_path:
    EMAIL_FILE_PATH = _email.file_path
EMAIL_HOST = _email.host
EMAIL_PORT = _email.port
EMAIL_HOST_USER = _email.user
EMAIL_HOST_PASSWORD = _email.password
EMAIL_USE_TLS = _email.use_tls
EMAIL_USE_SSL = _email.use_ssl
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Card club <noreply@localhost>")
# The site's address as people reach it, for links in mails and calendars (which no request carries).
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
if not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"SITE_URL={SITE_URL!r}: give the site's address, starting http:// or https://")
# Notifications by mail (docs/notifications.md): a person's waiting notifications go out together once the first
# has waited NOTIFY_MAIL_GATHER_SECONDS, and at most one mail every NOTIFY_MAIL_GAP_SECONDS, so that a busy
# evening is one mail, not forty.
NOTIFY_MAIL_GATHER_SECONDS = env_int("NOTIFY_MAIL_GATHER_SECONDS", 300)
NOTIFY_MAIL_GAP_SECONDS = env_int("NOTIFY_MAIL_GAP_SECONDS", 3600)
if NOTIFY_MAIL_GATHER_SECONDS < 0 or NOTIFY_MAIL_GAP_SECONDS < 0:
    raise ImproperlyConfigured("NOTIFY_MAIL_GATHER_SECONDS and NOTIFY_MAIL_GAP_SECONDS must be 0 or more")
# "Your turn" (docs/notifications.md): a live table whose time for one decision is at least
# CORRESPONDENCE_MOVE_SECONDS is played by correspondence, and a person there is told of their turn only once it
# has been theirs for NOTIFY_TURN_QUIET_SECONDS without a move (found by beat's sweep every
# NOTIFY_TURN_SWEEP_SECONDS); at a faster pace they are told at once.
CORRESPONDENCE_MOVE_SECONDS = env_int("CORRESPONDENCE_MOVE_SECONDS", 3600)
NOTIFY_TURN_QUIET_SECONDS = env_int("NOTIFY_TURN_QUIET_SECONDS", 600)
if CORRESPONDENCE_MOVE_SECONDS < 1 or NOTIFY_TURN_QUIET_SECONDS < 0:
    raise ImproperlyConfigured("CORRESPONDENCE_MOVE_SECONDS must be at least 1, NOTIFY_TURN_QUIET_SECONDS 0 or more")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
#: Each game's renderer for the web table lives with the game, in the engine (docs/engine-interface.md);
#: Chart.js, htmx and axe-core, at pinned versions, are put in var/vendor by `make setup` (.ci/vendor-js).
STATICFILES_DIRS = [BASE_DIR / "engine" / "games" / "web", BASE_DIR / "var" / "vendor" / "static"]

REST_FRAMEWORK: dict[str, Any] = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # drf-spectacular's, with every operation's error responses (config/schema.py).
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_PARSER_CLASSES": [
        "config.api_input.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Request rates (config/throttles.py, docs/deploy.md "Request rates"), counted in CACHE_URL's cache.
    "DEFAULT_THROTTLE_CLASSES": ["config.throttles.AnonymousReadThrottle", "config.throttles.UserWriteThrottle"],
    "DEFAULT_THROTTLE_RATES": env_rates(
        "THROTTLE_RATES",
        {
            "anon_read": "300/minute",
            "user_write": "120/minute",
            "move_refused": "60/minute",
            "bot_version": "30/hour",
            "login": "30/minute",
            "login_username": "10/minute",
            "register": "30/hour",
            "calendar": "60/hour",
            "training_data": "20/hour",
        },
    ),
    # How many proxies in front append to X-Forwarded-For: 0 takes the peer's address, so a client
    # cannot pick its own address (and its own login and read counters) by sending the header.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Card club API",
    "DESCRIPTION": "Competitions, bots, matches and standings for War, 1923, Banter and Punk.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies get components of their own: read-only fields are not asked for, and a field that
    # refuses blank text says so (minLength 1), as the API fuzz gate checks (tournaments/fuzz.py).
    "COMPONENT_SPLIT_REQUEST": True,
    # Request bodies are documented as JSON (uploads as multipart, where a view says so): form encodings
    # still parse, for the browsable API, but cannot say null or nest an object as the schema does.
    "PARSER_WHITELIST": ["rest_framework.parsers.JSONParser"],
    # Several models have a Status or Kind; name each enum after its model so the schema has no clashes.
    "ENUM_NAME_OVERRIDES": {
        "CompetitionStatusEnum": "tournaments.models.Competition.Status",
        "MatchStatusEnum": "tournaments.models.Match.Status",
        "BotVersionKindEnum": "league.models.BotVersion.Kind",
        "BotVersionStatusEnum": "league.models.BotVersion.Status",
        # A notification's kind, and the events a club's webhook hears of.
        "NotificationKindEnum": "league.notifications.kinds.Kind",
    },
}


# --- Celery (DESIGN.md, "Idempotent background work") ---------------------------------------
# The embedded default is kombu's filesystem transport: a folder under var/, no server needed.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for _folder in ("queue", "processed", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        # Exchange bindings; kombu's default is a "control" folder in the working directory.
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
else:
    # A task not acknowledged within this time is handed to another worker: keep it far above
    # the hard time limit, or a long match would run twice.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
        # A web request sends its task once it has committed (config/background.py): a Redis that does not
        # answer must fail the send quickly, not hold the request. Reads wait longer than BRPOP's 1 s poll,
        # which a worker's consumer sends, so no consumer's poll ever times out.
        "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
        "socket_timeout": max(2.0, REDIS_TIMEOUT_SECONDS),
    }
# A send that fails is tried once more at once (a connection the pool kept may be one Redis closed when it
# restarted), then given up: the row in PostgreSQL says the work waits, and a sweep sends it again
# (docs/deploy.md, "When Redis or PostgreSQL is away"). Celery's default retries for about a second.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.1, "interval_max": 0.1}
# Workers and beat wait for a lost broker however long it stays away (Celery's default gives up after 100
# tries, about 48 minutes, and the process exits): they come back by themselves when Redis does.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Celery's Django fix-up closes the database connection around every task unless this is set: a new
# PostgreSQL backend per match cost the database about 8 ms of CPU. config/celery.py replaces a
# connection that broke (a database restart) before each task instead.
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 900)
if CELERY_TASK_TIME_LIMIT < 120:
    # The soft limit sits a minute below it, for the match to be marked in error cleanly.
    raise ImproperlyConfigured(f"CELERY_TASK_TIME_LIMIT={CELERY_TASK_TIME_LIMIT}: use 120 seconds or more")
_visibility = CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout")
if isinstance(_visibility, int) and _visibility <= 2 * CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        f"CELERY_VISIBILITY_TIMEOUT ({_visibility} s) must be well above twice CELERY_TASK_TIME_LIMIT "
        f"({CELERY_TASK_TIME_LIMIT} s), or a running match would be delivered to a second worker"
    )
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 60
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A broker blip must not kill the matches being played (and spend their attempts): the
# database, not the connection, says who holds a match.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Results that matter are rows in our own tables; nothing reads a result backend.
CELERY_TASK_IGNORE_RESULT = True
# Game simulation has its own queue, so long matches never hold up the housekeeping tasks.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_DEFAULT_QUEUE", "default")
CELERY_GAMES_QUEUE = env_str("CELERY_GAMES_QUEUE", "games")
# Club webhooks wait on other people's servers (up to WEBHOOK_TIMEOUT_SECONDS a post): their own queue, so a
# receiver that is down never holds up the housekeeping (clocks, reapers) or the games (docs/webhooks.md).
CELERY_WEBHOOKS_QUEUE = env_str("CELERY_WEBHOOKS_QUEUE", "webhooks")
# Validation matches run bots in the sandbox too: they belong with the games, not the web's quick tasks.
CELERY_TASK_ROUTES = {
    "tournaments.tasks.run_matches": {"queue": CELERY_GAMES_QUEUE},
    "tournaments.tasks.run_match": {"queue": CELERY_GAMES_QUEUE},
    "league.tasks.validate_bot_version": {"queue": CELERY_GAMES_QUEUE},
    "tournaments.tasks.advance_live_match": {"queue": CELERY_GAMES_QUEUE},
    "league.tasks.deliver_webhook": {"queue": CELERY_WEBHOOKS_QUEUE},
    "league.tasks.sweep_webhooks": {"queue": CELERY_WEBHOOKS_QUEUE},
}
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
MATCH_REAP_SECONDS = env_int("MATCH_REAP_SECONDS", 30)
CELERY_BEAT_SCHEDULE = {
    "reap-matches": {"task": "tournaments.tasks.reap_matches", "schedule": float(MATCH_REAP_SECONDS)},
    "reap-validations": {"task": "league.tasks.reap_validations", "schedule": float(MATCH_REAP_SECONDS)},
    # Ladders (docs/ladders.md): a rating ladder's next round, and challenge deadlines and reminders.
    "rating-ladders": {
        "task": "tournaments.tasks.tick_rating_ladders",
        "schedule": float(env_int("RATING_LADDER_TICK_SECONDS", 10)),
    },
    "challenge-deadlines": {
        "task": "tournaments.tasks.enforce_challenge_deadlines",
        "schedule": float(env_int("CHALLENGE_SWEEP_SECONDS", 60)),
    },
    "live-clocks": {
        "task": "tournaments.tasks.enforce_live_clocks",
        "schedule": float(env_int("LIVE_CLOCK_SECONDS", 2)),
    },
    "notification-mail": {
        "task": "league.tasks.send_notification_mail",
        "schedule": float(env_int("NOTIFY_MAIL_SWEEP_SECONDS", 60)),
    },
    # Club webhooks' retries, and deliveries whose worker died (docs/webhooks.md). A sweep nobody took in time
    # expires rather than piles up behind a webhooks worker that is away: the next one does the same work.
    "webhooks": {
        "task": "league.tasks.sweep_webhooks",
        "schedule": float(env_int("WEBHOOK_SWEEP_SECONDS", 15)),
        "options": {"expires": float(env_int("WEBHOOK_SWEEP_SECONDS", 15))},
    },
    # "Your turn" by correspondence, once a turn has been quiet a while (docs/notifications.md).
    "turn-notices": {
        "task": "tournaments.tasks.tell_quiet_turns",
        "schedule": float(env_int("NOTIFY_TURN_SWEEP_SECONDS", 60)),
    },
}
# A rating ladder's tick pairs at most this many matches per ladder (each bot plays at most one a round).
RATING_LADDER_BATCH = env_int("RATING_LADDER_BATCH", 200)
# Percent of a round's matches paired at random rather than by rating, so ratings keep meeting.
RATING_LADDER_EXPLORATION_PERCENT = env_int("RATING_LADDER_EXPLORATION_PERCENT", 20)
# A bot's first matches on a rating ladder are against opponents spread over it.
RATING_LADDER_PLACEMENT_MATCHES = env_int("RATING_LADDER_PLACEMENT_MATCHES", 4)
if not 0 <= RATING_LADDER_EXPLORATION_PERCENT <= 100:
    raise ImproperlyConfigured("RATING_LADDER_EXPLORATION_PERCENT must be between 0 and 100")
if RATING_LADDER_BATCH < 1 or RATING_LADDER_PLACEMENT_MATCHES < 0:
    raise ImproperlyConfigured("RATING_LADDER_BATCH must be at least 1, RATING_LADDER_PLACEMENT_MATCHES at least 0")
# Defenders who have not answered a challenge are reminded this long before its deadline (a notification).
CHALLENGE_REMINDER_HOURS = env_int("CHALLENGE_REMINDER_HOURS", 24)
# A running match's worker writes a heartbeat this often; a match silent for the grace is requeued.
MATCH_HEARTBEAT_SECONDS = env_int("MATCH_HEARTBEAT_SECONDS", 5)
MATCH_HEARTBEAT_GRACE = env_int("MATCH_HEARTBEAT_GRACE", 60)
# A pending match whose task was sent this long ago, with the queue short of tasks, lost its task.
MATCH_QUEUE_GRACE = env_int("MATCH_QUEUE_GRACE", 120)
if MATCH_HEARTBEAT_GRACE <= 2 * MATCH_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured("MATCH_HEARTBEAT_GRACE must be more than twice MATCH_HEARTBEAT_SECONDS")
# Matches go to the workers in batches: one message, claim and recording each (docs/deploy.md). A batch holds
# up to this many games (a longer match is a batch of its own), and a round is spread over at least this many
# batches, so that many workers share it. 1,500: a batch's fixed cost (message, claim, recording transaction)
# is about 9 ms, a tenth of a 1,000-game War match, and three 500-game matches share it where two did
# (docs/performance.md); a 1,000-game match is still a batch of its own.
MATCH_BATCH_GAMES = env_int("MATCH_BATCH_GAMES", 1500)
MATCH_BATCH_SPREAD = env_int("MATCH_BATCH_SPREAD", 4)
if MATCH_BATCH_GAMES < 1 or MATCH_BATCH_SPREAD < 1:
    raise ImproperlyConfigured(
        f"MATCH_BATCH_GAMES ({MATCH_BATCH_GAMES}) and MATCH_BATCH_SPREAD ({MATCH_BATCH_SPREAD}) must be 1 or more"
    )

# Bots outside the worker (docs/bot-protocol.md). Uploaded code is unpacked once per machine into
# BOT_CACHE_DIR, which the sandbox's unprivileged uids must be able to traverse (so not under /root).
BOT_CACHE_DIR = env_str("BOT_CACHE_DIR", str(Path(tempfile.gettempdir()) / "cardclub-bots"))
# The sandbox runs Debian's python3: the default Python under /root is unreadable to the bots' uids.
BOT_SANDBOX_PYTHON = env_str("BOT_SANDBOX_PYTHON", "/usr/bin/python3")
BOT_MOVE_MS = env_int("BOT_MOVE_MS", 1000)
BOT_BANK_MS = env_int("BOT_BANK_MS", 10_000)
BOT_START_MS = env_int("BOT_START_MS", 5000)
BOT_WALL_MS = env_int("BOT_WALL_MS", 300_000)
BOT_MEMORY_MB = env_int("BOT_MEMORY_MB", 512)
BOT_CPU_SECONDS = env_int("BOT_CPU_SECONDS", 60)
BOT_PROCESSES = env_int("BOT_PROCESSES", 32)
BOT_LOG_BYTES = env_int("BOT_LOG_BYTES", 64 * 1024)
BOT_HTTP_MOVE_MS = env_int("BOT_HTTP_MOVE_MS", 500)
BOT_HTTP_BANK_MS = env_int("BOT_HTTP_BANK_MS", 0)
# Off in production: an HTTP bot must not be a way into the service's own network.
BOT_HTTP_ALLOW_PRIVATE = env_bool("BOT_HTTP_ALLOW_PRIVATE", False)
BOT_VALIDATION_GRACE = env_int("BOT_VALIDATION_GRACE", 300)
# Club webhooks (docs/webhooks.md) go through the HTTP bots' address filter: no loopback, private or metadata
# address unless this allows it (as BOT_HTTP_ALLOW_PRIVATE does, by default).
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", BOT_HTTP_ALLOW_PRIVATE)
# One post's whole exchange, connect included.
WEBHOOK_TIMEOUT_SECONDS = env_int("WEBHOOK_TIMEOUT_SECONDS", 10)
# How long an attempt holds its delivery: a worker that dies mid-post leaves it due again after this.
WEBHOOK_CLAIM_SECONDS = env_int("WEBHOOK_CLAIM_SECONDS", 60)
# After a failed attempt the next waits the base, doubled after each failure up to the most; then given up.
WEBHOOK_RETRY_BASE_SECONDS = env_int("WEBHOOK_RETRY_BASE_SECONDS", 30)
WEBHOOK_RETRY_MAX_SECONDS = env_int("WEBHOOK_RETRY_MAX_SECONDS", 3600)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 8)
# How long one sweep may keep posting before it leaves the rest to the next.
WEBHOOK_SWEEP_BUDGET_SECONDS = env_int("WEBHOOK_SWEEP_BUDGET_SECONDS", 60)
for _name in ("WEBHOOK_TIMEOUT_SECONDS", "WEBHOOK_RETRY_BASE_SECONDS", "WEBHOOK_MAX_ATTEMPTS",
              "WEBHOOK_SWEEP_BUDGET_SECONDS"):  # fmt: skip
    if globals()[_name] <= 0:
        raise ImproperlyConfigured(f"{_name}={globals()[_name]}: must be positive")
if WEBHOOK_CLAIM_SECONDS <= WEBHOOK_TIMEOUT_SECONDS:
    raise ImproperlyConfigured(
        f"WEBHOOK_CLAIM_SECONDS ({WEBHOOK_CLAIM_SECONDS}) must be more than WEBHOOK_TIMEOUT_SECONDS "
        f"({WEBHOOK_TIMEOUT_SECONDS}), or a slow post would be claimed again while it is still under way"
    )
if WEBHOOK_RETRY_MAX_SECONDS < WEBHOOK_RETRY_BASE_SECONDS:
    raise ImproperlyConfigured("WEBHOOK_RETRY_MAX_SECONDS must not be less than WEBHOOK_RETRY_BASE_SECONDS")
for _name in ("BOT_MOVE_MS", "BOT_START_MS", "BOT_WALL_MS", "BOT_MEMORY_MB", "BOT_CPU_SECONDS", "BOT_PROCESSES",
              "BOT_LOG_BYTES", "BOT_HTTP_MOVE_MS"):  # fmt: skip
    if globals()[_name] <= 0:
        raise ImproperlyConfigured(f"{_name}={globals()[_name]}: must be positive")
if BOT_BANK_MS < 0 or BOT_HTTP_BANK_MS < 0:
    raise ImproperlyConfigured("BOT_BANK_MS and BOT_HTTP_BANK_MS must not be negative")
if BOT_WALL_MS >= CELERY_TASK_SOFT_TIME_LIMIT * 1000:
    raise ImproperlyConfigured(
        f"BOT_WALL_MS ({BOT_WALL_MS} ms) must be below the task's soft time limit ({CELERY_TASK_SOFT_TIME_LIMIT} s), "
        "or a slow bot would be cut off as a worker failure instead of a timeout"
    )

# Live tables (docs/live-play.md). Pages learn of a change through Redis pub/sub when there is a Redis to
# use, and by reading the match's version every LIVE_POLL_SECONDS otherwise (the embedded default).
_redis_urls = [url for url in (CELERY_BROKER_URL, CACHE_URL) if url.startswith("redis://")]
LIVE_EVENTS_URL = env_str("LIVE_EVENTS_URL", _redis_urls[0] if _redis_urls else "")
if LIVE_EVENTS_URL and not LIVE_EVENTS_URL.startswith("redis://"):
    raise ImproperlyConfigured(f"LIVE_EVENTS_URL={LIVE_EVENTS_URL!r}: use redis://host:port/db, or leave it empty")
LIVE_POLL_SECONDS = env_int("LIVE_POLL_MS", 200) / 1000
LIVE_KEEPALIVE_SECONDS = env_int("LIVE_KEEPALIVE_SECONDS", 15)
#: An events stream ends after this long; the browser reconnects at once, so no server thread is held forever.
LIVE_STREAM_SECONDS = env_int("LIVE_STREAM_SECONDS", 300)
# When a client whose stream a sync web worker answered at once (live_events.table_once) comes back.
LIVE_RETRY_MS = env_int("LIVE_RETRY_MS", 2000)
#: A bot at a live table that has not decided this long after its turn came is asked again (its task was lost).
LIVE_BOT_GRACE = env_int("LIVE_BOT_GRACE", 30)
