"""Running competitions and matches through the services, from a competition's buttons or a changelist.

Each competition or match is done on its own: a service's refusal becomes an error message for that
one, and the others still run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from league.admin.service_errors import service_error_text
from tournaments.models import Competition, Match
from tournaments.services.competitions import competition_cancel, competition_start
from tournaments.services.play import competition_play_now, match_retry

CompetitionAction = Callable[[admin.ModelAdmin[Competition], HttpRequest, QuerySet[Competition]], None]


def matches_text(count: int) -> str:
    return f"{count} match" if count == 1 else f"{count} matches"


def run_step(step: str, competition: Competition) -> tuple[int, str]:
    """Do one step through its service; (message level, message). A refusal raises ValidationError."""
    if step == "start":
        started = competition_start(competition=competition)
        return messages.SUCCESS, f"Started {started.name}: {matches_text(started.matches.count())} scheduled."
    if step == "play":
        # Matches are played on workers, never in the admin's request (a sandboxed bot may take minutes).
        queued = competition_play_now(competition=competition)
        failed = list(competition.matches.filter(status=Match.Status.ERROR).values_list("error", flat=True)[:1])
        if failed:
            return (
                messages.WARNING,
                f"Sent {matches_text(queued)} of {competition.name} to the workers; some are in error: {failed[0]}",
            )
        if queued == 0:
            return messages.WARNING, f"{competition.name} has no pending matches to play."
        return messages.SUCCESS, f"Sent {matches_text(queued)} of {competition.name} to the workers."
    if step == "retry":
        errored = list(competition.matches.filter(status=Match.Status.ERROR))
        if not errored:
            raise ValidationError({"matches": f"no match of {competition.name} is in error"})
        for match in errored:
            match_retry(match=match)
        return messages.SUCCESS, f"{matches_text(len(errored))} of {competition.name} pending again: play them now."
    if step == "cancel":
        competition_cancel(competition=competition)
        return messages.SUCCESS, f"Cancelled {competition.name}; recorded results stay."
    raise ValidationError({"step": f"unknown step {step!r}"})


def run_steps(
    model_admin: admin.ModelAdmin[Competition], request: HttpRequest, step: str, competitions: Sequence[Competition]
) -> None:
    """Do one step for each competition, and tell the organiser how each went."""
    for competition in competitions:
        try:
            level, text = run_step(step, competition)
        except ValidationError as error:
            model_admin.message_user(request, f"{competition.name}: {service_error_text(error)}", messages.ERROR)
        else:
            model_admin.message_user(request, text, level)


def step_action(step: str, *, name: str, description: str) -> CompetitionAction:
    """A changelist action that does one step for each selected competition, in the order they were made."""

    def action(
        model_admin: admin.ModelAdmin[Competition], request: HttpRequest, queryset: QuerySet[Competition]
    ) -> None:
        run_steps(model_admin, request, step, list(queryset.order_by("id")))

    # Django knows an action by its function's name: the changelist posts it back as ``action``.
    action.__name__ = name
    return admin.action(description=description, permissions=["run"])(action)


start_competitions = step_action("start", name="start_competitions", description="Start the selected competitions")
play_pending_matches = step_action(
    "play",
    name="play_pending_matches",
    description="Send the pending matches of the selected competitions to the workers",
)
retry_errored_matches = step_action(
    "retry", name="retry_errored_matches", description="Retry the matches in error of the selected competitions"
)
cancel_competitions = step_action("cancel", name="cancel_competitions", description="Cancel the selected competitions")


@admin.action(description="Retry the selected matches in error (back to pending)", permissions=["run"])
def retry_matches(model_admin: admin.ModelAdmin[Match], request: HttpRequest, queryset: QuerySet[Match]) -> None:
    retried = 0
    for match in queryset.order_by("id"):
        try:
            match_retry(match=match)
        except ValidationError as error:
            model_admin.message_user(request, f"{match}: {service_error_text(error)}", messages.ERROR)
        else:
            retried += 1
    if retried:
        model_admin.message_user(
            request,
            f"{matches_text(retried)} pending again: play them from their competition's page.",
            messages.SUCCESS,
        )
