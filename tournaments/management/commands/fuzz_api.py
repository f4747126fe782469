"""``manage.py fuzz_api``: the API fuzz gate (tournaments/fuzz.py) on this process's database; `make fuzz`.

Seeds the database with the demo club and a transcript (idempotent), serves it with gunicorn,
and runs Schemathesis over every operation, anonymous and as the club's organiser.
Exits 1 if anything failed. Give it a database of its own: the fuzzer creates, changes and
deletes what it finds there.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.fuzz import database_url, examples_from_env, fuzz, seed_club


class Command(BaseCommand):
    help = "Fuzz every API operation with Schemathesis against a real server on this database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--examples", type=int, default=None, help="examples per operation (default: FUZZ_EXAMPLES, else 50)"
        )
        parser.add_argument("--workers", type=int, default=2, help="Schemathesis's concurrent requests")
        parser.add_argument("--server-processes", type=int, default=2, help="gunicorn worker processes")
        parser.add_argument(
            "--seed", type=int, default=None, help="Schemathesis's seed (default: FUZZ_SEED, else random)"
        )
        parser.add_argument(
            "--mode", choices=["anonymous", "member", "both"], default="both", help="without credentials, with, or both"
        )

        parser.add_argument("--only", default=None, help="fuzz only the paths that match this regular expression")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            examples = options["examples"] or examples_from_env()
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if examples < 1:
            raise CommandError("--examples must be 1 or more")
        cast = seed_club()
        modes = ("anonymous", "member") if options["mode"] == "both" else (options["mode"],)
        results = fuzz(
            database_url=database_url(),
            cast=cast,
            examples=examples,
            workers=options["workers"],
            server_processes=options["server_processes"],
            seed=options["seed"],
            say=self.stdout.write,
            echo=self.stdout.write,
            modes=modes,
            only=options["only"],
        )
        if not all(result.passed for result in results):
            raise CommandError("the API fuzz gate failed: see the failures above")
