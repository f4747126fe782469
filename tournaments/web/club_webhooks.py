"""An organiser's page of the club's chat and webhooks: point the club's events at its Discord or Slack (or a
program of its own), remove an address, and read what was sent and how it went.

The form calls the same service as the API (league/webhooks/services.py), which checks the address; its
refusal lands on the form in its own words. Only the club's organisers open these pages.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path
from django.views.decorators.http import require_POST

from league.models import Club
from league.notifications.kinds import Kind
from league.webhooks.models import ClubWebhook, WebhookDelivery
from league.webhooks.selectors import club_webhooks, delivery_log
from league.webhooks.services import (
    CLUB_EVENTS,
    MAX_SECRET_CHARS,
    MIN_SECRET_CHARS,
    webhook_create,
    webhook_remove,
)
from tournaments.web.club_organising import organised_club, page_of
from tournaments.web.clubs import me
from tournaments.web.refusals import call_for_form, call_for_message

#: What each of a club's events (CLUB_EVENTS) is called on this page: the club's side of it, not a person's.
EVENT_WORDS: dict[str, str] = {
    Kind.CHALLENGED: "A challenge on a ladder",
    Kind.CHALLENGE_ANSWERED: "A challenge accepted, declined or withdrawn",
    Kind.ROUND_PAIRED: "A round is paired",
    Kind.MATCH_RECORDED: "A match's result",
    Kind.COMPETITION_STARTED: "A competition starts",
    Kind.COMPETITION_FINISHED: "A competition is finished",
    Kind.JOIN_REQUEST: "Someone asks to join the club",
    Kind.DISPUTE: "A written-down game is disputed",
}


def event_words(kind: str) -> str:
    return EVENT_WORDS.get(kind, kind)


class WebhookForm(forms.Form):
    url = forms.CharField(
        label="Webhook address",
        max_length=2000,
        help_text="Paste your Discord or Slack webhook address here. In Discord: Server settings → Integrations → "
        "Webhooks → New webhook → Copy webhook URL. In Slack: add the “Incoming WebHooks” app to a channel.",
        widget=forms.URLInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    events = forms.MultipleChoiceField(
        label="What to post",
        choices=[(kind.value, event_words(kind)) for kind in CLUB_EVENTS],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="Leave them all ticked (or none) to post everything, including kinds of news added later.",
    )
    secret = forms.CharField(
        label="Secret (only for a program of your own)",
        required=False,
        min_length=MIN_SECRET_CHARS,
        max_length=MAX_SECRET_CHARS,
        strip=False,
        help_text="Discord and Slack do not need it: leave it empty and one is made for you. A program of your own "
        f"can check each message's signature with it ({MIN_SECRET_CHARS} characters or more).",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


def where_it_posts(webhook: ClubWebhook) -> str:
    """The address's host only: the rest of a chat's webhook address is a key that lets anyone post there."""
    return urlsplit(webhook.url).hostname or webhook.url


def state_words(delivery: WebhookDelivery) -> tuple[str, str]:
    """(words, pill colour) for a delivery's state."""
    if delivery.delivered_at is not None:
        return "Delivered", "good"
    if delivery.gave_up_at is not None:
        return "Given up", "bad"
    return "Waiting to be tried again" if delivery.attempts else "Waiting", ""


def retry_words() -> str:
    """How a message that failed is tried again, from the settings, for the log's page."""
    base = settings.WEBHOOK_RETRY_BASE_SECONDS
    first = f"{base} seconds" if base < 120 else f"{base // 60} minutes"
    return (
        f"A message that was not answered with “OK” is tried again after {first}, then after twice as long each "
        f"time, {settings.WEBHOOK_MAX_ATTEMPTS} tries in all, before it is given up."
    )


def webhooks_page(request: HttpRequest, club: Club, form: WebhookForm | None = None) -> HttpResponse:
    hooks = [
        (
            webhook,
            where_it_posts(webhook),
            [event_words(kind) for kind in webhook.events] or ["Everything"],
        )
        for webhook in club_webhooks(club=club).select_related("created_by")
    ]
    context = {
        "club": club,
        "hooks": hooks,
        "form": form or WebhookForm(initial={"events": [kind.value for kind in CLUB_EVENTS]}),
    }
    return render(request, "site/clubs/webhooks.html", context, status=400 if form else 200)


@login_required
def club_webhooks_page(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    if request.method != "POST":
        return webhooks_page(request, club)
    form = WebhookForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        # Every event ticked means every event, also those added later.
        events = [] if set(data["events"]) >= set(CLUB_EVENTS) else data["events"]
        secret = data["secret"] or secrets.token_urlsafe(24)
        made = call_for_form(
            form,
            lambda: webhook_create(club=club, by=me(request), url=data["url"], secret=secret, events=events),
        )
        if made is not None:
            messages.success(request, f"From now on {club.name}'s news is posted to {where_it_posts(made)}.")
            return redirect("site:club-webhooks", club.slug)
    return webhooks_page(request, club, form)


def club_webhook(club: Club, webhook_id: int) -> ClubWebhook:
    return get_object_or_404(ClubWebhook.objects.select_related("club"), pk=webhook_id, club=club)


@login_required
@require_POST
def webhook_remove_view(request: HttpRequest, slug: str, webhook_id: int) -> HttpResponse:
    club = organised_club(request, slug)
    webhook = club_webhook(club, webhook_id)
    call_for_message(
        request,
        lambda: webhook_remove(webhook=webhook, by=me(request)),
        done=f"Nothing more is posted to {where_it_posts(webhook)}.",
    )
    return redirect("site:club-webhooks", club.slug)


@login_required
def webhook_log(request: HttpRequest, slug: str, webhook_id: int) -> HttpResponse:
    club = organised_club(request, slug)
    webhook = club_webhook(club, webhook_id)
    page = page_of(request, delivery_log(webhook=webhook))
    rows = [(delivery, event_words(delivery.kind), *state_words(delivery)) for delivery in page]
    context = {
        "club": club,
        "webhook": webhook,
        "where": where_it_posts(webhook),
        "rows": rows,
        "page": page,
        "retry_words": retry_words(),
    }
    return render(request, "site/clubs/webhook_log.html", context)


urlpatterns: list[URLPattern] = [
    path("clubs/<slug:slug>/webhooks/", club_webhooks_page, name="club-webhooks"),
    path("clubs/<slug:slug>/webhooks/<int:webhook_id>/", webhook_log, name="club-webhook-log"),
    path("clubs/<slug:slug>/webhooks/<int:webhook_id>/remove/", webhook_remove_view, name="club-webhook-remove"),
]
