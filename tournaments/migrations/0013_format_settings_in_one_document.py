"""Each format's own settings move from a column apiece into one document per competition (``settings``),
read against the format's declared spec (tournaments/formats/); ``kind``, which did nothing and could
contradict ``format``, goes.

The data step names the formats as they were when it was written: a migration describes the data of its day.
"""

from typing import Any

from django.db import migrations, models

#: The settings each format had, as columns, when this migration was written.
_STAGE = ("cut_to", "cut_format", "advance_count", "third_place")
_KNOCKOUT = ("advance_count", "third_place", "seeding", "seeded_from")
SETTINGS_OF = {
    "round_robin": _STAGE,
    "double_round_robin": _STAGE,
    "swiss": ("round_count", "bye_points", *_STAGE),
    "separation": ("sprt_elo0", "sprt_elo1", "sprt_alpha", "sprt_beta", "sprt_max_games"),
    "single_elimination": _KNOCKOUT,
    "double_elimination": _KNOCKOUT,
    "challenge_ladder": ("challenge_reach", "challenge_days"),
    "rating_ladder": ("ladder_rounds",),
}


def _value(competition: Any, name: str) -> Any:
    return competition.seeded_from_id if name == "seeded_from" else getattr(competition, name)


def columns_into_settings(apps: Any, schema_editor: Any) -> None:
    Competition = apps.get_model("tournaments", "Competition")
    for competition in Competition.objects.all().iterator():
        names = SETTINGS_OF.get(competition.format, ())
        competition.settings = {name: _value(competition, name) for name in names}
        competition.save(update_fields=["settings"])


def settings_into_columns(apps: Any, schema_editor: Any) -> None:
    Competition = apps.get_model("tournaments", "Competition")
    for competition in Competition.objects.all().iterator():
        for name, value in (competition.settings or {}).items():
            if value is None and name not in ("round_count", "ladder_rounds", "cut_to", "seeded_from"):
                continue
            setattr(competition, "seeded_from_id" if name == "seeded_from" else name, value)
        competition.save()


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0012_knockouts_and_stages")]

    operations = [
        migrations.AddField(
            model_name="competition", name="settings", field=models.JSONField(blank=True, default=dict)
        ),
        migrations.RunPython(columns_into_settings, settings_into_columns),
        *(
            migrations.RemoveField(model_name="competition", name=name)
            for name in (
                "advance_count",
                "bye_points",
                "challenge_days",
                "challenge_reach",
                "cut_format",
                "cut_to",
                "kind",
                "ladder_rounds",
                "round_count",
                "seeded_from",
                "seeding",
                "sprt_alpha",
                "sprt_beta",
                "sprt_elo0",
                "sprt_elo1",
                "sprt_max_games",
                "third_place",
            )
        ),
        migrations.AlterField(
            model_name="competition", name="format", field=models.CharField(default="round_robin", max_length=24)
        ),
    ]
