"""Celery application; start a worker with `celery -A batak_api worker`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")

app = Celery("batak_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
