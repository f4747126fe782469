"""Every page of the site for people, mounted at the site's root by config/urls.py. Each module of
tournaments/web/ holds the pages of one job and their routes; the names are in the ``site`` namespace."""

from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.urls import URLPattern, URLResolver, path

from tournaments.web import (
    bots,
    calendars,
    club_organising,
    club_webhooks,
    clubs,
    entering,
    front,
    notifications,
    organising,
    people,
    replays,
    transcripts,
    views,
)

app_name = "site"

table_and_accounts: list[URLPattern] = [
    # settings.LOGIN_URL's default, so login_required pages (and the admin's "view site") land here.
    path("accounts/login/", views.SignInView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(next_page="site:home"), name="logout"),
    path("play/", views.my_matches, name="matches"),
    path("play/matches/<int:match_id>/", views.match_table, name="table"),
    path("competitions/<int:competition_id>/", views.competition_sheet, name="competition"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    *table_and_accounts,
    *front.urlpatterns,
    *people.urlpatterns,
    *clubs.urlpatterns,
    *club_organising.urlpatterns,
    *club_webhooks.urlpatterns,
    *organising.urlpatterns,
    *entering.urlpatterns,
    *transcripts.urlpatterns,
    *bots.urlpatterns,
    *notifications.urlpatterns,
    *calendars.urlpatterns,
    *replays.urlpatterns,
]
