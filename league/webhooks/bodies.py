"""What a webhook is sent: the JSON body, its exact bytes, and their signature.

The body is a chat message as it is: Discord reads ``content`` and Slack reads ``text``, both the same one line
of plain words with the link at its end, so a club can point a webhook straight at its chat. Programs read
``event``, ``data`` (ids) and ``delivery`` (the same for every attempt of one delivery: a receiver that
answered late, and is sent it again, tells the two apart by it).

Only what the site shows anyone: names of people and competitions, rounds, results. Never a card, a deal or a
seed; the words come from the events' own hooks (tournaments/notices.py), which never have them to give.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.conf import settings

#: Discord refuses a message of more than 2,000 characters; the link and an ellipsis must fit beside the words.
MOST_WORDS = 1500
SIGNATURE_HEADER = "X-Cardclub-Signature"
EVENT_HEADER = "X-Cardclub-Event"
DELIVERY_HEADER = "X-Cardclub-Delivery"

#: Ids and short values for programs: never a card, a deal or a seed.
Data = Mapping[str, Any]


def absolute(link: str) -> str:
    return f"{settings.SITE_URL}{link}" if link.startswith("/") else link


def one_line(words: str) -> str:
    words = " ".join(words.split())
    if len(words) <= MOST_WORDS:
        return words
    return words[: MOST_WORDS - 1].rsplit(" ", 1)[0] + "…"


def event_body(*, kind: str, club_id: int, club_name: str, text: str, link: str, data: Data | None) -> dict[str, Any]:
    """The part of the body that is the same for every webhook of the club and every attempt."""
    words = one_line(text)
    url = absolute(link) if link else ""
    line = f"{words} {url}" if url else words
    return {
        "event": kind,
        "club": {"id": club_id, "name": club_name},
        "summary": words,
        "text": line,
        "content": line,
        "url": url,
        "data": dict(data or {}),
    }


def sent_bytes(body: Mapping[str, Any], *, delivery_id: int, attempt: int, sent_at: datetime) -> bytes:
    """The exact bytes posted for one attempt: the stored body, with which delivery and attempt it is."""
    whole = {**body, "delivery": delivery_id, "attempt": attempt, "sent_at": sent_at.isoformat()}
    return json.dumps(whole, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def signature(secret: str, payload: bytes) -> str:
    """The signature header's value: ``sha256=`` and the hex HMAC-SHA256 of the bytes under the secret."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), payload, hashlib.sha256).hexdigest()


def headers(*, secret: str, payload: bytes, kind: str, delivery_id: int) -> dict[str, str]:
    return {
        SIGNATURE_HEADER: signature(secret, payload),
        EVENT_HEADER: kind,
        DELIVERY_HEADER: str(delivery_id),
    }
