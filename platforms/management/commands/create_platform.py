"""Register a partner platform and print its first key: `manage.py create_platform NAME`.
The admin does the same (Platforms, then Platform keys); this is for scripts and first set-up."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from platforms import services
from platforms.models import Platform, Scope


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument(
            "--scopes", default=",".join(scope.value for scope in Scope),
            help=("comma-separated scopes of the key, of "
                  f"{', '.join(scope.value for scope in Scope)} (default: every scope)"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        scopes = [scope for scope in options["scopes"].split(",") if scope]
        unknown = set(scopes) - {scope.value for scope in Scope}
        if unknown:
            self.stderr.write(f"unknown scopes: {', '.join(sorted(unknown))}; the scopes are "
                              f"{', '.join(scope.value for scope in Scope)}")
            raise SystemExit(2)
        platform = Platform.objects.filter(name=options["name"]).first()
        if platform is None:
            platform = services.register_platform(name=options["name"])
        _, key = services.issue_key(platform=platform, name="created by create_platform",
                                    scopes=scopes)
        self.stdout.write(key)
