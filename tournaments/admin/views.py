"""The competition's own admin pages beyond Django's: run/ (its buttons' target) and entrants/add/."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from league.admin.permissions import ClubScopedAdmin, can_organise
from league.admin.service_errors import add_service_errors
from tournaments.admin.actions import run_steps
from tournaments.admin.forms import AddEntrantsForm
from tournaments.models import Competition
from tournaments.selectors import competition_progress
from tournaments.services.competitions import entrant_join


def change_url(object_id: object) -> str:
    """The competition's own page, where every one of its views returns."""
    return reverse("admin:tournaments_competition_change", args=[object_id])


class CompetitionRunViews(ClubScopedAdmin[Competition]):
    """The views an organiser runs a competition with, for CompetitionAdmin to serve beside Django's own."""

    def has_run_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:object_id>/run/",
                self.admin_site.admin_view(self.run_view),
                name="tournaments_competition_run",
            ),
            path(
                "<path:object_id>/entrants/add/",
                self.admin_site.admin_view(self.add_entrants_view),
                name="tournaments_competition_add_entrants",
            ),
        ]
        return own + super().get_urls()

    def runnable_competition(self, request: HttpRequest, object_id: str) -> Competition:
        if not self.has_run_permission(request):
            raise PermissionDenied
        competition: Competition | None = self.get_object(request, object_id)
        if competition is None:
            # Outside the organiser's clubs, or no such competition: the same answer for both.
            raise Http404("no such competition")
        return competition

    def competition_response(
        self, request: HttpRequest, competition: Competition, template: str, *, title: str, extra: dict[str, Any]
    ) -> TemplateResponse:
        """One of these views' own pages, inside the admin's frame and headed by the competition."""
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.opts,
            "original": competition,
            **extra,
        }
        return TemplateResponse(request, template, context)

    def run_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseRedirect(change_url(object_id))
        competition = self.runnable_competition(request, object_id)
        step = request.POST.get("step", "")
        if step == "cancel" and request.POST.get("confirmed") != "yes":
            # Cancelling cannot be undone: the button asks once more, as Django's delete does.
            return self.competition_response(
                request,
                competition,
                "admin/tournaments/competition/confirm_cancel.html",
                title=f"Cancel {competition.name}?",
                extra={"progress": competition_progress(competition)},
            )
        run_steps(self, request, step, [competition])
        return HttpResponseRedirect(change_url(competition.pk))

    def add_entrants_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        competition = self.runnable_competition(request, object_id)
        if competition.status != Competition.Status.OPEN:
            self.message_user(
                request, f"Entries are closed: {competition.name} is {competition.status}.", messages.ERROR
            )
            return HttpResponseRedirect(change_url(competition.pk))
        form = AddEntrantsForm(
            request.POST if request.method == "POST" else None, competition=competition, request=request
        )
        if request.method == "POST" and form.is_valid():
            try:
                # All or nothing: a refusal part-way (a full list, say) leaves the list as it was.
                with transaction.atomic():
                    joined = [
                        entrant_join(competition=competition, bot_version=v) for v in form.cleaned_data["bot_versions"]
                    ]
                    joined += [entrant_join(competition=competition, player=p) for p in form.cleaned_data["players"]]
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                names = ", ".join(e.name for e in joined)
                self.message_user(request, f"Entered in {competition.name}: {names}.", messages.SUCCESS)
                return HttpResponseRedirect(change_url(competition.pk))
        return self.competition_response(
            request,
            competition,
            "admin/tournaments/competition/add_entrants.html",
            title=f"Add entrants to {competition.name}",
            extra={"competition": competition, "form": form, "media": self.media + form.media},
        )
