"""Each participant keeps the entrant's rating once its match was rated: the rating history.

Matches rated before this migration get theirs by replaying the ratings, which are a pure
function of the results in (round, match id) order (DESIGN.md, "Ratings"): the replay ends
on exactly the ratings the standings hold, and a test holds it to that.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

from league.ratings import Skill, rate


def replay_history(apps: Any, schema_editor: Any) -> None:
    participant = apps.get_model("tournaments", "MatchParticipant")
    match = apps.get_model("tournaments", "Match")
    competitions = match.objects.filter(rated=True).values_list("competition_id", flat=True).distinct()
    for competition_id in competitions:
        skills: dict[int, Skill] = {}
        rated = match.objects.filter(competition_id=competition_id, rated=True).order_by("round__number", "id")
        for match_id in rated.values_list("id", flat=True):
            seats = list(participant.objects.filter(match_id=match_id).order_by("seat"))
            after = rate([skills.get(p.entrant_id, Skill()) for p in seats], [p.rank or 0 for p in seats])
            for seat, skill in zip(seats, after, strict=True):
                skills[seat.entrant_id] = skill
                seat.mu_after, seat.sigma_after = skill.mu, skill.sigma
            participant.objects.bulk_update(seats, ["mu_after", "sigma_after"])


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0007_standing_figure_slots")]

    operations = [
        migrations.AddField(
            model_name="matchparticipant", name="mu_after", field=models.FloatField(blank=True, null=True)
        ),
        migrations.AddField(
            model_name="matchparticipant", name="sigma_after", field=models.FloatField(blank=True, null=True)
        ),
        migrations.RunPython(replay_history, migrations.RunPython.noop, elidable=True),
    ]
