"""A seated person's transcripts of games played with real cards: upload the record, or build it step by step;
confirm or dispute.
"""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
