"""WSGI entry point, served by gunicorn in production."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")

application = get_wsgi_application()

from games.computer_players import warm_up_if_in_process  # noqa: E402 (needs Django set up)

warm_up_if_in_process()
