"""A member's buttons on a competition: enter and leave; on a challenge ladder challenge, accept, decline and
withdraw.
"""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
