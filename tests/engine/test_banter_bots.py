"""The Banter strategy bot: its decisions on hand-built deals, and its margin over random play."""

from __future__ import annotations

from math import comb

from engine.bots import BotContext, make_bot
from engine.bots.banter_bots import BOTS, UpgraderBot
from engine.cards import standard_deck
from engine.games import banter
from engine.games.banter import BanterState
from engine.rng import Rng
from engine.runner import play_game
from engine.verify import verify

CANONICAL = standard_deck()


def piles(draw: str, deck: str = "") -> dict[str, list[str]]:
    """One seat's piles with the given cards on top, the rest of its deck in the canonical order."""
    draw_top, deck_top = draw.split(), deck.split()
    rest = [card for card in CANONICAL if card not in draw_top and card not in deck_top]
    fill = 13 - len(draw_top)
    return {"draw": draw_top + rest[:fill], "deck": deck_top + rest[fill:]}


def start(draw0: str, draw1: str, *, deck0: str = "", first_lead: str = "0") -> BanterState:
    options = banter.parse_options({"first_lead": first_lead})
    deal = banter.parse_deal({"piles": [piles(draw0, deck0), piles(draw1)]}, options)
    return banter.new_state(options, 2, 0, deal)


def upgrader(seat: int) -> UpgraderBot:
    return UpgraderBot(BotContext(game="banter", seat=seat, players=2, options={}, rng=Rng(seat)))


def decide(state: BanterState) -> str:
    seat = state.actor
    legal = banter.legal_actions(state, seat)
    action = upgrader(seat).act(banter.observation(state, seat), legal)
    assert action in legal
    return action


def play(state: BanterState, *actions: str) -> None:
    for action in actions:
        banter.apply(state, {state.actor: action})


def test_upgrader_is_registered() -> None:
    assert set(BOTS) == {"upgrader"}
    assert isinstance(make_bot("upgrader", game="banter", seat=1, players=2, options={}, seed=3), UpgraderBot)


def test_upgrader_spends_its_lowest_heart_early_to_replace_a_weak_card() -> None:
    state = start("9H 4H 2C 2S 8D", "AS KS QS JS TS")
    assert decide(state) == "SPEND 4H"


def test_upgrader_stops_upgrading_near_40() -> None:
    state = start("9H 4H 2C 2S 8D", "AS KS QS JS TS")
    state.scores = (38, 30)
    assert decide(state) == "STOP"


def test_upgrader_keeps_its_last_card_rather_than_buying_one_it_would_have_to_bin() -> None:
    state = start("4H 2C 2S 8D 9D", "AS KS QS JS TS", deck0="AH KH QH JH")
    play(state, "SPEND 4H", "BIN 2C", "SPEND AH", "BIN 2S", "SPEND KH", "BIN 8D", "SPEND QH", "BIN 9D")
    assert state.hands[0] == ["JH"]
    assert decide(state) == "STOP"


def test_upgrader_bins_the_weakest_card_a_low_non_heart_before_any_heart() -> None:
    state = start("5H 2H 3C 9D KS", "AS KS QS JS TS", deck0="4S")
    play(state, "SPEND 5H")
    assert decide(state) == "BIN 3C"
    state = start("5H 2H 3C 9D KS", "AS KS QS JS TS", deck0="2D")
    play(state, "SPEND 5H")
    assert decide(state) == "BIN 2D"


def test_upgrader_follows_with_the_cheapest_card_that_wins() -> None:
    state = start("9C 2D 3D 4D 5D", "AC TC KC 3H 2S")
    play(state, "STOP", "STOP", "PLAY 9C")
    assert decide(state) == "PLAY TC"


def test_upgrader_trumps_with_its_lowest_heart_when_void_in_the_suit_led() -> None:
    state = start("9C 2D 3D 4D 5D", "9H 5H 2S AD KS")
    play(state, "STOP", "STOP", "PLAY 9C")
    assert decide(state) == "PLAY 5H"


def test_upgrader_throws_its_weakest_card_when_it_cannot_win() -> None:
    state = start("AC 2D 3D 4D 5D", "5C 2C KS AD QD")
    play(state, "STOP", "STOP", "PLAY AC")
    assert decide(state) == "PLAY 2C"
    state = start("9H 2D 3D 4D 5D", "KS 3C AD QD 8S")
    play(state, "STOP", "STOP", "PLAY 9H")
    assert decide(state) == "PLAY 3C"


def test_upgrader_draws_a_trick_with_the_identical_card_rather_than_lose_it() -> None:
    state = start("AD 2C 3C 4C 5C", "AD 2D 5S 6S 7S")
    play(state, "STOP", "STOP", "PLAY AD")
    assert decide(state) == "PLAY AD"


def test_upgrader_leads_a_likely_winner_and_otherwise_gives_the_lead_away_cheaply() -> None:
    state = start("AS 3C 4D 6C 7D", "AC KC QC JC TC")
    play(state, "STOP", "STOP")
    assert decide(state) == "PLAY AS"
    state = start("2C 3D 4S 5C 6D", "AC KC QC JC TC")
    play(state, "STOP", "STOP")
    assert decide(state) == "PLAY 2C"


def test_upgrader_games_verify_and_never_forfeit() -> None:
    for seed in range(20):
        names = ("upgrader", "upgrader") if seed % 2 else ("upgrader", "random")
        agents = [make_bot(names[s], game="banter", seat=s, players=2, options={}, seed=seed) for s in (0, 1)]
        record = play_game("banter", agents=agents, seed=seed)
        assert record.forfeit is None and verify(record).ok


def binomial_tail(n: int, k: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2), exactly."""
    return sum(comb(n, i) for i in range(k, n + 1)) / 2**n


def test_upgrader_beats_random_by_a_margin_chance_cannot_explain() -> None:
    games = 120
    wins = 0
    for seed in range(games):
        # Seats alternate, so neither seat's edge (if any) can favour the bot.
        bot_seat = seed % 2
        names = ["random", "random"]
        names[bot_seat] = "upgrader"
        agents = [make_bot(names[s], game="banter", seat=s, players=2, options={}, seed=seed) for s in (0, 1)]
        record = play_game("banter", agents=agents, seed=seed)
        assert record.result is not None
        wins += record.result["winner"] == bot_seat
    # A bot no better than random wins at most half its games (draws count against it), so it
    # reaches the threshold with probability below one in a million.
    threshold = next(k for k in range(games + 1) if binomial_tail(games, k) < 1e-6)
    assert threshold < 0.75 * games
    assert wins >= threshold, f"upgrader won {wins} of {games}; chance needs fewer than {threshold}"
