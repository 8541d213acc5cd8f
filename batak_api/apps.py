"""The service's own app: what the project, above its apps, sets up once Django is ready."""

from __future__ import annotations

from django.apps import AppConfig
from django.core.signals import request_started


class ServiceConfig(AppConfig):
    name = "batak_api"
    label = "service"

    def ready(self) -> None:
        from batak_api.follow_ups import FOLLOW_UPS
        from games import follow_ups
        from runtime import work

        follow_ups.install(FOLLOW_UPS)
        work.declare()

        # On the embedded default the serving process runs the periodic jobs itself, from its
        # first request on (commands and tests that serve none never start them).
        request_started.connect(work.start_in_process, dispatch_uid="in-process-jobs")
