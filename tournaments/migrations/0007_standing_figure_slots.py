"""A standings row keeps a game's own figures in numbered slots instead of a column per game's figure;
a competition's game choices come from the engine's registry.

Each game's league profile (engine/games/profile.py) lists its own figures in order, and
slot n holds the n-th. The mapping below is the profiles' as they were when this ran,
written out because the engine's may change later. Games that have no own figure in a
slot keep 0 there, as the old columns did.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models
from django.db.models import F

import league.models

#: game: the old columns, in the order of the new slots.
SLOTS = {
    "1923": ("set_points", "cards_won"),
    "banter": ("trick_points",),
    "war": ("rounds_needed",),
    "punk": ("total_score",),
}
OLD_COLUMNS = ("set_points", "cards_won", "trick_points", "rounds_needed", "total_score")


def to_slots(apps: Any, schema_editor: Any) -> None:
    standing = apps.get_model("tournaments", "Standing")
    for game, columns in SLOTS.items():
        moves = {f"figure_{slot}": F(column) for slot, column in enumerate(columns, start=1)}
        standing.objects.filter(competition__game=game).update(**moves)


def to_columns(apps: Any, schema_editor: Any) -> None:
    standing = apps.get_model("tournaments", "Standing")
    for game, columns in SLOTS.items():
        moves = {column: F(f"figure_{slot}") for slot, column in enumerate(columns, start=1)}
        standing.objects.filter(competition__game=game).update(**moves)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0006_options_within_size_bounds")]

    operations = [
        *(
            migrations.AddField(model_name="standing", name=f"figure_{slot}", field=models.IntegerField(default=0))
            for slot in range(1, 5)
        ),
        migrations.RunPython(to_slots, to_columns, elidable=False),
        *(migrations.RemoveField(model_name="standing", name=column) for column in OLD_COLUMNS),
        migrations.AlterField(
            model_name="competition",
            name="game",
            field=models.CharField(choices=league.models.game_choices, max_length=10),
        ),
    ]
