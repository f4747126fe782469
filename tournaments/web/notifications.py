"""A person's notifications on the site: the inbox, opening one (which marks it read), their channels for each
kind, and the mail's one-click unsubscribe (league/notifications/)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from league.models import Player
from league.notifications.kinds import Kind
from league.notifications.mail import EVERY_KIND, unsubscribe_of
from league.notifications.models import Notification
from league.notifications.selectors import inbox, settings_of
from league.notifications.services import (
    notification_read,
    notification_settings_set,
    notifications_read_all,
)
from league.selectors import player_of_user

#: Notifications a page of the inbox lists.
PAGE_SIZE = 50


def _player(request: HttpRequest) -> Player | None:
    return player_of_user(request.user)


@login_required
def inbox_page(request: HttpRequest) -> HttpResponse:
    player = _player(request)
    listed = inbox(player) if player else Notification.objects.none()
    page = Paginator(listed, PAGE_SIZE).get_page(request.GET.get("page"))
    unread = any(n.read_at is None for n in page) if player else False
    return render(request, "site/notifications/inbox.html", {"page": page, "unread_here": unread})


@login_required
def open_notification(request: HttpRequest, notification_id: int) -> HttpResponse:
    """Mark it read and go where it points (the inbox if nowhere): a link in the inbox is the way to act on it."""
    player = _player(request)
    notification = notification_read(player=player, notification_id=notification_id) if player else None
    if notification is None:
        raise Http404("no such notification of yours")
    return redirect(notification.link or reverse("site:notifications"))


@login_required
@require_POST
def read_all(request: HttpRequest) -> HttpResponse:
    player = _player(request)
    read = notifications_read_all(player=player) if player else 0
    messages.success(request, f"Marked {read} as read." if read else "Nothing was unread.")
    return redirect("site:notifications")


class SettingsForm(forms.Form):
    """A pair of boxes for each kind: on the site, by mail."""

    def __init__(self, *args: object, player: Player, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.rows = settings_of(player)
        for row in self.rows:
            self.fields[f"{row.kind}-site"] = forms.BooleanField(required=False, initial=row.site, label="On the site")
            self.fields[f"{row.kind}-mail"] = forms.BooleanField(required=False, initial=row.mail, label="By e-mail")

    def lines(self) -> list[tuple[str, forms.BoundField, forms.BoundField]]:
        return [(row.label, self[f"{row.kind}-site"], self[f"{row.kind}-mail"]) for row in self.rows]

    def chosen(self) -> dict[str, tuple[bool, bool]]:
        data = self.cleaned_data
        return {row.kind: (bool(data[f"{row.kind}-site"]), bool(data[f"{row.kind}-mail"])) for row in self.rows}


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    player = _player(request)
    if player is None:
        raise Http404("join a club first: there is nothing to tell you yet")
    form = SettingsForm(request.POST if request.method == "POST" else None, player=player)
    if request.method == "POST" and form.is_valid():
        notification_settings_set(player=player, chosen=form.chosen())
        messages.success(request, "Saved. What happens from now on reaches you this way.")
        return redirect("site:notifications-settings")
    context = {"form": form, "email": request.user.email}  # type: ignore[union-attr]
    return render(request, "site/notifications/settings.html", context)


@csrf_exempt  # the token is the right to do it: a mail program posts here with no page and no cookie (RFC 8058)
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """A link in every mail: one button stops that kind of mail (or all mail) for its person, signed in or not."""
    stop = unsubscribe_of(token)
    if stop is None:
        raise Http404("this link is not one of ours, or it was cut short")
    player = Player.objects.filter(pk=stop.player_id).first()
    if player is None:
        raise Http404("no such player any more")
    kinds = list(Kind) if stop.kind == EVERY_KIND else [Kind(stop.kind)]
    what = "any notification" if stop.kind == EVERY_KIND else f"“{kinds[0].label.lower()}”"
    done = False
    if request.method == "POST":
        current = {row.kind: row for row in settings_of(player)}
        notification_settings_set(
            player=player, chosen={kind.value: (current[kind.value].site, False) for kind in kinds}
        )
        done = True
    return render(request, "site/notifications/unsubscribe.html", {"what": what, "done": done})


urlpatterns: list[URLPattern] = [
    path("notifications/", inbox_page, name="notifications"),
    path("notifications/<int:notification_id>/", open_notification, name="notification-open"),
    path("notifications/read/", read_all, name="notifications-read-all"),
    path("notifications/settings/", settings_page, name="notifications-settings"),
    path("notifications/unsubscribe/<str:token>/", unsubscribe, name="notifications-unsubscribe"),
]
