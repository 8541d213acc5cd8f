"""Project wiring: settings, health probe, API schema and docs."""

import re
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.test import Client

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
