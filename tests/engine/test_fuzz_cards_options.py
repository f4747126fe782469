"""Fuzzing card notation and ruleset options: any input gives a value or the engine's typed error.

Cards come from ``--deck``, deals and actions (engine/cards.py); options from ``--option key=value``
on the command line and from the API's ``options`` object (engine/options.py and each game's
``parse_options``). Neither may answer with a TypeError, KeyError, ValueError or OverflowError of
Python's own: those would be tracebacks in the CLI and 500s in the API.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from engine.cards import ALL_SUITS, RANKS, format_cards, normalise_action, parse_card, parse_cards, standard_deck
from engine.cli import main
from engine.errors import CardError, EngineError, OptionError, shown
from engine.games import game_names, get_game, seats_for
from engine.options import Option, parse_assignments
from tests.engine.fuzz_support import CARDS, KNOWN_KEYS, NEAR_CARDS, json_values

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW_FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Past Python's 4,300-digit limit: ``str()`` and ``repr()`` of it raise ValueError. No JSON holds one,
#: but a Python caller may pass it. Built lazily: Hypothesis itself cannot repr it in a strategy.
HUGE = st.just(0).map(lambda _: 10**5000)

card_texts = st.one_of(
    st.text(max_size=8),
    st.sampled_from(CARDS + NEAR_CARDS),
    st.builds(lambda card, pad: pad + card.lower().replace("t", "10") + pad, st.sampled_from(CARDS), st.text(" \t")),
)


def run_cli(argv: Sequence[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse's own errors
            code = int(str(exit_.code))
    return code, out.getvalue(), err.getvalue()


def assert_usage_error_or_success(code: int, out: str, err: str) -> None:
    assert "Traceback" not in out + err
    assert code in (0, 2), (code, err)
    if code == 2:
        assert err.count("\n") == 1 and err.endswith("\n") and len(err) < 400, err


# --- Cards -------------------------------------------------------------------------------------


def is_card(value: object) -> bool:
    return isinstance(value, str) and len(value) == 2 and value[0] in RANKS and value[1] in ALL_SUITS


@FUZZ
@given(text=card_texts)
@example(text="\u212aS")  # the Kelvin sign, which Unicode case folding matched as K
@example(text="2\u017f")  # the long s, which upper-cases to S
@example(text="x" * 100_000)
def test_a_card_parses_to_a_real_card_or_a_card_error(text: str) -> None:
    try:
        card = parse_card(text)
    except CardError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 200
    else:
        assert is_card(card)
        assert text.strip().upper().replace("10", "T") == card


@given(card=st.sampled_from(CARDS), lower=st.booleans(), ten=st.booleans(), pad=st.text(" \t\n", max_size=2))
def test_every_spelling_of_a_card_parses_back_to_it(card: str, lower: bool, ten: bool, pad: str) -> None:
    text = card.lower() if lower else card
    if ten:
        text = text.replace("T", "10").replace("t", "10")
    assert parse_card(pad + text + pad) == card


@FUZZ
@given(text=st.one_of(st.text(max_size=40), st.lists(card_texts, max_size=8).map(" ".join)))
@example(text="2C,3C  4C\n5C")
def test_a_card_list_in_text_parses_to_real_cards_or_a_card_error(text: str) -> None:
    try:
        cards = parse_cards(text, what="--deck")
    except CardError as exc:
        assert str(exc).startswith("--deck: card ") and "\n" not in str(exc)
    else:
        assert all(is_card(card) for card in cards)


@FUZZ
@given(items=st.lists(st.one_of(card_texts, json_values(), HUGE), max_size=6), count=st.none() | st.integers(0, 6))
def test_a_card_list_of_any_values_parses_or_names_the_bad_card(items: list[Any], count: int | None) -> None:
    try:
        cards = parse_cards(items, count=count, what="hand 1")
    except CardError as exc:
        assert str(exc).startswith("hand 1: ") and "\n" not in str(exc) and len(str(exc)) < 250
    else:
        assert all(is_card(card) for card in cards) and len(cards) == len(items)
        assert count is None or count == len(cards)


@given(cards=st.lists(st.sampled_from(CARDS), max_size=60), separator=st.sampled_from([" ", ",", ", ", "\n", "\t "]))
def test_written_card_lists_parse_back_to_the_same_cards(cards: list[str], separator: str) -> None:
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards(separator.join(cards)) == cards


@FUZZ
@given(text=st.one_of(st.text(max_size=30), st.builds("{} {}".format, st.text(max_size=6), card_texts)))
def test_an_action_in_any_spelling_normalises_without_error(text: str) -> None:
    action = normalise_action(text)
    assert normalise_action(action) == action
    assert "  " not in action and action == action.strip()


@SLOW_FUZZ
@given(deck=st.one_of(st.text(max_size=80), st.lists(card_texts, max_size=60).map(" ".join)))
@example(deck="")
@example(deck=" ".join(["2C"] * 52))
@example(deck=" ".join(["\u212aS", *standard_deck()[1:]]))
def test_the_deck_option_plays_or_says_what_is_wrong_on_one_line(deck: str) -> None:
    code, out, err = run_cli(["play", "war", "--deck", deck, "--json"])
    assert_usage_error_or_success(code, out, err)
    assert code == 2  # nothing here is 52 distinct cards


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), lower=st.booleans())
def test_any_order_of_the_52_cards_is_a_deck_the_cli_plays(seed: int, lower: bool) -> None:
    deck = standard_deck()
    random.Random(seed).shuffle(deck)
    text = format_cards(deck).lower() if lower else format_cards(deck)
    code, out, err = run_cli(["play", "war", "--deck", text, "--json"])
    assert (code, err) == (0, "")
    assert json.loads(out)["deal"] == {"deck": deck}


# --- Options -----------------------------------------------------------------------------------


def option_values() -> st.SearchStrategy[Any]:
    """What a caller may put in an option: JSON of any kind, CLI text, and Python's awkward values."""
    return st.one_of(
        json_values(),
        st.sampled_from(["true", "off", "NULL", "none", " 7 ", "1e5", "0x10", "1_000", "٣", "seed", "set", "dead"]),
        HUGE,
        HUGE.map(lambda n: -n),
        st.sampled_from([math.nan, math.inf, (1, 2), b"7", frozenset({1})]),
    )


