"""What a viewer of a live table may not see, and where a client could look for it (no tests here).

``secrets_for`` reads the engine's state of a live game (never the views the service
builds) and says, for one seat or for a spectator, which card codes must not appear
anywhere that viewer can read, and which orders of cards (a deal, a deck, a draw pile)
must not appear even where every card of them may. ``leaks`` finds them in a text.

``api_routes`` walks the URL conf, so a route added later is walked too (or the walk
fails, naming the route it cannot fill in).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

from engine.cards import standard_deck
from engine.referee import LiveGame
from engine.rng import Rng

#: How RULES.md spells a card: a rank then a suit (Punk's larger tables use suits beyond S).
CARD = re.compile(r"\A[A2-9TJQK][CDHSUVWXYZ]\Z")
#: How the web table writes a card for people (tournaments/static/play/cards.js).
_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
#: Between two cards of one listed order: quotes, commas, spaces; never another word, nor another list.
_BETWEEN = r"[^A-Za-z0-9\[\]{}()]{0,8}"
#: Runs shorter than this are too likely to occur by chance among a seat's own cards.
MIN_RUN = 3


@dataclass(frozen=True)
class Secrets:
    """What one viewer may not see right now."""

    #: Card codes of which no copy is visible to the viewer.
    cards: frozenset[str]
    #: Orders of cards the viewer may not know, each at least MIN_RUN cards long.
    runs: tuple[tuple[str, ...], ...] = ()
    #: Cards the viewer sees (or saw): with several games, a card hidden in one may be seen in another.
    visible: frozenset[str] = frozenset()

    def __or__(self, other: Secrets) -> Secrets:
        visible = self.visible | other.visible
        return Secrets((self.cards | other.cards) - visible, self.runs + other.runs, visible)


def _token(card: str) -> str:
    return rf"(?<![A-Za-z0-9]){re.escape(card)}(?![A-Za-z0-9])"


#: A card's code as a whole word, or as the web table writes it for people (raw or JSON-escaped).
_SHOWN = re.compile(
    r"(?<![A-Za-z0-9])(?:(?P<code>[A2-9TJQK][CDHSUVWXYZ])(?![A-Za-z0-9])"
    r"|(?P<rank>10|[A2-9JQK])(?P<suit>[♣♦♥♠]|\\u266[0356]))"
)
_SUIT_OF = {symbol: suit for suit, symbol in _SUIT_SYMBOLS.items()}
_SUIT_OF.update({f"\\u{ord(symbol):04x}": suit for suit, symbol in _SUIT_SYMBOLS.items()})


#: A masked value, such as the admin's summary of a password hash (``salt: JS*******``): no card.
_MASKED = re.compile(r"[A-Za-z0-9+/=]+\*{4,}")
#: A signed token in a link (an unsubscribe link's ``…-KC_…`` is base64, not the king of clubs): a run of
#: URL-safe base64 of 20 or more characters with a lowercase letter in it, which no card code has.
_SIGNED = re.compile(r"(?<![\w-])(?=[\w-]*[a-z])[\w-]{20,}(?![\w-])", re.ASCII)


def cards_shown(text: str) -> set[str]:
    """Every card the text shows, by its code or the web table's spelling (``10♥`` is TH)."""
    shown = set()
    for found in _SHOWN.finditer(_SIGNED.sub("*", _MASKED.sub("*", text))):
        if found["code"]:
            shown.add(found["code"])
        else:
            rank = "T" if found["rank"] == "10" else found["rank"]
            shown.add(rank + _SUIT_OF[found["suit"].lower()])
    return shown


def leaks(text: str, secrets: Secrets) -> list[str]:
    """What of ``secrets`` the text shows: the hidden cards, then the hidden orders, as found."""
    found = sorted(cards_shown(text) & secrets.cards)
    for run in secrets.runs:
        if re.search(_BETWEEN.join(_token(card) for card in run), text):
            found.append(" ".join(run))
    return found


def number_shown(text: str, number: int) -> bool:
    """The number's digits as a whole number, or its hexadecimal digits as a whole word."""
    return bool(
        re.search(rf"(?<!\d){number}(?!\d)", text)
        or re.search(rf"(?<![0-9a-f]){number:x}(?![0-9a-f])", text, re.IGNORECASE)
    )


def secret_numbers_shown(text: str, numbers: Iterable[int], salt: str) -> list[str]:
    shown = [str(number) for number in numbers if number_shown(text, number)]
    if salt and salt.lower() in text.lower():
        shown.append(f"salt {salt}")
    return shown


# --- what each game hides -----------------------------------------------------------------------


def secrets_for(live: LiveGame, seat: int | None) -> Secrets:
    """What ``seat`` (None: a spectator) may not see of this game now, from the engine's state alone."""
    secrets = _READERS[live.game_name](live, seat)
    assert all(CARD.match(card) for card in secrets.cards | secrets.visible), secrets
    return secrets


def _secrets(
    places: Iterable[str],
    visible: Iterable[str],
    runs: Iterable[Sequence[str]] = (),
    seen_orders: Sequence[Sequence[str]] = (),
) -> Secrets:
    """Cards in hidden places, less every card of which some copy is visible (several decks, Banter's two);
    and the hidden orders, less those the viewer also sees in a list of its own (a copy's order, by chance)."""
    seen = frozenset(visible)
    hidden_runs = tuple(
        tuple(run) for run in runs if len(run) >= MIN_RUN and not any(_within(run, order) for order in seen_orders)
    )
    return Secrets(frozenset(places) - seen, hidden_runs, seen)


def _within(run: Sequence[str], order: Sequence[str]) -> bool:
    size = len(run)
    return any(list(order[at : at + size]) == list(run) for at in range(len(order) - size + 1))


