"""Settings of the Batak service.

Everything comes from environment variables; the defaults run the service on a laptop with
SQLite and in-process Celery, so deployments only override what differs. With `DJANGO_DEBUG`
false the settings are the production ones (`manage.py check --deploy` passes): the service then
expects to sit behind a TLS-terminating proxy that sets `X-Forwarded-Proto` and `X-Forwarded-For`.
"""

import os
import tomllib
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from batak_api.env import Env

BASE_DIR = Path(__file__).resolve().parent.parent
env = Env()

# Core

INSECURE_DEV_SECRET_KEY = "django-insecure-batak-local-development-only"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=INSECURE_DEV_SECRET_KEY)
DEBUG = env.bool("DJANGO_DEBUG", default=True)
if not DEBUG and SECRET_KEY == INSECURE_DEV_SECRET_KEY:
    # The dev key is public, so a non-debug deployment without its own key could forge sessions.
    raise ImproperlyConfigured("Set DJANGO_SECRET_KEY when DJANGO_DEBUG is false.")
ALLOWED_HOSTS = env.list(
    "DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"]
)

# By default the HTTPS origins of the hosts served (`.example.com` → `https://*.example.com`):
# a form posted over TLS that ends at a proxy in front, which may not say so to the service, is
# still of the same site. Plain HTTP needs none: its Origin is the Host header nginx passes on.
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[
    f"https://*{host}" if host.startswith(".") else f"https://{host}"
    for host in ALLOWED_HOSTS if host != "*"
])

if not DEBUG:
    # TLS ends at the proxy in front of the service; it tells us the original scheme.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    # Probes call the container over plain HTTP and must get their answer, not a redirect.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    # Tokens stored as hashes, with an expiry, revocable (games/api/accounts.py).
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "games.apps.GamesConfig",
    "bots.apps.BotsConfig",
    "tour.apps.TourConfig",
    # Partner platforms' keys: djangorestframework-api-key (platforms/authentication.py).
    "rest_framework_api_key",
    "platforms.apps.PlatformsConfig",
    # Ratings, leaderboards, seasons and players' records (ratings/).
    "ratings.apps.RatingsConfig",
    # The same deal for everyone: deal sets and their results (deal_sets/).
    "deal_sets.apps.DealSetsConfig",
    # The periodic jobs' in-process runner (runtime/work.py).
    "batak_api.apps.ServiceConfig",
]

MIDDLEWARE = [
    # First, so its request log line and X-Request-ID cover every other middleware's answer.
    "batak_api.logs.RequestLogMiddleware",
    # Before anything reads the Host header: one it does not serve is a problem document.
    "batak_api.middleware.AllowedHostMiddleware",
    # Gives back the place a request held among its account's requests in flight.
    "games.api.in_flight.InFlightMiddleware",
    # Tells every counted request's answer where its account stands (RateLimit fields).
    "games.api.quotas.RateLimitFieldsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Django's sessions, authentication and messages, skipped by API requests that carry no
    # session (batak_api/middleware.py).
    "batak_api.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "batak_api.middleware.AuthenticationMiddleware",
    "batak_api.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it runs the API's views itself, to meter their server time.
    "games.api.server_time.ServerTimeMiddleware",
]
# The API proper, whose callers send a token or a key: not its docs pages (/api/docs/,
# /api/redoc/, /api/schema/), which staff open in a browser.
API_PATH_PREFIXES = ["/api/v1/"]

if not DEBUG:
    # Serves collectstatic's files (see STORAGES); in debug the development server does.
    MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
                      "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "batak_api.urls"
