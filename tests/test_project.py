"""Project wiring: settings, probes, throttling, logs, API schema and docs."""

import io
import json
import logging
import os
import re
import secrets
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import OperationalError, connection
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

from batak_api.cache import FailOpenRedisCache
from batak_api.env import Env
from batak_api.logs import ContextFilter, JsonFormatter
from runtime import windows
from runtime.log_context import log_context

SCHEMA_PATH = Path(settings.BASE_DIR) / "openapi" / "schema.yaml"
STALE_SCHEMA = (
    "openapi/schema.yaml is stale; regenerate it with: "
    "python manage.py spectacular --validate --fail-on-warn --file openapi/schema.yaml"
)


def test_system_check_passes() -> None:
    call_command("check", fail_level="WARNING")


def test_healthz_answers_without_credentials(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_committed_schema_matches_the_code(tmp_path: Path) -> None:
    generated = tmp_path / "schema.yaml"

    call_command("spectacular", validate=True, fail_on_warn=True, file=str(generated))

    assert generated.read_bytes() == SCHEMA_PATH.read_bytes(), STALE_SCHEMA


def test_swagger_ui_is_served_without_a_cdn(client: Client) -> None:
    response = client.get("/api/docs/")

    assert response.status_code == 200
    assert not re.findall(r"https?://", response.content.decode())


def test_redoc_is_served_without_a_cdn(client: Client) -> None:
    response = client.get("/api/redoc/")

    assert response.status_code == 200
    assert not re.findall(r"https?://", response.content.decode())


# --- probes ------------------------------------------------------------------------------------


def test_readyz_answers_when_database_and_broker_do(client: Client, db: None) -> None:
    response = client.get("/readyz")

    assert response.status_code == 200
    # The test settings have no Redis: tasks run in-process, so there is no broker to reach.
    assert response.json() == {"status": "ok", "checks": {
        "database": "ok", "broker": "in-process", "migrations": "ok"}}


def test_readyz_is_503_naming_what_is_unreachable(
    client: Client, db: None, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.REDIS_URL = f"redis://127.0.0.1:{_closed_port()}/0"

    def no_database() -> None:
        raise OperationalError("connection refused")

    with monkeypatch.context() as patch:
        patch.setattr(connection, "cursor", no_database)
        response = client.get("/readyz")

    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "not_ready"
    assert body["checks"] == {"database": "unreachable", "broker": "unreachable",
                              "migrations": "unknown"}


def test_readyz_is_503_while_a_migration_is_not_applied(
    client: Client, db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new version's web process started before its migrations ran is not ready; once they
    have, it is (and stays: the check is not made again)."""
    from django.db.migrations.executor import MigrationExecutor

    from batak_api import urls

    monkeypatch.setattr(urls, "_migrated", False)
    plan = MigrationExecutor.migration_plan
    with monkeypatch.context() as patch:
        patch.setattr(MigrationExecutor, "migration_plan",
                      lambda self, targets: [("games", "0099_not_yet")])
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["migrations"] == "pending"
    assert MigrationExecutor.migration_plan is plan
    assert client.get("/readyz").json()["checks"]["migrations"] == "ok"


# --- production settings -----------------------------------------------------------------------


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # Settings are read once per process, so the production ones need a process of their own.
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy() -> None:
    result = _manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DJANGO_DEBUG="false", DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
    )

    assert result.returncode == 0, result.stdout + result.stderr


# "2" is no true spelling: it means production, as any value but 1, true, yes or on does.
@pytest.mark.parametrize("debug", ["false", "2"])
def test_production_settings_refuse_the_development_key(debug: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR,
        env={**env, "DJANGO_DEBUG": debug}, capture_output=True, text=True, timeout=120,
    )

    assert result.returncode != 0
    assert "Set DJANGO_SECRET_KEY" in result.stderr


def test_the_service_refuses_to_start_on_a_number_that_is_none() -> None:
    result = _manage("check", API_MAX_BODY_BYTES="64k")

    assert result.returncode != 0
    assert "API_MAX_BODY_BYTES must be an integer, not '64k'." in result.stderr


def test_a_secret_key_starting_with_a_dollar_is_kept_as_it_is() -> None:
    # Django's generated keys may start with "$"; it must not be read as another variable's name.
    key = "$HOME" + secrets.token_urlsafe(50)
    shown = _manage(
        "shell", "-c", "from django.conf import settings; print(settings.SECRET_KEY)",
        DJANGO_DEBUG="false", DJANGO_SECRET_KEY=key,
    )

    assert shown.stdout.strip().splitlines()[-1] == key, shown.stderr


# --- reading the environment (batak_api/env.py) ------------------------------------------------

VARIABLE = "BATAK_TEST_VARIABLE"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", True), ("true", True), (" TRUE ", True), ("Yes", True), ("on", True),
     ("0", False), ("false", False), ("off", False), ("", False), ("garbage", False),
     # environ alone would take these for true.
     ("2", False), ("-1", False), ("y", False), ("ok", False)],
)
def test_a_flag_is_true_only_as_1_true_yes_or_on(
    value: str, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, value)

    assert Env().bool(VARIABLE, default=not expected) is expected


def test_an_unset_variable_takes_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    env = Env()

    assert env.bool(VARIABLE, default=True) is True
    assert env.int(VARIABLE, default=7) == 7
    assert env.float(VARIABLE, default=15) == 15.0
    assert isinstance(env.float(VARIABLE, default=15), float)
    assert env.list(VARIABLE, default=["localhost"]) == ["localhost"]
    assert env.str(VARIABLE, default="celery") == "celery"


@pytest.mark.parametrize(
    ("value", "expected"), [(" 7 ", 7.0), ("+3", 3.0), ("7.5", 7.5), ("1e3", 1000.0), ("0", 0.0)]
)
def test_a_float_reads_as_python_reads_it(
    value: str, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, value)

    assert Env().float(VARIABLE, default=15) == expected


@pytest.mark.parametrize("value", ["abc", "7.5", "", "$5"])
def test_a_bad_integer_is_refused_naming_the_variable(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, value)

    with pytest.raises(ImproperlyConfigured) as refused:
        Env().int(VARIABLE, default=5)
    assert str(refused.value) == f"{VARIABLE} must be an integer, not {value!r}."


# environ alone would read "5s" as 5 and "1,5" as 1.5.
@pytest.mark.parametrize("value", ["abc", "5s", "1,5"])
def test_a_bad_float_is_refused_naming_the_variable(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, value)

    with pytest.raises(ImproperlyConfigured) as refused:
        Env().float(VARIABLE, default=15)
    assert str(refused.value) == f"{VARIABLE} must be a number, not {value!r}."


@pytest.mark.parametrize("value", ["20", "20/fortnight", "0/minute", "x/hour", "20/", "-1/s"])
def test_a_bad_rate_is_refused_naming_the_variable(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rate (the throttles', HINT_RATE, DATA_EXPORT_RATE) is read so: a malformed one
    stops the service at start, where DRF's throttles would fail each request it limits."""
    monkeypatch.setenv(VARIABLE, value)

    with pytest.raises(ImproperlyConfigured) as refused:
        Env().rate(VARIABLE, default="2/hour")
    assert str(refused.value) == f"{VARIABLE} is a count and a period (20/minute), not {value!r}."


@pytest.mark.parametrize(("value", "expected"), [("", "2/hour"), ("5/minute", "5/minute")])
def test_a_rate_reads_as_the_windows_count_it(
    value: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, value)

    rate = Env().rate(VARIABLE, default="2/hour")
    assert rate == expected
    assert windows.parse_rate(rate) in {(2, 3600), (5, 60)}


def test_an_empty_value_leaves_a_float_at_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, "")

    assert Env().float(VARIABLE, default=15) == 15.0


def test_an_empty_value_with_a_default_of_none_reads_as_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What the settings' `or` fallbacks (throttle rates, log format, static root) rely on.
    monkeypatch.setenv(VARIABLE, "")
    env = Env()

    assert env.str(VARIABLE, default=None) is None
    assert env.int(VARIABLE, default=None) is None


def test_list_items_are_trimmed_and_empty_ones_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    env = Env()
    monkeypatch.setenv(VARIABLE, " a.example , b.example,, ,")
    assert env.list(VARIABLE, default=["localhost"]) == ["a.example", "b.example"]
    monkeypatch.setenv(VARIABLE, "")
    assert env.list(VARIABLE, default=["localhost"]) == []


def test_a_value_starting_with_a_dollar_names_no_other_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BATAK_TEST_OTHER", "other")
    monkeypatch.setenv(VARIABLE, "$BATAK_TEST_OTHER")

    assert Env().str(VARIABLE, default="celery") == "$BATAK_TEST_OTHER"


# --- throttling --------------------------------------------------------------------------------


def test_sign_ups_beyond_the_rate_are_refused_with_a_problem(
    client: Client, db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rates are read when DRF is imported; the debug settings of the tests leave them off.
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/minute", "user": None})
    cache.clear()

    statuses = [
        client.post("/api/v1/auth/guest", {}, content_type="application/json").status_code
        for _ in range(3)
    ]
    refused = client.post("/api/v1/auth/guest", {}, content_type="application/json")

    assert statuses == [201, 201, 429]
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0


@pytest.mark.parametrize(("method", "path"), [
    ("get", "/api/nonexistent"), ("get", "/api/"), ("get", "/api/v2/matches"),
    ("post", "/api/foo"), ("get", "/api/v1/no-such-thing"),
])
def test_unknown_api_paths_are_a_problem_with_debug_on_too(
    client: Client, db: None, settings, method: str, path: str
) -> None:
    # Found by probing: with DEBUG on (the embedded default) Django answered its HTML page,
    # which lists every URL pattern.
    settings.DEBUG = True
    answer = getattr(client, method)(path)
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == "not_found"


def test_an_api_docs_path_without_its_slash_is_still_redirected(client: Client, db: None) -> None:
    assert client.get("/api/docs").status_code == 301


def test_registered_and_guest_accounts_share_one_sign_up_rate(
    client: Client, db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Registering is no way round the bound on new accounts; a preflight (OPTIONS) or a method
    # the view refuses (405) uses up nothing.
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {"anon": None, "user": None, "guest": "3/hour"})
    cache.clear()
    for _ in range(3):
        assert client.options("/api/v1/auth/guest").status_code == 200
        assert client.get("/api/v1/auth/register").status_code == 405
    statuses = [
        client.post("/api/v1/auth/guest", {}, content_type="application/json").status_code,
        *[client.post("/api/v1/auth/register", {"username": f"new.{number}",
                                                "password": "tea garden at noon"},
                      content_type="application/json").status_code for number in range(3)],
    ]
    assert statuses == [201, 201, 201, 429]
    assert client.post("/api/v1/auth/guest", {}, content_type="application/json").status_code \
        == 429


def test_a_rotating_forwarded_for_header_does_not_escape_the_throttle(
    client: Client, db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # By default no proxy is trusted, in production too: X-Forwarded-For is the client's claim.
    shown = _manage(
        "shell", "-c", "from django.conf import settings; "
        "print(settings.REST_FRAMEWORK['NUM_PROXIES'])",
        DJANGO_DEBUG="false", DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
    )
    assert shown.stdout.strip().splitlines()[-1] == "0", shown.stderr
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/minute", "user": None})
    cache.clear()
    statuses = [
        client.post("/api/v1/auth/guest", {}, content_type="application/json",
                    HTTP_X_FORWARDED_FOR=f"203.0.113.{number}").status_code
        for number in range(4)
    ]
    assert statuses == [201, 201, 429, 429]


def test_the_cache_fails_open_when_redis_is_unreachable() -> None:
    unreachable = FailOpenRedisCache(f"redis://127.0.0.1:{_closed_port()}/0", {})

    unreachable.set("throttle", [1.0], 60)
    assert unreachable.get("throttle", []) == []
    assert unreachable.get_many(["a", "b"]) == {}
    assert unreachable.add("note", 1, 60) is False
    assert unreachable.incr("count") == 0  # a count that limits nothing


# --- logs --------------------------------------------------------------------------------------


def test_json_logs_are_one_line_with_extras_and_context() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    logger = logging.getLogger("tests.json")
    logger.addHandler(handler)
    try:
        with log_context(request_id="r-1", match_id="m-1"):
            try:
                raise ValueError("two\nlines")
            except ValueError:
                logger.exception("move %s refused", "QC", extra={"version": 7})
    finally:
        logger.removeHandler(handler)

    [line] = stream.getvalue().splitlines()
    record = json.loads(line)
    assert record["message"] == "move QC refused"
    assert record["level"] == "ERROR"
    assert (record["request_id"], record["match_id"], record["version"]) == ("r-1", "m-1", 7)
    assert "ValueError: two\nlines" in record["exc_info"]


def test_each_request_is_logged_with_its_id_and_match(
    client: Client, db: None, caplog: pytest.LogCaptureFixture
) -> None:
    match_id = "8b0e4b52-8d0c-4f3c-9d38-0f1f2b7f1a10"
    caplog.handler.addFilter(ContextFilter())
    with caplog.at_level(logging.INFO, logger="batak_api.request"):
        response = client.get(f"/api/v1/matches/{match_id}/view", HTTP_X_REQUEST_ID="abc-123")

    assert response["X-Request-ID"] == "abc-123"
    [record] = [r for r in caplog.records if r.name == "batak_api.request"]
    assert (record.status, record.request_id, record.match_id) == (401, "abc-123", match_id)
    assert record.path == f"/api/v1/matches/{match_id}/view"


def test_a_request_id_that_is_no_token_is_replaced(client: Client) -> None:
    response = client.get("/healthz", HTTP_X_REQUEST_ID="forged\nline")

    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_one_version_everywhere() -> None:
    """The API documents the project's version, the README and the docs' home page name it,
    and the changelog says it is not yet 1.0 for as long as it is below."""
    import tomllib

    import yaml

    root = Path(__file__).resolve().parents[1]
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    schema = yaml.safe_load((root / "openapi" / "schema.yaml").read_text())
    assert schema["info"]["version"] == version
    for page in ("README.md", "docs/index.md"):
        assert f"Version {version}:" in (root / page).read_text(), page
    if int(version.split(".")[0]) < 1:
        assert "not yet 1.0" in (root / "CHANGELOG.md").read_text()
