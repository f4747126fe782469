"""An organiser's pages for their club, with no staff rights: a new club, its settings, members and roles,
invitation links, join requests.
"""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