WSGI_APPLICATION = "batak_api.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Project-wide template overrides (e.g. the API docs pages) come before the apps'.
        "DIRS": [BASE_DIR / "batak_api" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database

DATABASES = {
    # dj-database-url rather than environ's db_url: the README promises its URLs, and environ's
    # differs (it leaves a percent-encoded socket path encoded, passes unknown schemes through).
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env.int("DATABASE_CONN_MAX_AGE", default=0),
        conn_health_checks=True,
    ),
}
# Each process lends its threads connections from a pool of at most this many (Django's psycopg
# pool), borrowed for a request or a task and given back at its end (and by a long poll while
# it waits): a process holds a few connections however many threads it has, so PostgreSQL's
# connections follow the processes, not the threads. 0: no pool, a connection per thread kept
# DATABASE_CONN_MAX_AGE seconds.
DATABASE_POOL_MAX_SIZE = env.int("DATABASE_POOL_MAX_SIZE", default=8)
# How long a thread waits for a connection of its process's pool before its request fails.
DATABASE_POOL_TIMEOUT = env.float("DATABASE_POOL_TIMEOUT", default=10)
# A pooled connection idle longer than this many seconds is checked before it is lent
# (batak_api/postgresql): one in use a moment ago is not, which saves a round trip a request.
DATABASE_POOL_CHECK_AFTER_IDLE = env.float("DATABASE_POOL_CHECK_AFTER_IDLE", default=5)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Fail a request (and /readyz) in seconds rather than hang on an unreachable database.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
    if DATABASE_POOL_MAX_SIZE > 0:
        # Django's backend, but its pool checks only connections that sat idle a while
        # (Django's own checks each one lent: a round trip and a transaction a request).
        DATABASES["default"]["ENGINE"] = "batak_api.postgresql"
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
        # A pooled connection is given back at the end of each request: Django refuses a
        # pool with persistent connections.
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": 1, "max_size": DATABASE_POOL_MAX_SIZE,
            "timeout": DATABASE_POOL_TIMEOUT, "max_idle": 60,
        }
    # Test runs side by side (people, CI) get a test database each, as with SQLite below.
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A connection to a file costs no server anything to keep, and opening one (its pragmas and
    # functions) costs each request and each background item about a millisecond.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=None)
    # SQLite has no row locks: taking the write lock when a transaction begins makes
    # `select_for_update` transactions queue up instead of failing with "database is locked".
    # WAL lets reads go on while a write commits, and the busy timeout queues writers.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20,
         "init_command": "PRAGMA journal_mode=WAL;"}
    )
    # A shared-cache in-memory test database fails concurrent writers at once ("table is
    # locked") instead of queueing them, so tests use a file like the service does.
    # One file per test process, so test runs side by side do not share it.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f"test-db-{os.getpid()}.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Internationalisation

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("tr", "Türkçe"),
    ("en", "English"),
    ("fr", "Français"),
    ("pt", "Português"),
    ("ru", "Русский"),
    ("es", "Español"),
]
USE_I18N = True
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_TZ = True
# Overrides of Django's date and time formats for some languages (batak_api/formats/).
FORMAT_MODULE_PATH = ["batak_api.formats"]

# Static files

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("DJANGO_STATIC_ROOT", default=None) or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Production serves `collectstatic`'s compressed, content-hashed copies (WhiteNoise, with
    # far-future cache headers); debug serves the app folders directly, no collectstatic needed.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Cache: API throttling counters, the bot sweeper's notes

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            # Redis down must not take the API down with it: see batak_api/cache.py.
            "BACKEND": "batak_api.cache.FailOpenRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "batak",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        },
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# REST API

# Failed log-ins before a lock-out, per username and per client address, and its window
# (games/api/lockout.py).
LOGIN_FAILURES_PER_ACCOUNT = env.int("LOGIN_FAILURES_PER_ACCOUNT", default=5)
LOGIN_FAILURES_PER_ADDRESS = env.int("LOGIN_FAILURES_PER_ADDRESS", default=20)
LOGIN_LOCKOUT_SECONDS = env.int("LOGIN_LOCKOUT_SECONDS", default=15 * 60)

# Tokens (django-rest-knox): only a hash is stored; a token lapses after TOKEN_TTL_DAYS without
# use (each use, at most hourly, moves its expiry on), and can be revoked (`/auth/logout`).
REST_KNOX = {
    # Unlike env.float's, an empty value is refused here.
    "TOKEN_TTL": timedelta(days=env("TOKEN_TTL_DAYS", cast=float, default=30)),
    "AUTO_REFRESH": True,
    "MIN_REFRESH_INTERVAL": 3600,
    "AUTH_HEADER_PREFIX": "Token",
}

