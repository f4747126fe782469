#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line
    from django.db.utils import OperationalError, ProgrammingError

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        # A bad setting is the operator's to fix: one clear line, not a traceback.
        print(f"configuration error: {exc}", file=sys.stderr)
        sys.exit(2)
    except (OperationalError, ProgrammingError) as exc:
        if "no such table" in str(exc) or "does not exist" in str(exc):
            print(f"database error: {exc}; has `manage.py migrate` been run?", file=sys.stderr)
            sys.exit(2)
        raise


if __name__ == "__main__":
    main()
