"""The abuse scenarios (tests/abuse/scenarios.py) on the scaled-out form: gunicorn on
PostgreSQL with computer players in a Celery worker."""

from __future__ import annotations

import pytest

from tests.abuse import scenarios

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.__name__)
def test_on_the_scaled_out_form(scenario, web: str) -> None:
    scenario(web)
