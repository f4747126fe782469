"""Train a bot for 1923 (one set, two players) with nothing but NumPy, check it, and upload it.

    python examples/train_1923.py --seconds 60
    python examples/train_1923.py --seconds 60 --server http://127.0.0.1:8000 --token TOKEN --bot 12

The bot learns one thing: at each tick, DRAW or LOCK. It learns it by playing sets against the built-in
``random`` bot through the engine's own rules (the rules the server plays) and keeping, for every situation
it can tell apart, the average number of cards each choice went on to win or lose in that hand: a table of
Monte-Carlo estimates, with a share of random choices so that every entry gets tried (docs/training.md).

A situation is what the seat sees at the moment it decides (``observation(state, seat)``, never more): the
value of its own known cards, whether the opponent has locked, and how many cards the opponent holds.

At the end the greedy policy (the better of DRAW and LOCK in each situation) plays ``--eval-sets`` sets against
``random`` with duplicate deals and seats rotated, as a server match does, and its score rate is printed with
a 95 % interval. The policy is written out as an ordinary bot file (the table inside it, the standard library
only), which runs in the server's sandbox; with ``--server`` it is uploaded as a new version of your bot.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.bots import bot_names, make_bot
from engine.games import get_game
from engine.intervals import wilson_interval
from engine.match import play_match

GAME = "1923"
OPTIONS: Mapping[str, object] = {"mode": "set"}
PLAYERS = 2
ACTIONS = ("DRAW", "LOCK")

#: Blackjack values by rank; an Ace counts 1 here and 11 when that still ranks best (RULES.md, "Hand value").
_VALUE = {rank: min(index + 1, 10) for index, rank in enumerate("A23456789TJQK")}
#: Known hand values run from 1 to 23 + 10; everything above 31 is one bust, as far as deciding goes.
_VALUES = 32
#: The opponent holds 2 cards at first and one more per DRAW; five or more is one case.
_HAND_SIZES = 5


def hand_value(cards: Sequence[str]) -> int:
    """The best value of these cards: each Ace 1 or 11, 11 only while the hand stays at 23 or under."""
    value = sum(_VALUE[card[0]] for card in cards)
    for _ in range(sum(card[0] == "A" for card in cards)):
        if value + 10 <= 23:
            value += 10
    return value


def situation(observation: Mapping[str, Any]) -> tuple[int, int, int]:
    """The table's index for what the seat sees: its known value, the opponent locked or not, its hand size."""
    seat = int(observation["seat"])
    opponent = 1 - seat
    return (
        min(hand_value(observation["hand"]), _VALUES - 1),
        int(bool(observation["locked"][opponent])),
        min(int(observation["hand_sizes"][opponent]), _HAND_SIZES) - 1,
    )


class TablePolicy:
    """Monte-Carlo estimates of each choice's worth in each situation, and the choices they lead to."""

    def __init__(self) -> None:
        shape = (_VALUES, 2, _HAND_SIZES, len(ACTIONS))
        self.worth: npt.NDArray[np.float64] = np.zeros(shape)
        self.tries: npt.NDArray[np.int64] = np.zeros(shape, dtype=np.int64)

    def choose(self, observation: Mapping[str, Any], legal_actions: Sequence[str], explore: float, rng: Any) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]  # an empty deck leaves LOCK alone
        if rng.random() < explore:
            return str(legal_actions[int(rng.integers(len(legal_actions)))])
        return ACTIONS[int(np.argmax(self.worth[situation(observation)]))]

    def learn(self, choices: Sequence[tuple[tuple[int, int, int], int]], outcome: float) -> None:
        """Fold one hand's outcome into the average of every choice made in it."""
        for where, action in choices:
            cell = (*where, action)
            self.tries[cell] += 1
            self.worth[cell] += (outcome - self.worth[cell]) / self.tries[cell]

    def greedy(self) -> list[list[list[int]]]:
        """The index of the better action in each situation: what the uploaded bot carries."""
        choice: list[list[list[int]]] = np.argmax(self.worth, axis=-1).tolist()
        return choice


