"""Provably fair deals: a commitment to a game's seed, published before play and checkable after it.

A live match publishes ``commitment(seed, salt)`` for each game when it starts
and reveals the seed and salt in the game's record when the match ends
(docs/fair-play.md). SHA-256 binds the server to the seed; the salt, random per
match and secret until the end, keeps the seed from being found by trying seeds.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_salt() -> str:
    """A fresh secret salt: 32 hex digits."""
    return secrets.token_hex(16)


def commitment(seed: int, salt: str) -> str:
    """SHA-256, in hex, of the UTF-8 text ``"<salt>:<seed>"`` (seed in decimal)."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def commitment_holds(seed: int, salt: str, published: str) -> bool:
    return hmac.compare_digest(commitment(seed, salt), published.strip().lower())
