"""WSGI entry point, served by gunicorn in production. Every request's body is bounded before
Django reads it (batak_api/limits.py); the work a request's thread plays itself waits for its
answer to be sent (runtime/work.py `AfterAnswer`)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")

django_application = get_wsgi_application()

# These need Django set up.
from batak_api.limits import BodyLimitWSGI  # noqa: E402
from games.computer_players import warm_up_if_in_process  # noqa: E402
from runtime.work import AfterAnswer  # noqa: E402

application = AfterAnswer(BodyLimitWSGI(django_application))

warm_up_if_in_process()
