#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")
    from django.core.management import execute_from_command_line

    if sys.argv[1:2] == ["runserver"]:
        # The development server traces its requests too, when the OTEL_* variables say so.
        from batak_api.tracing import configure

        configure()
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