def _war(live: LiveGame, seat: int | None) -> Secrets:
    """War decides nothing and shows only counts: the secret is the deal, which its seed fixes."""
    if live.deal is not None:
        raise AssertionError("a live War game is dealt from its seed")
    # engine/games/war.py: the canonical deck shuffled by the seed's generator.
    deck = standard_deck()
    Rng(live.seed).shuffle(deck)
    # Seat 0 takes the even cards, seat 1 the odd ones; a hand's top card is the last it took.
    hands = [deck[0::2], deck[1::2]]
    orders = [deck[:8], *(hand[:8] for hand in hands), *(hand[::-1][:8] for hand in hands)]
    return _secrets((), (), orders)


def _nineteen23(live: LiveGame, seat: int | None) -> Secrets:
    """RULES.md "What a seat sees": its own known cards and every card revealed in the set, nothing else."""
    state = live.state
    hands: list[list[str]] = state.hands
    places = [*state.deck[state.top :], *state.dead]
    for other, hand in enumerate(hands):
        if other != seat:
            places += hand
    known: list[str] = []
    if seat is not None and hands[seat]:
        # The last card of a hand is its owner's unknown left card until the showdown.
        places.append(hands[seat][-1])
        known = hands[seat][:-1]
    last = state.last_game or {}
    shown = [card for hand in last.get("hands", ()) for card in hand]
    shown += [card for drawn in last.get("tiebreak_draws", ()) for card in drawn]
    return _secrets(places, [*state.revealed, *shown, *known], [state.deck[state.top :]])


def _banter_public(state: object) -> list[str]:
    cards: list[str] = []
    for pair in (state.spent, state.last_spent, state.bins):  # type: ignore[attr-defined]
        for cards_of_seat in pair:
            cards += cards_of_seat
    for trick in (*state.tricks, *state.last_tricks):  # type: ignore[attr-defined]
        cards += [trick[1], trick[2]]
    if state.led is not None:  # type: ignore[attr-defined]
        cards.append(state.led)  # type: ignore[attr-defined]
    return cards


def _banter(live: LiveGame, seat: int | None) -> Secrets:
    """RULES.md "Hidden information": own hand and piles (not their order), the opponent's sizes and public cards."""
    state = live.state
    piles = [(state.hands[s], state.draw[s], state.deck[s], state.discard[s]) for s in (0, 1)]
    visible = _banter_public(state)
    # The lists of cards in plain view: spent Hearts and bins, seat by seat, in order.
    seen_orders: list[Sequence[str]] = [*state.spent, *state.last_spent, *state.bins]
    places: list[str] = []
    orders: list[Sequence[str]] = []
    for owner in (0, 1):
        hand, draw, deck, discard = piles[owner]
        # Nobody, the owner included, knows the order of a deck or a draw pile.
        orders += [draw, deck]
        if owner == seat:
            visible += [*hand, *draw, *deck, *discard]
            if state.bought is not None and state.actor == seat:
                visible.append(state.bought)
            # What the owner sees of them: its hand and discard in order, its piles sorted.
            seen_orders += [hand, discard, sorted(draw, key=_banter_order), sorted(deck, key=_banter_order)]
        else:
            places += [*hand, *draw, *deck, *discard]
            orders += [hand, sorted(hand, key=_banter_order), sorted(draw, key=_banter_order)]
            orders += [sorted(deck, key=_banter_order)]
    return _secrets(places, visible, orders, seen_orders)


def _banter_order(card: str) -> int:
    return "CDHS".index(card[1]) * 13 + "A23456789TJQK".index(card[0])


def _punk(live: LiveGame, seat: int | None) -> Secrets:
    """RULES.md "What a seat sees": its own hand, the revealed tricks, the cache; never another hand (the dummy's)."""
    state = live.state
    places = [card for other, hand in enumerate(state.hands) if other != seat for card in hand]
    visible = [card for trick in state.tricks for card in trick] + list(state.cache)
    if seat is not None:
        visible += state.hands[seat]
    return _secrets(places, visible)


_READERS = {"war": _war, "1923": _nineteen23, "banter": _banter, "punk": _punk}


# --- where a client can look --------------------------------------------------------------------


def url_routes() -> Iterator[tuple[str, URLPattern]]:
    """Every route of the site, as its route string (``api/matches/<int:pk>/``) and its pattern."""

    def walk(patterns: Iterable[URLPattern | URLResolver], prefix: str) -> Iterator[tuple[str, URLPattern]]:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, route)
            else:
                yield route, pattern

    yield from walk(get_resolver().url_patterns, "")


_PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")


def fill_route(route: str, ids: Mapping[str, Sequence[int]]) -> list[str]:
    """The paths of ``route`` with each parameter filled from ``ids``, keyed by the path segment before it.

    ``api/matches/<int:match_pk>/sets/`` takes ``ids["matches"]``; a parameter right after another takes the
    ids of its own name (``challenges/<int:challenge_id>/<str:decision>/``: ``ids["decision"]``). A parameter
    whose segment ``ids`` does not name fails the walk: every route must be walked with real ids.
    """
    paths = ["/"]
    after_parameter = False
    for part in route.strip("^$").split("/"):
        if not part:
            continue
        parameter = _PARAMETER.fullmatch(part)
        if parameter is None:
            paths = [f"{path}{part}/" for path in paths]
            after_parameter = False
            continue
        # A parameter right after another (a page's ``<id>/<decision>/``) is keyed by its own name.
        segment = parameter.group(1) if after_parameter else [p for p in paths[0].split("/") if p][-1]
        after_parameter = True
        if segment not in ids:
            raise AssertionError(f"the walk has no ids for {parameter.group(1)} after {segment!r} in {route!r}")
        paths = [f"{path}{value}/" for path in paths for value in ids[segment]]
    return paths