option_names = st.one_of(st.sampled_from(KNOWN_KEYS), st.text(max_size=8), st.sampled_from(["a\nb", "x" * 500]))
#: Every game's own option names, each with a value that fits it or is close.
game_options = st.dictionaries(
    st.sampled_from(sorted({name for game in game_names() for name in get_game(game).OPTIONS.options})),
    st.one_of(st.booleans(), st.integers(-2, 400), st.sampled_from(["seed", "0", "1", "set", "match", "war", "dead"])),
    max_size=4,
)
raw_options = st.one_of(
    game_options,
    game_options,
    st.dictionaries(option_names, option_values(), max_size=4),
    st.dictionaries(st.one_of(option_names, st.none(), st.integers(), HUGE), option_values(), max_size=3),
    st.sampled_from([[("mode", "set")], "mode=set", 7, ["mode"], b"{}"]),
)
seat_counts = st.integers(-1, 13) | st.sampled_from([2, 2, 3, 2**63, -(2**63)])


def assert_valid_option(option: Option, value: object) -> None:
    if value is None:
        assert option.nullable, option.name
        return
    if option.kind is int:
        assert isinstance(value, int) and not isinstance(value, bool), (option.name, value)
        assert option.minimum is None or value >= option.minimum
        assert option.maximum is None or value <= option.maximum
    else:
        assert isinstance(value, option.kind), (option.name, value)
    assert option.choices is None or value in option.choices


