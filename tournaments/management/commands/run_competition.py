"""``manage.py run_competition ID [--wait]``: start a competition from the shell and watch it finish."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.models import Competition
from tournaments.selectors import competition_progress
from tournaments.services.competitions import competition_start

FINAL = (Competition.Status.FINISHED, Competition.Status.CANCELLED)


class Command(BaseCommand):
    help = "Start an open competition (workers play it); with --wait, show a live progress bar until it ends."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("competition_id", type=int)
        parser.add_argument("--wait", action="store_true", help="stay and show progress until it finishes")
        parser.add_argument("--interval", type=float, default=0.5, help="seconds between progress updates")

    def handle(self, *args: Any, **options: Any) -> None:
        competition = Competition.objects.filter(pk=options["competition_id"]).first()
        if competition is None:
            raise CommandError(f"there is no competition {options['competition_id']}")
        if competition.status == Competition.Status.OPEN:
            try:
                competition = competition_start(competition=competition)
            except ValidationError as exc:
                raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
            self.stdout.write(f"started {competition.name}: {competition.matches.count()} matches")
        else:
            self.stdout.write(f"{competition.name} is already {competition.status}")
        if options["wait"]:
            self._watch(competition, options["interval"])

    def _watch(self, competition: Competition, interval: float) -> None:
        tty = sys.stdout.isatty()
        while True:
            competition.refresh_from_db()
            progress = competition_progress(competition)
            line = progress_line(progress)
            if tty:
                self.stdout.write("\r" + line + "\x1b[K", ending="")
            else:
                self.stdout.write(line)
            if competition.status in FINAL:
                break
            time.sleep(interval)
        if tty:
            self.stdout.write("")
        self.stdout.write(f"{competition.name} {competition.status}")
        if progress["error"]:
            self.stdout.write(f"{progress['error']} match(es) in error: retry them from the admin site or the API")


def progress_line(progress: dict[str, Any], width: int = 30) -> str:
    total = progress["total"] or 1
    settled = progress["done"] + progress["error"] + progress["cancelled"]
    filled = round(width * settled / total)
    return (
        f"[{'#' * filled}{'.' * (width - filled)}] {progress['done']}/{progress['total']} matches done, "
        f"{progress['running']} running, {progress['error']} in error; "
        f"{progress['games_played']:,} games, {progress['games_per_second']:,.0f} games/s"
    )
