"""Notifications (issue 24): one service that writes in the event's transaction, by the channels each person
chose for the kind; the inbox on the site and over the API; settings; and mail gathered into one per quiet while,
with a one-click way to stop each kind."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from league.models import Player
from league.notifications.kinds import Kind
from league.notifications.mail import (
    EVERY_KIND,
    mail_player,
    send_due_mail,
    unsubscribe_of,
    unsubscribe_token,
)
from league.notifications.models import Notification, NotificationSetting
from league.notifications.services import notification_settings_set, notify
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def person(username: str, email: str = "") -> Player:
    return PlayerFactory(user=UserFactory(username=username, email=email), display_name=username.capitalize())


def signed_in(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def tell(players: list[Player], kind: Kind = Kind.CHALLENGED, title: str = "Otto challenged you") -> None:
    notify(players=players, kind=kind, title=title, body="Answer by Friday.", link="/competitions/1/")


# --- the service ----------------------------------------------------------------------------------------------


def test_each_person_is_told_once_by_the_channels_of_their_choice() -> None:
    ann, ben, cat, dan = (
        person("ann", "ann@example.org"),
        person("ben"),
        person("cat", "cat@example.org"),
        person("dan"),
    )
    notification_settings_set(player=cat, chosen={Kind.CHALLENGED: (False, True)})  # mail only
    notification_settings_set(player=dan, chosen={Kind.CHALLENGED: (False, False)})  # nothing
    notify(players=[ann, ben, ben.pk, cat, dan], kind=Kind.CHALLENGED, title="Otto challenged you")
    rows = {n.player_id: n for n in Notification.objects.all()}
    assert set(rows) == {ann.pk, ben.pk, cat.pk}  # once each; dan wants none
    assert rows[ann.pk].on_site and rows[ann.pk].mail_due
    assert rows[ben.pk].on_site and not rows[ben.pk].mail_due  # no address to mail
    assert not rows[cat.pk].on_site and rows[cat.pk].mail_due


def test_a_kind_mailed_only_on_request_waits_in_the_inbox() -> None:
    ann = person("ann", "ann@example.org")
    notify(players=[ann], kind=Kind.ROUND_PAIRED, title="Round 2 of the Swiss: you play Ben")
    (row,) = Notification.objects.all()
    assert row.on_site and not row.mail_due


def test_an_event_rolled_back_tells_no_one() -> None:
    ann = person("ann", "ann@example.org")
    with pytest.raises(RuntimeError), transaction.atomic():
        tell([ann])
        raise RuntimeError("the event failed")
    assert not Notification.objects.exists()


def test_a_title_too_long_is_cut_on_a_word() -> None:
    ann = person("ann")
    notify(players=[ann], kind=Kind.CHALLENGED, title="word " * 100)
    title = Notification.objects.get().title
    assert len(title) <= 200 and title.endswith("…") and "wor…" not in title


def test_settings_name_only_kinds_that_exist() -> None:
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="no such kind"):
        notification_settings_set(player=person("ann"), chosen={"astrology": (True, True)})


# --- the inbox on the site --------------------------------------------------------------------------------------


def test_the_header_counts_the_unread_and_the_inbox_lists_them_newest_first() -> None:
    ann = person("ann")
    tell([ann], title="First")
    tell([ann], title="Second")
    page = signed_in(ann).get(reverse("site:notifications"))
    html = page.content.decode()
    assert re.search(r'class="count">2<span class="hidden-words"> unread', html)
    assert html.index("Second") < html.index("First")


def test_opening_one_marks_it_read_and_goes_where_it_points() -> None:
    ann, ben = person("ann"), person("ben")
    tell([ann])
    notification = Notification.objects.get()
    assert signed_in(ben).get(reverse("site:notification-open", args=[notification.pk])).status_code == 404
    opened = signed_in(ann).get(reverse("site:notification-open", args=[notification.pk]))
    assert opened.status_code == 302 and opened["Location"] == "/competitions/1/"
    notification.refresh_from_db()
    assert notification.read_at is not None
    assert 'class="count"' not in signed_in(ann).get(reverse("site:notifications")).content.decode()


def test_mark_all_as_read() -> None:
    ann = person("ann")
    for _ in range(3):
        tell([ann])
    done = signed_in(ann).post(reverse("site:notifications-read-all"), follow=True)
    assert "Marked 3 as read." in done.content.decode()
    assert not Notification.objects.filter(read_at__isnull=True).exists()


def test_the_inbox_costs_the_same_queries_however_long(django_assert_num_queries: Any) -> None:
    ann = person("ann")
    client = signed_in(ann)
    for count in (2, 30):
        Notification.objects.all().delete()
        for n in range(count):
            tell([ann], title=f"Event {n}")
        with django_assert_num_queries(6):
            assert client.get(reverse("site:notifications")).status_code == 200


def test_the_settings_page_saves_each_kind_s_channels() -> None:
    ann = person("ann")
    client = signed_in(ann)
    page = client.get(reverse("site:notifications-settings")).content.decode()
    assert "Someone challenges you on a ladder" in page and "Your account has no e-mail address" in page
    data = {f"{kind}-site": "on" for kind in Kind.values}
    data.update({f"{kind}-mail": "on" for kind in Kind.values if kind != Kind.CHALLENGED})
    assert client.post(reverse("site:notifications-settings"), data).status_code == 302
    assert NotificationSetting.objects.get(player=ann, kind=Kind.CHALLENGED).mail is False
    assert NotificationSetting.objects.get(player=ann, kind=Kind.ROUND_PAIRED).mail is True


# --- the API ---------------------------------------------------------------------------------------------------


def test_the_api_lists_one_s_own_filters_unread_and_marks_read() -> None:
    ann, ben = person("ann"), person("ben")
    tell([ann], title="One")
    tell([ann], title="Two")
    tell([ben], title="Ben's")
    api = APIClient()
    api.force_authenticate(ann.user)
    listed = api.get("/api/notifications/").json()
    assert [n["title"] for n in listed["results"]] == ["Two", "One"]
    first = listed["results"][1]["id"]
    bens = Notification.objects.get(player=ben).pk
    assert api.post(f"/api/notifications/{bens}/read/").status_code == 404
    read = api.post(f"/api/notifications/{first}/read/")
    assert read.status_code == 200 and read.json()["read"] is True
    assert [n["title"] for n in api.get("/api/notifications/?unread=true").json()["results"]] == ["Two"]
    assert api.get("/api/notifications/?unread=maybe").status_code == 400
    assert api.post("/api/notifications/read/").json() == {"read": 1}
    assert APIClient().get("/api/notifications/").status_code in (401, 403)


# --- mail ------------------------------------------------------------------------------------------------------


def test_an_evening_of_forty_events_is_one_mail(settings: Any) -> None:
    settings.NOTIFY_MAIL_GATHER_SECONDS = 0
    ann = person("ann", "ann@example.org")
    for n in range(40):
        tell([ann], title=f"Event {n}")
    assert send_due_mail() == 1
    (sent,) = mail.outbox
    assert sent.to == ["ann@example.org"] and sent.subject.startswith("40 things for you")
    assert all(f"Event {n}\n" in sent.body for n in range(40))
    assert f"{settings.SITE_URL}/competitions/1/" in sent.body
    assert sent.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # Sent once: the next sweep finds nothing waiting.
    assert send_due_mail() == 0 and len(mail.outbox) == 1


def test_mail_waits_for_the_burst_to_gather_and_then_for_the_gap(settings: Any) -> None:
    settings.NOTIFY_MAIL_GATHER_SECONDS = 300
    settings.NOTIFY_MAIL_GAP_SECONDS = 3600
    ann = person("ann", "ann@example.org")
    tell([ann], title="First")
    now = timezone.now()
    assert send_due_mail(now) == 0  # too fresh: more may come
    assert send_due_mail(now + timedelta(seconds=301)) == 1
    tell([ann], title="Second")
    Notification.objects.filter(title="Second").update(created_at=now + timedelta(seconds=400))
    assert send_due_mail(now + timedelta(seconds=1000)) == 0  # mailed 11 minutes ago: it waits
    assert send_due_mail(now + timedelta(seconds=301 + 3601)) == 1
    assert [m.subject for m in mail.outbox] == ["First", "Second"]


def test_a_person_without_an_address_is_marked_done_not_retried(settings: Any) -> None:
    settings.NOTIFY_MAIL_GATHER_SECONDS = 0
    ann = person("ann", "ann@example.org")
    tell([ann])
    ann.user.email = ""
    ann.user.save()
    assert mail_player(ann.pk) == 1 and mail.outbox == []
    assert not Notification.objects.filter(mailed_at__isnull=True).exists()


def test_unsubscribing_from_a_kind_takes_one_click_and_no_sign_in() -> None:
    ann = person("ann", "ann@example.org")
    token = unsubscribe_token(ann.pk, Kind.CHALLENGED)
    url = reverse("site:notifications-unsubscribe", args=[token])
    visitor = Client(enforce_csrf_checks=True)
    asked = visitor.get(url).content.decode()
    assert "Stop mail about “someone challenges you on a ladder”?" in asked
    assert not NotificationSetting.objects.exists()  # looking is not unsubscribing
    done = visitor.post(url, {"List-Unsubscribe": "One-Click"})  # as a mail program posts it (RFC 8058)
    assert done.status_code == 200 and "No more mail about" in done.content.decode()
    setting = NotificationSetting.objects.get(player=ann, kind=Kind.CHALLENGED)
    assert setting.mail is False and setting.site is True
    tell([ann])
    assert Notification.objects.get().mail_due is False


def test_every_kind_at_once_and_forged_tokens() -> None:
    ann = person("ann", "ann@example.org")
    Client().post(reverse("site:notifications-unsubscribe", args=[unsubscribe_token(ann.pk, EVERY_KIND)]))
    assert NotificationSetting.objects.filter(player=ann, mail=False).count() == len(Kind.values)
    assert unsubscribe_of(unsubscribe_token(ann.pk, EVERY_KIND)[:-2] + "xx") is None
    assert Client().get(reverse("site:notifications-unsubscribe", args=["not-a-token"])).status_code == 404