@pytest.mark.parametrize("game_name", game_names())
@FUZZ
@given(raw=raw_options, data=st.data())
@example(raw={"first_lead": 10**5000, "max_rounds": 10**5000}, data=None)
@example(raw={None: 1, "x": 2}, data=None)
@example(raw=[("mode", "set")], data=None)
def test_any_options_give_a_full_ruleset_or_an_engine_error(
    game_name: str, raw: Any, data: st.DataObject | None
) -> None:
    game = get_game(game_name)
    seats = st.integers(game.MIN_PLAYERS, game.MAX_PLAYERS) | seat_counts
    players = data.draw(seats, label="players") if data is not None else game.MIN_PLAYERS
    try:
        options = game.parse_options(raw, players)
    except EngineError as exc:
        event(type(exc).__name__)
        assert "\n" not in str(exc) and len(str(exc)) < 400, str(exc)
        return
    event("a ruleset")
    assert set(options) == set(game.OPTIONS.options)
    for name, option in game.OPTIONS.options.items():
        assert_valid_option(option, options[name])
    # A record lists the whole ruleset and verify parses it again: what parse gives, parse keeps.
    assert game.parse_options(options, players) == options


@pytest.mark.parametrize("game_name", game_names())
@FUZZ
@given(raw=st.dictionaries(option_names, option_values(), max_size=4), people=seat_counts)
def test_the_seats_for_any_options_are_a_number_or_an_engine_error(game_name: str, raw: Any, people: int) -> None:
    try:
        seats = seats_for(get_game(game_name), people, raw)
    except EngineError:
        return
    assert seats in (people, people + 1)


@pytest.mark.parametrize("game_name", game_names())
@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_every_declared_option_value_round_trips_as_json_and_as_cli_text(game_name: str, data: st.DataObject) -> None:
    game = get_game(game_name)
    for option in game.OPTIONS.options.values():
        value = data.draw(declared_values(option), label=option.name)
        assert option.coerce(value) == value
        assert option.coerce(str(value).lower() if option.kind is bool else str(value)) == value


def declared_values(option: Option) -> st.SearchStrategy[Any]:
    if option.choices is not None:
        return st.sampled_from(option.choices)
    if option.kind is bool:
        return st.booleans()
    if option.kind is int:
        return st.integers(option.minimum, option.maximum)
    return st.text().filter(lambda text: text.lower() not in {"null", "none"})


@FUZZ
@given(pairs=st.lists(st.text(max_size=12) | st.builds("{}={}".format, option_names, st.text(max_size=6)), max_size=4))
@example(pairs=["=1"])
@example(pairs=["a\nb"])
def test_option_assignments_parse_or_name_the_bad_pair(pairs: list[str]) -> None:
    try:
        assigned = parse_assignments(pairs)
    except OptionError as exc:
        assert str(exc).endswith("expected key=value") and "\n" not in str(exc)
    else:
        assert all(isinstance(key, str) and key == key.strip() and key for key in assigned)


@SLOW_FUZZ
@given(
    name=st.sampled_from(["max_rounds", "MAX_ROUNDS", "rounds", "", " max_rounds "]) | st.text(max_size=6),
    value=st.text(max_size=12) | st.sampled_from(["9" * 5000, "-1", "0", "1", "10000000000", "nan", "1e3", "٣"]),
)
def test_the_option_flag_plays_or_says_what_is_wrong_on_one_line(name: str, value: str) -> None:
    code, out, err = run_cli(["play", "war", "--seed", "1", "--option", f"{name}={value}", "--json"])
    assert_usage_error_or_success(code, out, err)
    if code == 0:
        assert json.loads(out)["options"]["max_rounds"] == int(value)


def test_an_enormous_number_is_named_in_a_short_message() -> None:
    with pytest.raises(OptionError, match=r"^option 'max_rounds': <a whole number of \d+ bits> is above the maximum"):
        get_game("war").parse_options({"max_rounds": 10**5000}, 2)
    with pytest.raises(OptionError, match=r"^option 'first_lead': <a whole number"):
        get_game("banter").parse_options({"first_lead": 10**5000}, 2)
    assert shown("x" * 1000).endswith("…") and len(shown("x" * 1000)) == 80


def test_options_that_are_not_a_mapping_are_an_option_error() -> None:
    for game in game_names():
        with pytest.raises(OptionError, match="expected a mapping of option names to values"):
            get_game(game).parse_options([("mode", "set")], get_game(game).MIN_PLAYERS)  # type: ignore[arg-type]