# A platform's player token (PUT /platform/players/{id}) lapses this long after it is issued;
# use does not extend it.
PLATFORM_PLAYER_TOKEN_MINUTES = int(env.float("PLATFORM_PLAYER_TOKEN_MINUTES", 60))

# Webhooks to platforms (platforms/webhooks.py): an attempt's deadline, the delays
# between attempts (about a day in all; then the delivery is marked failed), and how often the
# periodic sweep looks for due ones.
# One deadline for all of an attempt: the look-up, connecting, sending, and the answer's status
# line and headers (a receiver that trickles its answer is cut off at it, not per read).
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", 5)
# Attempts of one platform under way at once, across every worker: a receiver that hangs holds
# at most this many of the webhook workers' threads; the other platforms have the rest.
WEBHOOK_PLATFORM_CONCURRENCY = env.int("WEBHOOK_PLATFORM_CONCURRENCY", default=2)
# Threads of the webhook workers (`python -m batak_api.webhook_worker`) and of the embedded
# default's webhooks lane: deliveries wait on receivers, not on the CPU.
WEBHOOK_WORKER_THREADS = env.int("WEBHOOK_WORKER_THREADS", default=16)
# An attempt that its receiver takes goes on, in the same worker's turn, with its platform's
# next due deliveries for up to this long: a backlog drains at the pace of the attempts.
WEBHOOK_DRAIN_SECONDS = env.float("WEBHOOK_DRAIN_SECONDS", 0.5)
WEBHOOK_RETRY_SECONDS = env.str(
    "WEBHOOK_RETRY_SECONDS", default="5,30,120,600,1800,3600,7200,14400,28800,28800"
)
WEBHOOK_SWEEP_INTERVAL_SECONDS = env.float("WEBHOOK_SWEEP_INTERVAL_SECONDS", 1)
# While a receiver fails, one of its deliveries is tried this often (a probe, which counts
# only if taken), so that a receiver back after an outage gets its backlog within seconds.
WEBHOOK_PROBE_SECONDS = env.int("WEBHOOK_PROBE_SECONDS", default=1)
# The delivery log (events and their deliveries, also those of deleted subscriptions) is kept
# this long, then purged every WEBHOOK_PURGE_INTERVAL_SECONDS; replays reach back as far.
WEBHOOK_LOG_RETENTION_DAYS = env.float("WEBHOOK_LOG_RETENTION_DAYS", 30)
# How long a platform's stream keeps its events (platforms/stream.py): a stream resumed with
# Last-Event-ID within this misses nothing.
PLATFORM_STREAM_RETENTION_HOURS = env.float("PLATFORM_STREAM_RETENTION_HOURS", 24)
# How long a person's own stream keeps its events (games/account_stream.py).
ACCOUNT_STREAM_RETENTION_HOURS = env.float("ACCOUNT_STREAM_RETENTION_HOURS", 24)
WEBHOOK_PURGE_INTERVAL_SECONDS = env.float("WEBHOOK_PURGE_INTERVAL_SECONDS", 3600)
# Finished, abandoned and cancelled matches are deleted this many days after they ended, with
# their deals, moves and the records of them (`purge_finished_matches`, every
# RETENTION_PURGE_INTERVAL_SECONDS); 0 keeps them for ever.
FINISHED_MATCH_RETENTION_DAYS = env.float("FINISHED_MATCH_RETENTION_DAYS", 0)
# An Idempotency-Key is honoured this long after its first request (Stripe keeps keys 24 hours);
# the same purge deletes older records, each of which holds a whole view.
IDEMPOTENCY_KEY_HOURS = env.float("IDEMPOTENCY_KEY_HOURS", 24)
RETENTION_PURGE_INTERVAL_SECONDS = env.float("RETENTION_PURGE_INTERVAL_SECONDS", 3600)
# What follows a match's change (games/follow_ups.py): a kept handler's events not taken this
# long after the change (it failed, or the process stopped) are taken by the sweep, every
# FOLLOW_UP_SWEEP_INTERVAL_SECONDS; a handler that fails again waits twice as long each time.
FOLLOW_UP_RETRY_SECONDS = env.float("FOLLOW_UP_RETRY_SECONDS", 30)
FOLLOW_UP_SWEEP_INTERVAL_SECONDS = env.float("FOLLOW_UP_SWEEP_INTERVAL_SECONDS", 10)
# Whether webhooks may go to loopback, private or link-local addresses: only while developing
# (and in tests, whose receivers are on loopback); never let a platform aim the service at its
# own network in production.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=DEBUG)

