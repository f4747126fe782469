"""A stage that cuts to a knockout: when a Swiss or round robin with ``cut_to`` finishes, its best
``cut_to`` go on to a knockout of ``cut_format``, seeded by the stage's standings, and it starts.

Called by recording, in the transaction that finishes the stage and under its lock, so the knockout
is made exactly once (``next_stage`` is one to one), with the stage's final standings.
"""

from __future__ import annotations

from engine.rng import derive_seed
from tournaments.models import Competition, Entrant
from tournaments.selectors import competition_standings


def stage_cut(competition_id: int) -> Competition | None:
    """The knockout the finished stage ``competition_id`` cuts to, made and started now; None if it does not cut
    or has already."""
    # Imported here: competitions.py starts matches through the scheduling that recording calls.
    from tournaments.services.competitions import competition_create, competition_start

    stage = Competition.objects.get(pk=competition_id)
    if stage.cut_to is None or stage.next_stage_id is not None:
        return None
    knockout = competition_create(
        club=stage.club,
        created_by=stage.created_by,
        name=f"{stage.name}: {Competition.Format(stage.cut_format).label.lower()}"[:120],
        game=stage.game,
        options=stage.options,
        # From the stage's seed, so a stage of bots replays with its knockout.
        seed=derive_seed(stage.seed, "next stage"),
        kind=stage.kind,
        format=stage.cut_format,
        players_per_match=stage.players_per_match,
        games_per_match=stage.games_per_match,
        people_play=stage.people_play,
        move_seconds=stage.move_seconds,
        game_seconds=stage.game_seconds,
        live_tables_public=stage.live_tables_public,
        duplicate_deals=stage.duplicate_deals,
        advance_count=stage.advance_count,
        third_place=stage.third_place,
        seeding=Competition.Seeding.STANDINGS,
        seeded_from=stage,
    )
    knockout.organisers.set(stage.organisers.all())
    knockout.referees.set(stage.referees.all())
    # The table's order, ties left as it shows them: entrants level on every tiebreak keep the game's order.
    best = [row.standing.entrant for row in competition_standings(stage)[: stage.cut_to]]
    Entrant.objects.bulk_create(
        Entrant(competition=knockout, bot_version_id=e.bot_version_id, player_id=e.player_id, name=e.name) for e in best
    )
    stage.next_stage = knockout
    stage.save(update_fields=["next_stage"])
    return competition_start(competition=knockout)
