"""Adding players to a competition (a member, or a member's ready bot), and the order it starts from.

The forms only offer who could be added; entrant_join decides (a full list, a closed competition, a bot of
another game), as it does for the API.
"""

from __future__ import annotations

from typing import Any

from django import forms

from league.admin.form_helpers import model_choice_field
from league.models import BotVersion, Player
from tournaments.models import Competition, Entrant
from tournaments.web.manage_reads import bot_version_words, bot_versions_to_add, members_to_add


class BotVersionChoice(forms.ModelChoiceField[BotVersion]):
    def label_from_instance(self, obj: BotVersion) -> str:
        return bot_version_words(obj)


class AddMemberForm(forms.Form):
    player: forms.ModelChoiceField[Player] = forms.ModelChoiceField(
        queryset=Player.objects.none(), label="A member", empty_label="Choose a member"
    )

    def __init__(self, *args: Any, competition: Competition, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "player").queryset = members_to_add(competition)


class AddBotForm(forms.Form):
    bot_version = BotVersionChoice(
        queryset=BotVersion.objects.none(), label="A member's bot", empty_label="Choose a bot"
    )

    def __init__(self, *args: Any, competition: Competition, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "bot_version").queryset = bot_versions_to_add(competition)


def start_order(entrants: list[Entrant], asked: str) -> list[Entrant]:
    """The entrants in the order the page's Up and Down buttons set (``asked``: entrant ids, comma-separated),
    those it does not name after them in the order they entered: a stale or garbled order is never refused."""
    by_id = {entrant.pk: entrant for entrant in entrants}
    named: list[Entrant] = []
    for part in asked.split(","):
        entrant = by_id.pop(int(part), None) if part.strip().isdigit() else None
        if entrant is not None:
            named.append(entrant)
    return [*named, *by_id.values()]


def moved(order: list[Entrant], index: int, step: int) -> str:
    """The order with the entrant at ``index`` moved ``step`` places (-1 up, 1 down), as the page sends it."""
    ids = [entrant.pk for entrant in order]
    other = index + step
    if 0 <= other < len(ids):
        ids[index], ids[other] = ids[other], ids[index]
    return ",".join(str(i) for i in ids)


def order_rows(order: list[Entrant]) -> list[tuple[Entrant, str, str]]:
    """Each entrant with the orders its Up and Down buttons send ("" where it cannot move that way)."""
    last = len(order) - 1
    return [
        (entrant, moved(order, i, -1) if i > 0 else "", moved(order, i, 1) if i < last else "")
        for i, entrant in enumerate(order)
    ]
