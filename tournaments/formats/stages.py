"""Stages by composition: a format with a cut to another. When a stage finishes, its best ``cut_to`` go on to a
new competition of ``cut_format`` (a knockout), seeded by the stage's final standings, and it starts.

A ``Staged`` format is the format it wraps, with three more kinds of settings: ``cut_to``, ``cut_format``,
and the settings the format cut to takes from its stage (a knockout's ``advance_count`` and ``third_place``,
marked ``from_stage``). Without a cut it plays exactly as the format it wraps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.http import HttpRequest

from engine.rng import derive_seed
from league.standings import Tiebreak
from tournaments.formats.base import Draft, Format, Ranking, RoundByes
from tournaments.formats.spec import Choice, Spec, Value, WholeNumber
from tournaments.formats.values import setting
from tournaments.models import Competition, Entrant

#: The most that can go on from a stage.
MAX_CUT = 1024
#: The forms' heading of the cut and of the settings the knockout takes from the stage.
CUT_SECTION = "Finish with a knockout (optional)"


class StageTarget(Format, Protocol):
    def after_stage(self, stage: Competition) -> dict[str, Value]:
        """Its settings that come from the stage it follows (seeded by the stage's standings, say)."""
        ...


class Staged:
    def __init__(self, base: Format, *, cuts_to: Sequence[StageTarget]) -> None:
        self.base, self.targets = base, {target.key: target for target in cuts_to}
        self.key, self.label, self.summary = base.key, base.label, base.summary
        self.ends_by_itself = base.ends_by_itself
        self.pairs_round_by_round = base.pairs_round_by_round
        self.open_while_running = base.open_while_running
        self.start_order = base.start_order
        self.chart_over_time = base.chart_over_time
        carried = {
            s.name: dataclasses.replace(s, section=CUT_SECTION)
            for target in cuts_to
            for s in target.settings
            if s.from_stage
        }
        self.carried: Spec = tuple(carried.values())
        self.settings: Spec = (
            *base.settings,
            WholeNumber(
                name="cut_to",
                label="Going on to a knockout",
                help="how many of its best go on to a knockout when it finishes; empty for no knockout",
                default=None,
                nullable=True,
                minimum=2,
                maximum=MAX_CUT,
                section=CUT_SECTION,
            ),
            Choice(
                name="cut_format",
                label="The knockout",
                help="the knockout its best go on to, if any",
                default="",
                choices=(("", "No knockout"), *((t.key, t.label) for t in cuts_to)),
                section=CUT_SECTION,
            ),
            *self.carried,
        )

    def check(self, draft: Draft) -> dict[str, str]:
        refused = self.base.check(draft)
        cut_to, cut_format = draft.settings["cut_to"], str(draft.settings["cut_format"])
        if cut_to is None and not cut_format:
            for carried in self.carried:
                if draft.settings[carried.name] != carried.default:
                    refused[carried.name] = (
                        "is for the knockout a stage cuts to: give cut_to and cut_format, or leave it out"
                    )
            return refused
        target = self.targets.get(cut_format)
        if target is None:
            refused["cut_format"] = f"choose the knockout to cut to: {', '.join(self.targets)}"
        elif not isinstance(cut_to, int) or not draft.players_per_match <= cut_to <= MAX_CUT:
            refused["cut_to"] = f"how many go on to the knockout: between {draft.players_per_match} and {MAX_CUT}"
        elif draft.max_entrants is not None and cut_to > draft.max_entrants:
            refused["cut_to"] = f"more go on ({cut_to}) than may enter (max_entrants {draft.max_entrants})"
        else:
            refused.update(self._target_check(draft, target))
        return refused

    def _target_check(self, draft: Draft, target: StageTarget) -> dict[str, str]:
        carried = {s.name for s in self.carried}
        settings = {
            s.name: draft.settings.get(s.name, s.default) if s.name in carried else s.default for s in target.settings
        }
        refused = target.check(dataclasses.replace(draft, settings=settings))
        return {name: why for name, why in refused.items() if name in carried}

    def entrant_refusal(self, competition: Competition, *, person: bool) -> str:
        return self.base.entrant_refusal(competition, person=person)

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        cut_to = setting(competition, "cut_to")
        if isinstance(cut_to, int) and cut_to > len(entrants):
            raise ValidationError(
                {"cut_to": f"{cut_to} are to go on to the knockout, and only {len(entrants)} have entered"}
            )
        self.base.start(competition, entrants, order)

    def next_round(self, competition: Competition, number: int) -> list[int]:
        return self.base.next_round(competition, number)

    def match_recorded(self, competition_id: int, match_id: int, ranks: Mapping[int, int]) -> None:
        self.base.match_recorded(competition_id, match_id, ranks)

    def finished(self, competition_id: int) -> None:
        self.base.finished(competition_id)
        stage = Competition.objects.get(pk=competition_id)
        target = self.targets.get(str(setting(stage, "cut_format")))
        if target is not None and stage.next_stage_id is None:
            takes = {s.name for s in target.settings}
            _cut(stage, target, {s.name: setting(stage, s.name) for s in self.carried if s.name in takes})

    def joined_running(self, competition: Competition, entrant: Entrant) -> None:
        self.base.joined_running(competition, entrant)

    def leaving_running(self, competition: Competition, entrant: Entrant) -> None:
        self.base.leaving_running(competition, entrant)

    def best_of(self, competition: Competition) -> bool:
        return self.base.best_of(competition)

    def standings_figures(self, game_order: tuple[Tiebreak, ...]) -> tuple[Tiebreak, ...]:
        return self.base.standings_figures(game_order)

    def standings_sql_order(self) -> list[Any]:
        return self.base.standings_sql_order()

    def ranking(self, competition: Competition) -> Ranking:
        return self.base.ranking(competition)

    def order_note(self, labels: list[str]) -> str:
        return self.base.order_note(labels)

    def round_byes(self, competition: Competition) -> RoundByes:
        return self.base.round_byes(competition)

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        return self.base.page_part(competition, admin=admin, request=request)


def _cut(stage: Competition, target: StageTarget, carried: Mapping[str, Value]) -> Competition:
    """The competition the finished ``stage`` cuts to, made and started now, in the transaction that finished the
    stage and under its lock, so it is made exactly once (``next_stage`` is one to one)."""
    # Imported here: the services start matches through the scheduling that recording, which calls this, uses.
    from tournaments.selectors import competition_standings
    from tournaments.services.competitions import competition_create, competition_start

    following = competition_create(
        club=stage.club,
        created_by=stage.created_by,
        name=f"{stage.name}: {target.label.lower()}"[:120],
        game=stage.game,
        options=stage.options,
        # From the stage's seed, so a stage of bots replays with its knockout.
        seed=derive_seed(stage.seed, "next stage"),
        format=target.key,
        settings={
            "players_per_match": stage.players_per_match,
            "games_per_match": stage.games_per_match,
            "people_play": stage.people_play,
            "move_seconds": stage.move_seconds,
            "game_seconds": stage.game_seconds,
            "live_tables_public": stage.live_tables_public,
            "duplicate_deals": stage.duplicate_deals,
            **carried,
            **target.after_stage(stage),
        },
    )
    following.organisers.set(stage.organisers.all())
    following.referees.set(stage.referees.all())
    # The table's order, ties left as it shows them: entrants level on every tiebreak keep the game's order.
    best = [row.standing.entrant for row in competition_standings(stage)[: int(setting(stage, "cut_to") or 0)]]
    Entrant.objects.bulk_create(
        Entrant(competition=following, bot_version_id=e.bot_version_id, player_id=e.player_id, name=e.name)
        for e in best
    )
    stage.next_stage = following
    stage.save(update_fields=["next_stage"])
    return competition_start(competition=following)
