"""``manage.py load_demo``: build the demo club (idempotent) and play its competitions."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from tournaments.demo import CLUB_NAME, DEMO_PASSWORD, DEMO_USERNAME, MEMBERS, build_demo, demo_counts


class Command(BaseCommand):
    help = "Load the demo club: a superuser login, members, built-in bots and one played competition per game."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        report = build_demo(say=lambda line: self.stdout.write(f"  {line}"))
        counts = ", ".join(f"{n} {what}" for what, n in demo_counts().items())
        verb = "Loaded" if report.created or report.matches_played else "Already loaded:"
        self.stdout.write(self.style.SUCCESS(f"{verb} {CLUB_NAME} ({counts}) in {time.monotonic() - started:.1f} s."))
        self.stdout.write(
            f"Admin login: {DEMO_USERNAME} / {DEMO_PASSWORD} (superuser, the club's organiser); "
            f"API logins: {', '.join(MEMBERS)} (password {DEMO_PASSWORD})."
        )
