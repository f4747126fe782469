"""A gauntlet: every entrant plays one fixed reference bot, ``rounds`` times with the seats swapped each time,
and is ranked by its score rate against it. The reference itself is listed last: it is the yardstick.

A sixth format that lives only in the tests (issue 22, docs/formats.md "Adding a format"): the test process
registers it with ``tournaments.formats.registry.register`` (tests/conftest.py, the ``gauntlet`` fixture), a
worker's process with ``COMPETITION_FORMATS=tests.tournaments.gauntlet``, which registers ``FORMATS``. Nothing
in league/, tournaments/ or config/ knows it: its settings, its schedule, its table and its part of the
competition pages are all here.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.template import engines

from league.models import BotVersion
from league.standings import Tiebreak
from tournaments.formats.base import Draft, Format, FormatBase, Ranking
from tournaments.formats.scheduled import first_rounds_create
from tournaments.formats.spec import BotVersionRef, Spec, WholeNumber
from tournaments.formats.values import whole_setting
from tournaments.models import Competition, Entrant, Match, Standing, units_per_point
from tournaments.pairing import Table

KEY = "gauntlet"
#: Match points per match played, byes left out: no standings column holds it, so ``ranking`` computes it.
SCORE_RATE = Tiebreak("score_rate", "Score rate", True, "")
#: Its part of the competition pages. A format shipped in tournaments/formats/ keeps this in
#: tournaments/templates/formats/<key>.html and renders it with render_to_string; one kept outside loads its own.
PAGE_PART = engines["django"].from_string(Path(__file__).with_name("gauntlet.html").read_text())


class Gauntlet(FormatBase):
    key = KEY
    label = "Gauntlet"
    summary = "every entrant plays one reference bot a few times: how each measures up against a fixed yardstick"
    settings: Spec = (
        BotVersionRef(
            name="reference",
            label="Reference bot",
            help="the bot version every entrant plays: a ready version of a bot of the competition's game",
            default=None,
        ),
        WholeNumber(
            name="rounds",
            label="Matches against the reference",
            help="how many matches each entrant plays the reference, seats swapped each time",
            default=2,
            minimum=1,
            maximum=10,
        ),
    )

    def check(self, draft: Draft) -> dict[str, str]:
        refused: dict[str, str] = {}
        if draft.players_per_match != 2:
            refused["players_per_match"] = "a gauntlet is played at tables of two: an entrant against the reference"
        why = _reference_refusal(draft.settings["reference"], draft.game)
        if why:
            refused["reference"] = why
        return refused

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        reference = _reference_entrant(competition, entrants)
        contenders = [entrant for entrant in entrants if entrant != reference]
        if not contenders:
            raise ValidationError({"entrants": "a gauntlet needs at least one entrant besides the reference"})
        rounds = whole_setting(competition, "rounds") or 1
        # Seats swapped each round: the reference sits second in odd rounds, first in even ones.
        schedule: list[list[Table]] = [
            [(entrant, reference) if number % 2 else (reference, entrant) for entrant in contenders]
            for number in range(1, rounds + 1)
        ]
        first_rounds_create(competition, lambda: schedule)

    def standings_figures(self, game_order: tuple[Tiebreak, ...]) -> tuple[Tiebreak, ...]:
        return (SCORE_RATE, *game_order)

    def ranking(self, competition: Competition) -> Ranking:
        per_point = units_per_point(competition.players_per_match)
        rows = Standing.objects.filter(competition=competition).values_list(
            "entrant_id", "match_units", "bye_units", "played"
        )
        computed = {
            entrant: {SCORE_RATE.key: Fraction(units - byes, per_point * played) if played else Fraction(0)}
            for entrant, units, byes, played in rows
        }
        reference = reference_entrant_id(competition)
        return Ranking(computed=computed, first_key=lambda row: (row.entrant_id == reference,), resort=True)

    def order_note(self, labels: list[str]) -> str:
        return "Ordered by " + ", then ".join(labels) + "; the reference bot comes last, below those who play it"

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        matches = Match.objects.filter(competition=competition)
        context = {
            "admin": admin,
            "reference": _reference_name(competition),
            "rounds": whole_setting(competition, "rounds"),
            "matches_done": matches.filter(status=Match.Status.DONE).count(),
            "matches_total": matches.count(),
        }
        return str(PAGE_PART.render(context))


def _reference_refusal(reference: object, game: str) -> str:
    if not isinstance(reference, int):
        return "name the bot version every entrant plays"
    version = BotVersion.objects.select_related("bot").filter(pk=reference).first()
    if version is None:
        return f"there is no bot version {reference}"
    if version.bot.game != game:
        return f"the reference must play {game}; this bot plays {version.bot.game}"
    if version.status != BotVersion.Status.READY or version.bot.retired_at is not None:
        return f"the reference must be a ready version of a bot still playing; this one is {version.status}"
    return ""


def reference_entrant_id(competition: Competition) -> int | None:
    reference = whole_setting(competition, "reference")
    if reference is None:
        return None
    return (
        Entrant.objects.filter(competition=competition, bot_version_id=reference).values_list("id", flat=True).first()
    )


def _reference_entrant(competition: Competition, entrants: list[int]) -> int:
    """The reference's entrant: the one entered with its version, else entered now, under the start's lock."""
    existing = reference_entrant_id(competition)
    if existing is not None:
        return existing
    reference = whole_setting(competition, "reference")
    # Checked again: the version may have been retired since the competition was created.
    why = _reference_refusal(reference, competition.game)
    if why or reference is None:
        raise ValidationError({"reference": why})
    version = BotVersion.objects.select_related("bot").get(pk=reference)
    entrant = Entrant.objects.create(
        competition=competition, bot_version=version, name=f"{version.bot.name} v{version.number}"
    )
    # The start opened a standings row for each entrant before asking the format; this one came after.
    Standing.objects.create(competition=competition, entrant=entrant)
    return entrant.pk


def _reference_name(competition: Competition) -> str:
    reference = whole_setting(competition, "reference")
    version = None if reference is None else BotVersion.objects.select_related("bot").filter(pk=reference).first()
    return f"{version.bot.name} v{version.number}" if version is not None else "(no reference)"


GAUNTLET = Gauntlet()
#: What COMPETITION_FORMATS registers from this module (tournaments/formats/outside.py); typed, so that mypy
#: holds the gauntlet to the protocol (`mypy tests/tournaments/gauntlet.py`).
FORMATS: tuple[Format, ...] = (GAUNTLET,)