# A larger API request body is refused with 413 as soon as its declared length or the bytes
# received so far are over this, before Django reads any of it; any other body (the admin's forms)
# is bound likewise by Django's DATA_UPLOAD_MAX_MEMORY_SIZE (batak_api/limits.py, which wraps the
# ASGI and WSGI applications).
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=64 * 1024)


REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.api.authentication.TokenAuthentication",
        "games.api.authentication.SessionAuthentication",
        # A partner platform's key, let through only to the reads of its own matches.
        "platforms.authentication.PlatformKeyAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "platforms.authentication.PlatformKeysOnlyWhereAllowed",
    ],
    "EXCEPTION_HANDLER": "games.api.problems.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["games.api.parsers.JSONParser"],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        # Per account, or the platform's own quota (games/api/quotas.py).
        "games.api.quotas.AccountRateThrottle",
        # One account's requests in flight at once, per process (games/api/in_flight.py).
        "games.api.in_flight.InFlightThrottle",
        # One account's server time (games/api/server_time.py).
        "games.api.server_time.ServerTimeThrottle",
    ],
    # Per client IP for sign-up and log-in, per account for everything else. Debug runs (the
    # development server, the test suite) leave them off unless set; a rate of None is no limit.
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.rate("THROTTLE_ANON_RATE", None if DEBUG else "30/minute"),
        "user": env.rate("THROTTLE_USER_RATE", None if DEBUG else "600/minute"),
        # New guest accounts per client address (games/api/windows.py): each account brings
        # its own caps, so without this one client's caps have no bound. A household, a class
        # or a café behind one address starts a few guests an hour (a token lasts
        # TOKEN_TTL_DAYS); a script starting one per request is held to this.
        "guest": env.rate("GUEST_CREATION_RATE", None if DEBUG else "20/hour"),
        # Exports of one's own data per account (exportMyData): each reads the whole history.
        "export": env.rate("DATA_EXPORT_RATE", None if DEBUG else "2/hour"),
    },
    # The client address is the peer address unless the deployment says how many proxies in
    # front append to X-Forwarded-For: trusting the header with no proxy there would let any
    # client name a new address per request and escape the throttle. (Empty counts as 0.)
    "NUM_PROXIES": env.int("DJANGO_NUM_PROXIES", default=None) or 0,
}

# The docs site (mkdocs.yml's site_url), linked from the front page and the API's root; a
# deployment that publishes the docs itself points it there.
DOCS_URL = env.str("DOCS_URL", default="https://batak-service.github.io/")
# A problem document's `type` is this followed by its `code`: by default the entry of that code
# on the docs site's errors page (docs/errors.md).
PROBLEM_TYPE_BASE_URL = env.str("PROBLEM_TYPE_BASE_URL", default=f"{DOCS_URL}errors/#")

