"""Routes of the web table, mounted at the site's root by config/urls.py."""

from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.urls import path

from tournaments.web import views

app_name = "play"

urlpatterns = [
    # settings.LOGIN_URL's default, so login_required pages (and the admin's "view site") land here.
    path("accounts/login/", views.SignInView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(next_page="play:login"), name="logout"),
    path("play/", views.my_matches, name="matches"),
    path("play/matches/<int:match_id>/", views.match_table, name="table"),
    path("competitions/<int:competition_id>/", views.competition_sheet, name="competition"),
]
