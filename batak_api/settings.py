"""Settings of the Batak service.

Everything comes from environment variables; the defaults run the service on a laptop with
SQLite and in-process Celery, so deployments only override what differs.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Core

INSECURE_DEV_SECRET_KEY = "django-insecure-batak-local-development-only"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", INSECURE_DEV_SECRET_KEY)
DEBUG = env_bool("DJANGO_DEBUG", default=True)
if not DEBUG and SECRET_KEY == INSECURE_DEV_SECRET_KEY:
    # The dev key is public, so a non-debug deployment without its own key could forge sessions.
    raise ImproperlyConfigured("Set DJANGO_SECRET_KEY when DJANGO_DEBUG is false.")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "games.apps.GamesConfig",
    "bots.apps.BotsConfig",
    "tour.apps.TourConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

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
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    ),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite has no row locks: taking the write lock when a transaction begins makes
    # `select_for_update` transactions queue up instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
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

# Static files

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# REST API

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "EXCEPTION_HANDLER": "games.api.problems.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Batak API",
    "DESCRIPTION": (
        "Turkish Batak — auction (İhaleli), partnership (Eşli) and spades (Koz Maça) — "
        "matches between people and computer players."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Serve Swagger UI and ReDoc from our own static files rather than a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "OAS_VERSION": "3.1.0",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.require_documentation",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "Game": "games.models.GameChoice",
        "MatchStatus": "games.models.MatchStatus",
        "BotLevel": "games.models.BotLevel",
        "Suit": ["S", "H", "D", "C"],
        "Card": "games.api.serializers.CARD_CHOICES",
        "Phase": "games.api.serializers.PHASES",
        "Reason": "games.api.serializers.REASONS",
        "ActionKind": "games.api.serializers.ACTION_KINDS",
        "Outcome": "games.api.serializers.OUTCOMES",
        "Direction": "games.api.serializers.DIRECTIONS",
        "AllPass": "games.api.serializers.ALL_PASS_RULES",
        "TrumpLead": "games.api.serializers.TRUMP_LEADS",
        "Scoring": "games.api.serializers.SCORINGS",
        "SeatKind": ["person", "bot", "open"],
        "SeatSpecKind": ["me", "open", "bot"],
        "DealStatus": ["finished", "redealt"],
    },
    "TAGS": [
        {"name": "accounts", "description": "Guest sign-up, accounts and tokens."},
        {"name": "matches", "description": "Creating, listing and joining matches."},
        {"name": "play", "description": "A seat's view, submitting moves, the event feed."},
        {"name": "history", "description": "Ended deals, with their revealed decks."},
        {"name": "rules", "description": "Table rules."},
        {"name": "tour", "description": "Tour of Tables, the story mode."},
    ],
}

# Celery

REDIS_URL = os.environ.get("REDIS_URL", "")
# Without Redis there is no worker to pick tasks up, so they run inline where they are scheduled
# and their exceptions surface in the caller.
CELERY_BROKER_URL = REDIS_URL or "memory://"
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

# Logging

LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "console": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "console"},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}