# The live streams' events, by the stream's operation: the schema names each event's data
# (games/api/schema.py, `stream_events`).
STREAM_EVENT_SCHEMAS = {
    "streamEvents": "games.api.serializers.feed.STREAM_EVENTS",
    "streamPlatformEvents": "platforms.api.serializers.WEBHOOK_BODIES",
    "streamMyEvents": "games.api.serializers.account_stream.ACCOUNT_EVENTS",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Batak API",
    "DESCRIPTION": (
        "Turkish Batak — auction (İhaleli), partnership (Eşli) and spades (Koz Maça) — "
        "matches between people and computer players."
    ),
    # The project's own version (pyproject.toml): the API is not yet 1.0 (README, CHANGELOG.md).
    "VERSION": tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["project"]["version"],
    "SERVE_INCLUDE_SCHEMA": False,
    # Serve Swagger UI and ReDoc from our own static files rather than a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "OAS_VERSION": "3.1.0",
    "POSTPROCESSING_HOOKS": [
        "games.api.schema.stream_events",
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.require_documentation",
        "games.api.schema.exact_contract",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    # What partner platforms receive (platforms/events.py), as OpenAPI 3.1 `webhooks`.
    "WEBHOOKS": "platforms.api.webhooks_schema.WEBHOOKS",
    "ENUM_NAME_OVERRIDES": {
        "Game": "games.models.GameChoice",
        "MatchStatus": "games.models.MatchStatus",
        "BotLevel": "games.models.BotLevel",
        "EventType": "platforms.models.EventType",
        "AccountEventType": "games.models.AccountEventType",
        "DeliveryStatus": "platforms.models.DeliveryStatus",
        "SubscribedEventType": "platforms.api.serializers.SUBSCRIBED_TYPES",
        "Suit": ["S", "H", "D", "C"],
        "Card": "games.api.serializers.fields.CARD_CHOICES",
        "Phase": "games.api.serializers.fields.PHASES",
        "Reason": "games.api.serializers.fields.REASONS",
        "HintReason": "games.api.serializers.play.HINT_REASONS",
        "Outcome": "games.api.serializers.fields.OUTCOMES",
        "Direction": "games.api.serializers.fields.DIRECTIONS",
        "AllPass": "games.api.serializers.fields.ALL_PASS_RULES",
        "TrumpLead": "games.api.serializers.fields.TRUMP_LEADS",
        "Scoring": "games.api.serializers.fields.SCORINGS",
        "SeatKind": ["person", "bot", "open"],
        "SeatSpecKind": ["me", "open", "bot"],
        "DealStatus": ["finished", "redealt"],
    },
    "TAGS": [
        {"name": "service", "description": "Where everything is: the API's root."},
        {"name": "accounts", "description": "Guest sign-up, accounts and tokens."},
        {"name": "matches", "description": "Creating, listing and joining matches."},
        {"name": "play", "description": "A seat's view, submitting moves, the event feed."},
        {"name": "history", "description": "Ended deals, with their revealed decks."},
        {"name": "rules", "description": "Table rules."},
        {"name": "tour", "description": "Tour of Tables, the story mode."},
        {"name": "leaderboards", "description": "Each game's boards: all-time by rating, "
         "and the week's and month's by the rating points won in them."},
        {"name": "players", "description": "Players' profiles, finished matches and rating "
         "histories, and your privacy."},
    ],
}

# Celery

# Without Redis there is no worker to pick tasks up, so they run inline where they are scheduled
# and their exceptions surface in the caller. (Celery still opens an in-memory broker connection;
# naming its host keeps kombu from warning about it.)
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
# A task lost with its worker is redelivered rather than dropped, so tasks must be idempotent.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Bot moves are short; prefetching more would let one busy worker delay moves others could take.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 30
CELERY_TASK_SOFT_TIME_LIMIT = 20
# A worker started before Redis is reachable keeps retrying instead of exiting.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Several deployments (or test runs) can share one Redis by using queues of their own.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="celery")
# Webhook deliveries have a queue and workers of their own (batak_api/webhook_worker.py): a
# partner's slow receiver must never hold a worker the computer players need.
WEBHOOK_QUEUE = env.str("WEBHOOK_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-webhooks")
# The post-deal analysis (bots/analysis.py) too: seconds of search a deal, never in front of a
# computer player's turn.
ANALYSIS_QUEUE = env.str("ANALYSIS_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-analysis")
# Each task to its kind's queue (runtime/work.py `route`).
CELERY_TASK_ROUTES = ("runtime.work.route",)
# Every scored deal is analysed once it ends (GET .../deals/{n}/analysis), within this much CPU
# time of its worker (a partial analysis past it).
ANALYSE_DEALS = env.bool("ANALYSE_DEALS", default=True)
ANALYSIS_SECONDS_PER_DEAL = env.float("ANALYSIS_SECONDS_PER_DEAL", default=10.0)
# On the embedded default, deals analysed at once (each in a process of its own at the lowest
# CPU priority); one account's analyses take all but one of them, so another's starts at once.
ANALYSIS_PROCESSES = env.int("ANALYSIS_PROCESSES", default=2)
# Scaled out, how much lower than the web's the Celery workers' CPU priority is (a Unix nice
# increment, 0-19): a person's move, and the quick computer players' round played in its
# request, come before the background's searches, deliveries and sweeps when cores are short.
WORKER_NICENESS = env.int("WORKER_NICENESS", default=10)
# An analysis still queued this long after it was sent has lost its task (the broker was down,
# the process stopped): the sweep, every ANALYSIS_SWEEP_INTERVAL_SECONDS, sends it again.
ANALYSIS_STALE_AFTER_SECONDS = env.float("ANALYSIS_STALE_AFTER_SECONDS", 900)
ANALYSIS_SWEEP_INTERVAL_SECONDS = env.float("ANALYSIS_SWEEP_INTERVAL_SECONDS", 60)
# Handing a bot its turn happens inside a person's request: with Redis unreachable, give up in
# about a second (the sweeper re-sends the turn) instead of holding the request.
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 0.5}
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_IGNORE_RESULT = True
# The beat schedule is one short interval, so it needs no file that survives restarts.
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"
# A match whose computer player has been to act this long without moving has lost its task
# (Redis was down when it was sent, its worker died): the sweeper, run by beat every
# BOT_SWEEP_INTERVAL_SECONDS, sends it again. Tasks are idempotent, so a sweep racing a slow
# task costs one no-op.
# The module that plays the computer seats (games/computer_players.py): games itself never
# imports the bots.
COMPUTER_PLAYERS = "bots.interface"
# What one account may keep going (games/services.py): matches waiting or in play, and deals of
# computer players in them (each computer seat counts its match's deals).
MAX_UNFINISHED_MATCHES = env.int("MAX_UNFINISHED_MATCHES", default=10)
MAX_BOT_SEAT_DEALS = env.int("MAX_BOT_SEAT_DEALS", default=3 * 52)
# Two people's rated matches together in 24 hours beyond this are casual (games/rated.py).
RATED_MATCHES_PER_PAIR_PER_DAY = env.int("RATED_MATCHES_PER_PAIR_PER_DAY", default=10)
# Hints a person may have worked out per account (games/hints.py), as `count/period` (second,
# minute, hour, day): each is a search of the seat's layouts. A hint given again is free.
HINT_RATE = env.rate("HINT_RATE", "20/minute") or "20/minute"
# A rematch offer waits this long for its answers (games/rematch.py).
REMATCH_OFFER_SECONDS = env.int("REMATCH_OFFER_SECONDS", default=60)
BOT_STALE_AFTER_SECONDS = env.float("BOT_STALE_AFTER_SECONDS", 15)
BOT_SWEEP_INTERVAL_SECONDS = env.float("BOT_SWEEP_INTERVAL_SECONDS", 5)
# Tables between people (games/clock.py, games/seating.py). A turn clock gives a person this
# many seconds per call (`bid`: bids, passes, trumps, announcements) and per card, unless the
# match sets its own; matches with one person and no open seat have none by default.
CLOCK_DEFAULT = {"bid": int(env.float("CLOCK_BID_SECONDS", 20)),
                 "card": int(env.float("CLOCK_CARD_SECONDS", 30))}
