"""Rulesets fitted into the ranges that bound a record's size (docs/records.md, "Size bounds").

The ranges tightened: 1923's ``max_sets`` to at most 300 decks a match (``decks * max_sets``;
its old default was 1000 sets), Banter's ``max_rounds`` to 1,000, War's to 1,000,000 and Punk's
``target`` to 1,000. A stored ruleset outside them no longer parses, so:

- each competition's options are fitted (a lower cap only ends a match that no real match reaches),
  so its next matches play;
- each game whose record still replays the same under the fitted cap (it stopped before the new cap)
  has the cap fitted in its options and its record, so its public view can still be built. A game
  that went past the new cap, or a Punk game (its result names its target), keeps its record.

The numbers are written out here, as they were when this ran: the engine's may change later.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

MATCH_DECKS_1923 = 300
#: game: (option, the most it may be, the result's figure that must stay below it for a replay to hold).
CAPS = {"banter": ("max_rounds", 1000, "rounds"), "war": ("max_rounds", 1_000_000, "rounds")}


def fitted(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """The ruleset with its caps brought into range (others, and anything unexpected, left as they are)."""
    new = dict(options)
    if game == "1923":
        decks, max_sets = options.get("decks"), options.get("max_sets")
        if isinstance(decks, int) and isinstance(max_sets, int) and decks >= 1 and decks * max_sets > MATCH_DECKS_1923:
            new["max_sets"] = max(1, MATCH_DECKS_1923 // decks)
    elif game in CAPS:
        name, most, _ = CAPS[game]
        if isinstance(options.get(name), int) and options[name] > most:
            new[name] = most
    elif game == "punk" and isinstance(options.get("target"), int) and options["target"] > 1000:
        new["target"] = 1000
    return new


def replays_the_same(game: str, options: dict[str, Any], result: Any) -> bool:
    """Whether the game stopped before the fitted cap, so the cap never came into play."""
    if not isinstance(result, dict):
        return False
    if game == "1923":
        cap, played = options["max_sets"], result.get("sets")
        # A match that reached its target in the capping set finished normally (RULES.md, "Match").
        return isinstance(played, int) and (played < cap or (played == cap and result.get("capped") is False))
    if game in CAPS:
        name, _, figure = CAPS[game]
        played = result.get(figure)
        return isinstance(played, int) and played < options[name]
    return False


def fit_rulesets(apps: Any, schema_editor: Any) -> None:
    Competition = apps.get_model("tournaments", "Competition")
    Game = apps.get_model("tournaments", "Game")
    for competition in Competition.objects.filter(game__in=["1923", "banter", "war", "punk"]).only("game", "options"):
        options = competition.options if isinstance(competition.options, dict) else {}
        new = fitted(competition.game, options)
        if new != options:
            competition.options = new
            competition.save(update_fields=["options"])
    for game_name in ("1923", "banter", "war"):
        games = Game.objects.filter(match__competition__game=game_name).only("options", "record", "result")
        for game in games.iterator(chunk_size=500):
            record: object = game.record
            ruleset: object = record.get("options") if isinstance(record, dict) else None
            if not isinstance(record, dict) or not isinstance(ruleset, dict):
                continue
            new = fitted(game_name, ruleset)
            if new == ruleset or not replays_the_same(game_name, new, game.result):
                continue
            game.options = new
            game.record = {**record, "options": new}
            game.save(update_fields=["options", "record"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_refereed_play"),
    ]

    operations = [
        migrations.RunPython(fit_rulesets, migrations.RunPython.noop),
    ]
