"""WSGI entry point, served by gunicorn in production."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")

application = get_wsgi_application()