# Timeouts in a row after which a computer player keeps the seat until its person is back.
AUTOPILOT_AFTER_TIMEOUTS = int(env.float("AUTOPILOT_AFTER_TIMEOUTS", 2))
# A person (or spectator) counts as connected this long after their last request.
PRESENCE_SECONDS = env.float("PRESENCE_SECONDS", 45)
# A full quick-match table waits at most this long for its people who were not looking at it
# when it filled (their first view or stream), then starts with them on autopilot.
QUICK_MATCH_ARRIVAL_SECONDS = env.float("QUICK_MATCH_ARRIVAL_SECONDS", 30)
# How often the clocks are looked at (a periodic job; in-process it also wakes for the next
# deadline).
CLOCK_SWEEP_INTERVAL_SECONDS = env.float("CLOCK_SWEEP_INTERVAL_SECONDS", 1)
# Whether the serving process runs the periodic jobs and delivers webhooks itself
# (runtime/work.py): on the embedded default; scaled out, beat and the workers do.
IN_PROCESS_JOBS = env.bool("IN_PROCESS_JOBS", default=not REDIS_URL)
# The live stream (games/api/streams.py): a comment line this often keeps proxies from closing
# a quiet stream; an ASGI server ends a stream after STREAM_MAX_SECONDS (a WSGI server after
# 30 s, as it holds a thread), and the client resumes it with Last-Event-ID.
STREAM_HEARTBEAT_SECONDS = env.float("STREAM_HEARTBEAT_SECONDS", 15)
STREAM_MAX_SECONDS = env.float("STREAM_MAX_SECONDS", 3600)
# A finished match's stream stays open this long after its `end` (and while a rematch offer is
# open), for the ratings and the rematch (games/api/streams.py).
STREAM_AFTER_END_SECONDS = env.float("STREAM_AFTER_END_SECONDS", 60)
# Bounded waiting (games/api/slots.py): open streams per account (across processes with Redis)
# and per server process; event-feed long polls per account, and per process the requests that
# wait holding a thread (long polls, and streams on gunicorn): half of gunicorn's threads
# (batak_api/gunicorn_conf.py), so the rest always serve everyone else's requests.
STREAM_MAX_PER_ACCOUNT = int(env.float("STREAM_MAX_PER_ACCOUNT", 20))
STREAM_MAX_PER_PROCESS = env.int("STREAM_MAX_PER_PROCESS", default=2000)
LONG_POLL_MAX_PER_ACCOUNT = env.int("LONG_POLL_MAX_PER_ACCOUNT", default=4)
LONG_POLL_MAX_PER_PROCESS = env.int(
    "LONG_POLL_MAX_PER_PROCESS", default=max(1, env.int("GUNICORN_THREADS", default=32) // 2)
)
# One account's API requests served at once by one process (games/api/in_flight.py): a quarter
# of gunicorn's threads, so that one account's burst leaves the others most of them, and at
# least four more than its long polls, so that one following its matches can still act.
API_MAX_IN_FLIGHT_PER_ACCOUNT = env.int(
    "API_MAX_IN_FLIGHT_PER_ACCOUNT",
    default=max(LONG_POLL_MAX_PER_ACCOUNT + 4, env.int("GUNICORN_THREADS", default=32) // 4),
)
# Server time (games/server_time.py): the CPU seconds a minute an account's requests and its
# computer players' turns may take, summed over all processes, after a burst of what the budget
# gives in 20 s. Past it the account's computer players' turns wait; past twice its burst its
# requests are refused (429 `server_time_exhausted`). A person against Medium players, playing
# a card a second, takes about 1.4 s a minute (web and workers); a flood of one account taking
# more than a person's share slows everyone's turns. A platform's players also share the
# platform's budget. 0 is no budget (debug runs, unless set).
SERVER_TIME_PER_ACCOUNT = env.float("SERVER_TIME_PER_ACCOUNT", default=0 if DEBUG else 3) or None
SERVER_TIME_PER_PLATFORM = (
    env.float("SERVER_TIME_PER_PLATFORM", default=0 if DEBUG else 120) or None
)
# Metrics (batak_api/metrics.py, batak_api/scrape.py): `GET /metrics` answers a scrape that
# sends this token (`Authorization: Bearer …`); unset, there is no such page. Scaled out, each
# process writes its values to the folder PROMETHEUS_MULTIPROC_DIR names (read by
# prometheus_client itself), and a Celery worker serves its own on METRICS_PORT (0: none).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
METRICS_PORT = env.int("METRICS_PORT", default=0)

# Logging

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
# JSON lines for log collectors in production; a readable line while developing.
LOG_FORMAT = env.str("LOG_FORMAT", default=None) or ("console" if DEBUG else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "batak_api.logs.ContextFilter"}},
    "formatters": {
        "console": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "batak_api.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["context"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own handlers would print its records a second time, past the root's format.
        "django": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        # Every request already has its line from RequestLogMiddleware; keep only server errors.
        "django.request": {"handlers": [], "level": "ERROR", "propagate": True},
        # A line per webhook request; the delivery log already records each attempt.
        "httpx": {"handlers": [], "level": "WARNING", "propagate": True},
    },
}
