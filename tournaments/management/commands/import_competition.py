"""``manage.py import_competition FILE --club SLUG``: recreate a competition exported by another instance."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from league.models import Club
from tournaments.models import Game
from tournaments.services.competition_import import CompetitionFileError, competition_import


class Command(BaseCommand):
    help = (
        "Import a competition from the JSON file GET /api/tournaments/{id}/export/ gave (docs/exports.md) into "
        "the club with this slug; its standings are computed again from its games."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the exported JSON file (- reads standard input)")
        parser.add_argument("--club", required=True, help="the slug of the club that will hold it")

    def handle(self, *args: Any, **options: Any) -> None:
        club = Club.objects.filter(slug=options["club"]).first()
        if club is None:
            raise CommandError(f"there is no club with the slug {options['club']!r}")
        document = _read(options["file"])
        try:
            competition = competition_import(document=document, club=club)
        except CompetitionFileError as exc:
            raise CommandError(str(exc)) from None
        entrants = competition.entrants.count()
        games = Game.objects.filter(match__competition=competition).count()
        self.stdout.write(
            f"imported competition {competition.pk}, {competition.name!r} ({competition.game}, "
            f"{competition.status}): {entrants} entrants, {games} games, in club {club.slug}"
        )


def _read(name: str) -> object:
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{name} is not a text file (UTF-8): not a competition export") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(
            f"{name} is not JSON (line {exc.lineno}, column {exc.colno}): not a competition export"
        ) from None
