"""Card notation shared by every game (RULES.md, "Common").

A card is a two-character upper-case string, rank then suit: ``"TS"``.
Strings keep records and observations plain JSON with no translation layer,
and compare and hash cheaply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from engine.errors import CardError, shown

RANKS = "A23456789TJQK"
STANDARD_SUITS = "CDHS"
#: Punk's fifth to tenth suits follow the four standard ones.
ALL_SUITS = "CDHSUVWXYZ"

# ASCII: Unicode case folding would also match the Kelvin sign (U+212A) as K, which upper() keeps as it is.
_CARD_RE = re.compile(r"^(10|[A2-9TJQK])([CDHSUVWXYZ])$", re.IGNORECASE | re.ASCII)
_SEPARATORS = re.compile(r"[\s,]+")


def parse_card(text: str) -> str:
    """Parse one card, case-insensitively, accepting ``10`` for ``T``."""
    match = _CARD_RE.match(text.strip())
    if match is None:
        raise CardError(f"malformed card {shown(text)}: expected rank (A 2-9 T J Q K) then suit (C D H S U-Z)")
    rank, suit = match.groups()
    return ("T" if rank == "10" else rank.upper()) + suit.upper()


def card_words(text: str) -> list[str]:
    """The cards of a typed list, not yet parsed: separated by spaces or commas."""
    return [word for word in _SEPARATORS.split(text.strip()) if word]


def parse_cards(text: str | Iterable[str], *, count: int | None = None, what: str = "cards") -> list[str]:
    """Parse a list of cards, top card first, given as a string or a sequence of strings."""
    items = card_words(text) if isinstance(text, str) else list(text)
    cards = []
    for position, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise CardError(f"{what}: card {position} is not a string: {shown(item)}")
        try:
            cards.append(parse_card(item))
        except CardError as exc:
            raise CardError(f"{what}: card {position}: {exc}") from None
    if count is not None and len(cards) != count:
        raise CardError(f"{what}: expected {count} cards, got {len(cards)}")
    return cards


def format_cards(cards: Iterable[str]) -> str:
    return " ".join(cards)


def rank_of(card: str) -> str:
    return card[0]


def suit_of(card: str) -> str:
    return card[1]


def standard_deck() -> list[str]:
    """The canonical 52-card order: suits C D H S, each A 2 .. K (docs/records.md)."""
    return [rank + suit for suit in STANDARD_SUITS for rank in RANKS]


def build_deck(suits: str, ranks: str, copies: int = 1) -> list[str]:
    """A canonical deck of ``copies`` copies of every rank in every suit, suit-major."""
    return [rank + suit for _ in range(copies) for suit in suits for rank in ranks]


def check_multiset(cards: Sequence[str], expected: Sequence[str], *, what: str) -> None:
    """Raise unless ``cards`` holds exactly the cards of ``expected`` (duplicates counted)."""
    if sorted(cards) == sorted(expected):
        return
    have: dict[str, int] = {}
    for card in cards:
        have[card] = have.get(card, 0) + 1
    for card in expected:
        have[card] = have.get(card, 0) - 1
    extra = sorted(c for c, n in have.items() if n > 0)
    missing = sorted(c for c, n in have.items() if n < 0)
    parts = []
    if extra:
        parts.append("unexpected or duplicated " + format_cards(extra))
    if missing:
        parts.append("missing " + format_cards(missing))
    raise CardError(f"{what}: " + "; ".join(parts))


def normalise_action(text: str) -> str:
    """An action in canonical spelling: upper case, single spaces, cards as in RULES.md (``10c`` → ``TC``)."""
    words = []
    for word in text.split():
        try:
            words.append(parse_card(word))
        except CardError:
            words.append(word.upper())
    return " ".join(words)
