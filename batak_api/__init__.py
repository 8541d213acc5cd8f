"""Django project package of the Batak service."""

# Importing the Celery app with Django binds @shared_task to it in web and worker processes.
from .celery import app as celery_app

__all__ = ["celery_app"]
