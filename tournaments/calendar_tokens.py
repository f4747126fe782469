"""The secret of a person's calendar address, and how the feed recognises it.

A calendar app fetches the feed with no sign-in, so the address is the whole credential: 256 bits of HMAC,
derived from a random nonce under the site's SECRET_KEY. The database holds the nonce and the token's sha256
only: a copy of the database alone opens no one's calendar. Changing SECRET_KEY changes every address
(docs/calendars.md).
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from django.utils.crypto import salted_hmac

#: Separates these HMACs from every other use of SECRET_KEY.
_SALT = "tournaments.calendar_feed"


def new_nonce() -> str:
    """32 random bytes, URL-safe: 43 characters, the column's length."""
    return secrets.token_urlsafe(32)


def token_of(nonce: str) -> str:
    """The address's secret part: 43 URL-safe characters."""
    digest = salted_hmac(_SALT, nonce, algorithm="sha256").digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def token_hash(token: str) -> str:
    """What the feed looks the token up by: one indexed equality, so its time says nothing about the token."""
    return hashlib.sha256(token.encode()).hexdigest()
