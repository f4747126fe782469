"""The forms of a bot author's pages. They check only the shape of what was typed; every rule (a name the owner
already uses, a retired bot, what an upload must hold, which addresses a bot may have) is the service's, which
the pages call with these forms' data (tournaments/web/bots.py, tournaments/web/refusals.py)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.utils.datastructures import MultiValueDict

from engine.bots import bot_summaries
from engine.sandbox.code import MAX_UPLOAD_BYTES
from league.models import BotVersion, game_choices

#: The largest upload in words, for hints and refusals.
UPLOAD_LIMIT_WORDS = f"{MAX_UPLOAD_BYTES // 1024} KiB"


class BotDetailsForm(forms.Form):
    """A bot's name and description: what renaming or re-describing it changes."""

    name = forms.CharField(
        max_length=80, label="Name", help_text="Others see this name in standings and at tables where it plays."
    )
    description = forms.CharField(
        required=False,
        label="Description",
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Optional: how it plays, in a sentence or two.",
    )


class NewBotForm(BotDetailsForm):
    game = forms.ChoiceField(
        choices=game_choices, label="Game", help_text="A bot plays one game; it cannot change later."
    )

    field_order = ["name", "game", "description"]


class UploadVersionForm(forms.Form):
    """A version from a file: one .py file, or a .zip and the file in it to run."""

    kind = BotVersion.Kind.UPLOAD
    source = forms.FileField(
        label="Your bot's file",
        widget=forms.FileInput(attrs={"accept": ".py,.zip"}),
        help_text=f"A .py file, or a .zip holding several files; at most {UPLOAD_LIMIT_WORDS}.",
    )
    entry = forms.CharField(
        required=False,
        max_length=200,
        label="File to run, for a zip",
        help_text="main.py at the top of the zip, unless you name another here (like bot/play.py).",
    )

    @classmethod
    def too_large(cls, *, prefix: str) -> UploadVersionForm:
        """The form for a request too large to read (its file is not looked at): the refusal on the file's field."""
        form = cls(data={}, files=MultiValueDict(), prefix=prefix)
        form.full_clean()
        form.errors["source"] = form.error_class(
            [f"That file is too large: a bot's file may be at most {UPLOAD_LIMIT_WORDS}."]
        )
        return form

    def clean_source(self) -> UploadedFile[Any]:
        source: UploadedFile[Any] = self.cleaned_data["source"]
        # Refused before the file is read: the limit is the point (the service checks the bytes again).
        if source.size is not None and source.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                f"{source.name} is {source.size:,} bytes; a bot's file may be at most {UPLOAD_LIMIT_WORDS}."
            )
        return source


class HttpVersionForm(forms.Form):
    """A version that is a web address answering each decision (docs/bot-protocol.md, "HTTP bots")."""

    kind = BotVersion.Kind.HTTP
    url = forms.CharField(
        max_length=2000,
        label="Your bot's address",
        widget=forms.URLInput(attrs={"placeholder": "https://bots.example.org/mine"}),
        help_text="An http:// or https:// address on the public internet. The club sends it each decision "
        "and waits half a second for the answer.",
    )


class BuiltinVersionForm(forms.Form):
    """A version that plays one of the engine's own strategies for the bot's game."""

    kind = BotVersion.Kind.BUILTIN
    strategy = forms.ChoiceField(
        label="Strategy",
        widget=forms.RadioSelect,
        help_text="It is ready at once: a built-in strategy needs no test game.",
    )

    def __init__(self, *args: Any, game: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The engine's strategies for this game, read now: a game registered since start-up is offered too.
        strategy = cast(forms.ChoiceField, self.fields["strategy"])
        summaries = bot_summaries(game)
        # One is chosen already, so the form is never refused for want of a choice.
        self.fields["strategy"].initial = next(iter(summaries), None)
        strategy.choices = [(name, f"{name}: {summary}" if summary else name) for name, summary in summaries.items()]


VersionForm = UploadVersionForm | HttpVersionForm | BuiltinVersionForm