def train(policy: TablePolicy, *, seconds: float, seed: int) -> int:
    """Play sets against ``random`` for ``seconds`` and learn from every hand; the number of sets played."""
    game = get_game(GAME)
    options = game.parse_options(OPTIONS, PLAYERS)
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + seconds
    sets = 0
    while time.monotonic() < deadline:
        # Exploring less as the table fills, never quite stopping: situations seen rarely still get tried.
        explore = max(0.05, 1.0 - sets / 20_000)
        _play_one_set(game, options, policy, seed=seed * 1_000_003 + sets, explore=explore, rng=rng)
        sets += 1
    return sets


def _play_one_set(
    game: Any, options: Mapping[str, Any], policy: TablePolicy, *, seed: int, explore: float, rng: Any
) -> None:
    state = game.new_state(options, PLAYERS, seed)
    learner = seed % PLAYERS  # both seats, in turn: a set is not the same from either side
    opponent = random.Random(seed)
    choices: list[tuple[tuple[int, int, int], int]] = []
    won = (0, 0)
    while not game.is_over(state):
        actions = {}
        for seat in game.to_act(state):
            legal = game.legal_actions(state, seat)
            if seat != learner:
                actions[seat] = opponent.choice(legal)
                continue
            observation = game.observation(state, seat)
            action = policy.choose(observation, legal, explore, rng)
            if len(legal) > 1:
                choices.append((situation(observation), ACTIONS.index(action)))
            actions[seat] = action
        game.apply(state, actions)
        now = tuple(game.observation(state, learner)["won"])
        if now != won:
            # A hand was decided: the learner's cards won less the opponent's is what its choices earned.
            policy.learn(choices, float((now[learner] - won[learner]) - (now[1 - learner] - won[1 - learner])))
            won, choices = now, []


class PolicyAgent:
    """The greedy policy as an engine agent, for the evaluation."""

    def __init__(self, table: list[list[list[int]]]) -> None:
        self.table = table

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        value, locked, size = situation(observation)
        return ACTIONS[self.table[value][locked][size]]


@dataclass(frozen=True)
class Evaluation:
    sets: int
    score_rate: float
    #: The 95 % interval the server's standings and the gauntlet show for the same games (Wilson).
    interval: tuple[float, float]


def evaluate(table: list[list[list[int]]], *, sets: int, seed: int, against: str = "random") -> Evaluation:
    """The greedy policy against the built-in bot ``against``: one match of ``sets`` sets, duplicate deals, seats
    rotated."""
    options = get_game(GAME).parse_options(OPTIONS, PLAYERS)
    learner = PolicyAgent(table)

    def agents(number: int, seating: Sequence[int | None], game_seed: int) -> list[Any]:
        return [
            learner
            if who == 0
            else make_bot(against, game=GAME, seat=seat, players=PLAYERS, options=options, seed=game_seed)
            for seat, who in enumerate(seating)
        ]

    result = play_match(
        GAME,
        participants=2,
        agents_for_game=agents,
        seats=PLAYERS,
        games=sets,
        seed=seed,
        options=OPTIONS,
        duplicate=True,
    )
    # The learner is participant 0: its summed score rates over the sets (a set won 1, shared ½, lost 0).
    points, sets_played = result.scores[0], len(result.games)
    return Evaluation(sets_played, float(points) / sets_played, wilson_interval(points, sets_played))


_BOT_TEMPLATE = '''"""1923, one set: DRAW or LOCK from a table that examples/train_1923.py learned against random."""

TABLE = {table}
VALUE = {{rank: min(index + 1, 10) for index, rank in enumerate("A23456789TJQK")}}


def value_of(cards):
    value = sum(VALUE[card[0]] for card in cards)
    for _ in range(sum(card[0] == "A" for card in cards)):
        if value + 10 <= 23:
            value += 10
    return value


def act(turn):
    if len(turn.legal_actions) == 1:
        return turn.legal_actions[0]
    seen = turn.observation
    opponent = 1 - turn.seat
    value = min(value_of(seen["hand"]), {last_value})
    size = min(seen["hand_sizes"][opponent], {sizes}) - 1
    return {actions}[TABLE[value][int(seen["locked"][opponent])][size]]
'''


