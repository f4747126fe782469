"""An organiser's pages for a competition: a new one of any game and format from its format's settings, entrants,
start with a seeding order, cancel, retry, disputes.
"""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
