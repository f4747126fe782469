"""The forms of the transcripts page: a record file, and the step-by-step builder's deal, deck and step.

They check only the shape of what is typed (a card is a card, a file is JSON); whether the deal and the
moves fit the game is the engine's to say (tournaments/web/transcript_builder.py replays the draft), and
whether the match takes the transcript is the service's (tournaments/services/transcripts.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django import forms

from engine.cards import RANKS, card_words, parse_card
from engine.errors import CardError
from engine.games.profile import DealPart
from tournaments.api.transcripts import MAX_UPLOAD_BYTES
from tournaments.web.transcript_builder import Table, move_words

CARD_NOTATION = (
    "Write each card as its rank then its suit, separated by spaces or commas: "
    "ranks {ranks}; suits {suits}. For example: {example}."
)


def game_choices(games: int) -> list[tuple[int, str]]:
    """The match's games as people count them, from 1 (the service counts from 0)."""
    return [(number, f"Game {number + 1}") for number in range(games)]


class GameField(forms.TypedChoiceField):
    def __init__(self, games: int, **kwargs: Any) -> None:
        # A match of one game has nothing to choose: the field rides along hidden.
        widget = forms.HiddenInput if games == 1 else forms.Select
        super().__init__(
            choices=game_choices(games), coerce=int, label="Which game of the match", widget=widget, initial=0, **kwargs
        )


class UploadForm(forms.Form):
    """A record file, as `python -m engine play --out` writes it and the API takes it."""

    record = forms.FileField(
        label="Record file",
        help_text="A file of the game, if you have one: a .json record made with the club's game program. "
        "No file? Enter the game step by step above instead.",
    )

    def __init__(self, *args: Any, games: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields = {"game_number": GameField(games), **self.fields}

    def clean_record(self) -> object:
        upload = self.cleaned_data["record"]
        if upload.size is not None and upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(f"This file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
        try:
            return json.loads(upload.read())
        except (ValueError, UnicodeDecodeError) as exc:
            raise forms.ValidationError(f"This file is not a game record: it is not valid JSON ({exc}).") from None
        except RecursionError:
            raise forms.ValidationError("This file is not a game record: it is nested too deeply.") from None


class StartForm(forms.Form):
    """Which game the person is about to write down (seats rotate, so it decides who sits where)."""

    def __init__(self, *args: Any, games: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game_number"] = GameField(games)


def _cards_field(part: DealPart, label: str, initial: Sequence[str] = ()) -> forms.CharField:
    must_hold = f" They are: {' '.join(part.cards)}." if part.cards else ""
    return forms.CharField(
        label=f"{label[:1].upper()}{label[1:]}",
        help_text=f"{part.count} cards.{must_hold}",
        widget=forms.Textarea(attrs={"rows": 3, "autocapitalize": "characters", "spellcheck": "false"}),
        initial=" ".join(initial),
    )


def _parsed_cards(text: str, part: DealPart, table: Table) -> list[str]:
    """The cards typed, each one of this game's: a malformed card or one of another deck is named here, by its
    place in the list (the message sits under the list's own label)."""
    cards: list[str] = []
    for position, word in enumerate(card_words(text), start=1):
        try:
            cards.append(parse_card(word))
        except CardError:
            raise forms.ValidationError(
                f"Card {position}, “{word}”, is not written as a card: its rank, then its suit (QH, 10S, 7C)."
            ) from None
    if len(cards) != part.count:
        raise forms.ValidationError(f"This list needs {part.count} cards; it has {len(cards)}.")
    deck = set(table.game.full_deck(table.options, table.players))
    strangers = [(position, card) for position, card in enumerate(cards, start=1) if card not in deck]
    if strangers:
        position, card = strangers[0]
        raise forms.ValidationError(f"Card {position}, {card}, is not a card of this game's deck.")
    return cards


def notation_for(table: Table) -> str:
    """How to write this game's cards, with its own ranks and suits and an example drawn from its deck."""
    deck = table.game.full_deck(table.options, table.players)
    ranks = [rank for rank in RANKS if any(card[0] == rank for card in deck)]
    shown_ranks = " ".join("T (or 10)" if rank == "T" else rank for rank in ranks)
    suits = " ".join(dict.fromkeys(card[1] for card in deck))
    example = " ".join(dict.fromkeys([deck[0], deck[len(deck) // 2], deck[-1]]))
    return CARD_NOTATION.format(ranks=shown_ranks, suits=suits, example=example)


class DealForm(forms.Form):
    """The deal dealt before play: one list of cards per part the game's profile names."""

    def __init__(self, *args: Any, table: Table, initial_cards: Sequence[Sequence[str]] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table
        self.parts = table.start_parts()
        self.notation = notation_for(table)
        for index, part in enumerate(self.parts):
            cards = initial_cards[index] if index < len(initial_cards) else ()
            self.fields[f"part_{index}"] = _cards_field(part, table.part_label(part), cards)
        if table.takes_a_seed():
            self.fields["seed"] = forms.IntegerField(
                label="Draw number",
                min_value=0,
                initial=0,
                required=False,
                help_text="The engine plays for this table (a seat nobody sits in, or who leads first), "
                "drawing from a number: give the number you played with, or leave 0.",
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for index, part in enumerate(self.parts):
            name = f"part_{index}"
            if name in cleaned:
                try:
                    cleaned[name] = _parsed_cards(cleaned[name], part, self.table)
                except forms.ValidationError as error:
                    self.add_error(name, error)
        return cleaned

    def card_lists(self) -> list[list[str]]:
        return [self.cleaned_data[f"part_{index}"] for index in range(len(self.parts))]

    def seed(self) -> int:
        return int(self.cleaned_data.get("seed") or 0)


class DeckForm(forms.Form):
    """A deck the game shuffled during play (a new set, a discard pile shuffled again)."""

    def __init__(self, *args: Any, table: Table, part: DealPart, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.part, self.table = part, table
        self.label = table.part_label(part)
        self.notation = notation_for(table)
        self.fields["cards"] = _cards_field(part, self.label)

    def clean_cards(self) -> list[str]:
        return _parsed_cards(self.cleaned_data["cards"], self.part, self.table)


class StepForm(forms.Form):
    """One step: a move for each seat that decides now. Any text is taken: the engine judges the move,
    so a move that is not legal is named in the engine's words, never a bare "not a valid choice"."""

    def __init__(self, *args: Any, table: Table, choices: dict[int, list[str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seats = sorted(choices)
        for seat in self.seats:
            self.fields[f"seat_{seat}"] = forms.CharField(
                label=f"{table.seat_name(seat)}'s move",
                max_length=100,
                widget=forms.RadioSelect(choices=[(action, move_words(action)) for action in choices[seat]]),
                error_messages={"required": f"Choose {table.seat_name(seat)}'s move."},
            )

    def chosen(self) -> dict[int, str]:
        return {seat: self.cleaned_data[f"seat_{seat}"] for seat in self.seats}


class DisputeForm(forms.Form):
    note = forms.CharField(
        label="What is wrong with it",
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="The competition's organisers read this and decide which version stands.",
    )