def bot_source(table: list[list[list[int]]]) -> str:
    """The policy as an uploadable bot: the standard library only, as the sandbox's Python runs it."""
    return _BOT_TEMPLATE.format(
        table=json.dumps(table, separators=(",", ":")), last_value=_VALUES - 1, sizes=_HAND_SIZES, actions=list(ACTIONS)
    )


class UploadFailed(Exception):
    pass


def upload(source: str, *, server: str, token: str, bot: int, filename: str = "trained_1923.py") -> dict[str, Any]:
    """Upload ``source`` as a new version of bot ``bot`` (docs/bot-protocol.md, "Uploading"); the new version."""
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\nupload\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="source"; filename="{filename}"\r\n'
        f"Content-Type: text/x-python\r\n\r\n{source}\r\n--{boundary}--\r\n"
    ).encode()
    request = urllib.request.Request(
        f"{server.rstrip('/')}/api/bots/{bot}/versions/",
        data=body,
        method="POST",
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Accept": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            version: dict[str, Any] = json.loads(answer.read())
            return version
    except urllib.error.HTTPError as refused:
        raise UploadFailed(
            f"the server refused the upload ({refused.code}): {refused.read()[:500].decode(errors='replace')}"
        ) from None
    except urllib.error.URLError as unreachable:
        raise UploadFailed(f"the server at {server} cannot be reached: {unreachable.reason}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train a 1923 bot with NumPy, check it against random, upload it.")
    parser.add_argument("--seconds", type=float, default=60.0, help="training time (default 60)")
    parser.add_argument("--eval-sets", type=int, default=2000, help="sets played to check the result (default 2000)")
    parser.add_argument(
        "--eval-against", default="random", help="the built-in bot to check against (python -m engine games)"
    )
    parser.add_argument("--seed", type=int, default=1, help="makes a run repeatable, bar the time it trains")
    parser.add_argument("--out", type=Path, default=Path("var/trained_1923.py"), help="where to write the bot")
    parser.add_argument("--server", help="the club's address, to upload the bot, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", help="your API token (the site's account page, or POST /api/auth/token/)")
    parser.add_argument("--bot", type=int, help="the id of your 1923 bot to add the version to")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.eval_sets < 2:
        parser.error("--seconds must be positive and --eval-sets at least 2")
    if args.eval_against not in bot_names(GAME):
        parser.error(
            f"--eval-against: no built-in 1923 bot {args.eval_against!r}; there are {', '.join(bot_names(GAME))}"
        )
    if args.server and (not args.token or args.bot is None):
        parser.error("uploading needs --token and --bot as well as --server")

    policy = TablePolicy()
    started = time.perf_counter()
    sets = train(policy, seconds=args.seconds, seed=args.seed)
    trained = time.perf_counter() - started
    print(f"trained on {sets:,} sets against random in {trained:.1f} s ({sets / trained:,.0f} sets/s)")
    checked = evaluate(policy.greedy(), sets=args.eval_sets, seed=args.seed + 7919, against=args.eval_against)
    low, high = checked.interval
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(bot_source(policy.greedy()))
    print(f"wrote the bot to {args.out}")
    if args.server:
        try:
            version = upload(args.out.read_text(), server=args.server, token=args.token, bot=args.bot)
        except UploadFailed as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"uploaded as version {version.get('number')} of bot {args.bot}: {version.get('status', '')}")
    print(
        f"trained 1923 bot: score rate {checked.score_rate:.3f} against {args.eval_against} "
        f"over {checked.sets:,} sets, 95% interval {low:.3f}-{high:.3f}, after {trained:.0f} s of training"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
